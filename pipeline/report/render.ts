// report.md and report.html (SPEC §7) from rows: pure, no file system, no clock. The one time shown
// is the study's as_of.
//
// Rates stay exact fractions everywhere else; here, and only here, each is also shown as a
// percentage with one decimal (rounded half up, in integer arithmetic), next to its numerator and
// denominator, so rounding never hides the gap between the declared and the proven column.
// report.html is self-contained: inline CSS, inline SVG charts, no script, nothing to load (a
// Content-Security-Policy forbids it too).
import { canonicalJson, JsonNumber } from '../formats/canonical-json.ts';
import type { EmitInputs } from '../emit/manifest.ts';
import type { Cell, ResultName, Row, StoreFacts } from '../emit/tables.ts';

export interface WitnessSummary {
  witness: string;
  ok: boolean;
  codes: string[];
  signer: string | null;
}

export interface ReportInput {
  title: string;
  study_id: string;
  as_of: string;
  run_id: string;
  inputs: EmitInputs;
  witnesses: WitnessSummary[];
  independent_witnesses: number;
  min_witnesses: number;
  results: Record<ResultName, Row[]>;
  facts: StoreFacts;
}

// ------------------------------------------------------------------------------------------
// Values

function integer(c: Cell | undefined): bigint | null {
  if (typeof c === 'bigint') return c;
  if (c instanceof JsonNumber && /^-?\d+$/.test(c.lexeme)) return BigInt(c.lexeme);
  return null;
}

/** A cell as text: integers and doubles exactly as in results.json, NULL as an em dash. */
export function show(c: Cell | undefined): string {
  if (c === null || c === undefined) return '—';
  if (typeof c === 'bigint' || typeof c === 'boolean') return String(c);
  if (typeof c === 'string') return c;
  if (c instanceof JsonNumber) return c.lexeme;
  return canonicalJson(c);
}

/** round(10 · 100 · n / d), half away from zero: a percentage in tenths. */
function tenthsOfPercent(n: bigint, d: bigint): bigint {
  const num = n * 1000n * (d < 0n ? -1n : 1n);
  const den = d < 0n ? -d : d;
  const q = (2n * (num < 0n ? -num : num) + den) / (2n * den);
  return num < 0n ? -q : q;
}

function tenthsText(t: bigint): string {
  const neg = t < 0n;
  const a = neg ? -t : t;
  return `${neg ? '−' : ''}${a / 10n}.${a % 10n}`;
}

export interface Fraction {
  text: string;
  /** Tenths of a percent, or null when the denominator is 0 or missing. */
  tenths: bigint | null;
}

export function fraction(numerator: Cell | undefined, denominator: Cell | undefined): Fraction {
  const n = integer(numerator);
  const d = integer(denominator);
  if (n === null || d === null) return { text: `${show(numerator)}/${show(denominator)}`, tenths: null };
  if (d === 0n) return { text: `${n}/0 (n/a)`, tenths: null };
  const t = tenthsOfPercent(n, d);
  return { text: `${n}/${d} (${tenthsText(t)}%)`, tenths: t };
}

/** proven − declared, in percentage points, exact until the final rounding. */
function gap(row: Row): string {
  const [d, nd, p, np] = [integer(row.declared), integer(row.n_declared), integer(row.proven), integer(row.n_proven)];
  if (d === null || nd === null || p === null || np === null || nd === 0n || np === 0n) return '—';
  const t = tenthsOfPercent(p * nd - d * np, np * nd);
  return `${t > 0n ? '+' : ''}${tenthsText(t)} pts`;
}

// ------------------------------------------------------------------------------------------
// The document, shared by both renderings

type Block =
  | { kind: 'p'; text: string }
  | { kind: 'list'; items: string[] }
  | { kind: 'table'; headers: string[]; rows: string[][]; numeric?: number[] }
  | { kind: 'charts' };

interface Section {
  title: string;
  blocks: Block[];
}

function table(headers: string[], rows: string[][], numeric: number[] = []): Block {
  return rows.length === 0 ? { kind: 'p', text: '(no rows)' } : { kind: 'table', headers, rows, numeric };
}

function classCounts(rows: Row[]): Block {
  // class → system → [declared, proven]
  const counts = new Map<string, Map<string, [number, number]>>();
  const systems = new Set<string>();
  for (const r of rows) {
    const system = show(r.system_id);
    systems.add(system);
    for (const [col, i] of [['class_declared', 0], ['class_proven', 1]] as const) {
      const cls = show(r[col]);
      const bySystem = counts.get(cls) ?? new Map<string, [number, number]>();
      const pair = bySystem.get(system) ?? [0, 0];
      pair[i]++;
      bySystem.set(system, pair);
      counts.set(cls, bySystem);
    }
  }
  const sys = [...systems].sort(codePointOrder);
  const headers = ['class', ...sys.flatMap((s) => [`${s} declared`, `${s} proven`])];
  const body = [...counts.keys()].sort(codePointOrder).map((cls) => [
    cls,
    ...sys.flatMap((s) => (counts.get(cls)!.get(s) ?? [0, 0]).map(String)),
  ]);
  return table(headers, body, headers.map((_, i) => i).slice(1));
}

function codePointOrder(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

function sections(r: ReportInput): Section[] {
  const f = r.facts;
  const files = f.submission_files;
  const total = (col: string) => files.reduce((s, row) => s + (integer(row[col]) ?? 0n), 0n);
  const ok = r.witnesses.filter((w) => w.ok);
  return [
    {
      title: 'How to read this report',
      blocks: [
        { kind: 'p', text: `Study ${r.study_id}, as of ${r.as_of}, run ${r.run_id}.` },
        {
          kind: 'list',
          items: [
            'declared: the submission taken at its word — every piece of evidence counts.',
            'proven: only what evidence establishes that verified offline against keys and roots pinned before the study.',
            'Rates are exact fractions (numerator/denominator); the percentage beside each is rounded to one decimal for reading only. The gap between the two columns is the finding.',
            'This report shows reproducible results and verified evidence. It does not show that evidence was truthful, nor that the witnesses saw every action of a system.',
          ],
        },
      ],
    },
    {
      title: 'Freeze and witnesses',
      blocks: [
        table(['input', 'digest'], [
          ['freeze_digest', r.inputs.freeze_digest],
          ['corpus root', r.inputs.corpus_root],
          ['section 5', r.inputs.section5_sha256],
          ['answer-key commitment', r.inputs.answer_key_root],
          ['trust policy root', r.inputs.trust_root],
          ['commitments file', r.inputs.commitments_sha256 ?? 'none (no inputs/commitments.jsonl)'],
        ]),
        {
          kind: 'p',
          text:
            r.witnesses.length === 0
              ? 'No independent witness confirmed the freeze: there is no anchor token, so nothing outside the operator\'s own files shows that the plan preceded the submissions.'
              : `${r.independent_witnesses} independent witness(es) confirmed the freeze before the submission window opened (the study requires ${r.min_witnesses}).`,
        },
        ...(r.witnesses.length === 0
          ? []
          : [table(['witness', 'verified', 'signer', 'codes'], r.witnesses.map((w) => [w.witness, w.ok ? 'yes' : 'NO', w.signer ?? '—', w.codes.join(', ') || '—']))]),
        ...(ok.length < r.min_witnesses ? [{ kind: 'p' as const, text: 'Fewer witnesses than the study requires confirmed the freeze.' }] : []),
      ],
    },
    {
      title: 'Submissions',
      blocks: [
        table(
          ['file', 'lines read', 'accepted', 'rejected'],
          [
            ...files.map((row) => [show(row.file), show(row.lines_read), show(row.accepted), show(row.rejected)]),
            ['total', String(total('lines_read')), String(total('accepted')), String(total('rejected'))],
          ],
          [1, 2, 3],
        ),
        { kind: 'p', text: 'Every line read is either accepted or rejected with a reason code (rejects.csv); nothing is dropped.' },
        table(['reason code', 'rejected lines'], f.rejects_by_code.map((x) => [x.reason_code, String(x.lines)]), [1]),
        table(['system', 'accepted records'], f.records_by_system.map((x) => [x.system_id, String(x.records)]), [1]),
      ],
    },
    {
      title: 'Scores',
      blocks: [
        table(
          ['system', 'metric', 'declared', 'proven', 'proven − declared'],
          r.results.scores.map((row) => [show(row.system_id), show(row.metric), fraction(row.declared, row.n_declared).text, fraction(row.proven, row.n_proven).text, gap(row)]),
          [2, 3, 4],
        ),
        { kind: 'charts' },
      ],
    },
    { title: 'Whose evidence is whose', blocks: ownershipBlocks(f) },
    {
      title: 'Constancy over repeated attempts',
      blocks: [
        { kind: 'p', text: 'A case that succeeds only some of the time is not a success.' },
        table(
          ['system', 'metric', 'always', 'sometimes', 'never'],
          r.results.constancy.map((row) => [show(row.system_id), show(row.metric), show(row.always), show(row.sometimes), show(row.never)]),
          [2, 3, 4],
        ),
      ],
    },
    {
      title: 'Sign tests',
      blocks: [
        { kind: 'p', text: 'Exact two-sided binomial test on the discordant items only.' },
        table(
          ['system A', 'system B', 'metric', 'wins A', 'wins B', 'ties', 'p-value'],
          r.results.sign_tests.map((row) => [show(row.system_a), show(row.system_b), show(row.metric), show(row.wins_a), show(row.wins_b), show(row.ties), show(row.p_value)]),
          [3, 4, 5, 6],
        ),
      ],
    },
    {
      title: 'Pre-registered hypotheses',
      blocks: [
        table(
          ['hypothesis', 'statement', 'threshold', 'observed', 'outcome'],
          r.results.hypotheses.map((row) => [show(row.hypothesis_id), show(row.statement), show(row.threshold), show(row.observed), show(row.outcome)]),
          [2, 3],
        ),
      ],
    },
    { title: 'Assertion classes', blocks: [classCounts(r.results.assertion_classes)] },
    {
      title: 'Evidence checked',
      blocks: [
        table(['table', 'rows'], [
          ['assertions', String(f.counts.assertions)],
          ['proof_checks', String(f.counts.proof_checks)],
          ['chain_checks', String(f.counts.chain_checks)],
        ], [1]),
        ...(f.proof_status ? [table(['proof status', 'proofs'], f.proof_status.map((x) => [x.status, String(x.rows)]), [1])] : []),
        ...(f.chain_status ? [table(['chain status', 'chains'], f.chain_status.map((x) => [x.status, String(x.rows)]), [1])] : []),
        ...(f.witnesses_by_system
          ? [
              {
                kind: 'p' as const,
                text: 'Independent witnesses per system: witnesses the issuer could not have produced itself (an RFC 3161 token from a pinned TSA, a transparency-log entry) that verified for a proof. The issuer\'s own signature and hashes are not counted.',
              },
              table(['system', 'proofs', 'proofs with an independent witness', 'independent witnesses'], f.witnesses_by_system.map((x) => [x.system_id, String(x.proofs), String(x.witnessed), String(x.witnesses)]), [1, 2, 3]),
            ]
          : []),
      ],
    },
  ];
}

/** Evidence belongs to the record that submits it (SPEC §6.2): registration, binding, every reuse. */
function ownershipBlocks(f: StoreFacts): Block[] {
  const e = f.evidence;
  const registered = e.registered_systems.length > 0;
  const list = (c: Cell | undefined) => (Array.isArray(c) ? c.map(show).join(', ') : show(c));
  return [
    {
      kind: 'p',
      text: registered
        ? `study.json registers ${e.registered_systems.length} system(s) (${e.registered_systems.map((r) => show(r.system_id)).join(', ')}): a proof counts as proven for a record only when the buyer fingerprint its chain hash covers is one of the submitting system's; otherwise EVIDENCE_NOT_BOUND (the proof keeps its status, the record gets nothing proven from it).`
        : 'study.json registers no systems: a proof is bound to no system, so any system may claim any proof. Evidence claimed by two records is EVIDENCE_REUSED on both: a copier who submits another system\'s evidence cancels the original\'s proven credit as well as its own.',
    },
    { kind: 'p', text: 'A proof (by proof_id, chain hash or response hash) or a receipt timeline (by job_id or final entry digest) claimed by more than one record is EVIDENCE_REUSED on each and counts as proven for none.' },
    table(
      ['system', 'proofs', 'VERIFIED', 'proofs not bound', 'proofs reused', 'timelines reused'],
      e.by_system.map((r) => [show(r.system_id), show(r.proofs), show(r.verified), show(r.proofs_not_bound), show(r.proofs_reused), show(r.timelines_reused)]),
      [1, 2, 3, 4, 5],
    ),
    {
      kind: 'p',
      text: e.reuse.length === 0
        ? 'No evidence is used by more than one record.'
        : `${e.reuse.length} value(s) are used by more than one record. "claimed by" lists the records that count as its users (a VERIFIED proof or ANCHORED timeline not EVIDENCE_NOT_BOUND); the reuse cancels credit when more than one record claims it.`,
    },
    ...(e.reuse.length === 0
      ? []
      : [table(['kind', 'value', 'records', 'systems', 'claimed by', 'cancels credit'], e.reuse.map((r) => [show(r.kind), show(r.value), list(r.records), list(r.systems), list(r.claimed_by) || '—', r.cancels === true ? 'yes' : 'no']))]),
  ];
}

// ------------------------------------------------------------------------------------------
// Markdown

function mdEscape(text: string): string {
  return text.replace(/[\\`*_[\]<>|#]/g, (c) => `\\${c}`).replace(/\r?\n|\r/g, ' ');
}

export function renderMarkdown(r: ReportInput): string {
  const out: string[] = [`# ${mdEscape(r.title)}`, ''];
  for (const s of sections(r)) {
    out.push(`## ${mdEscape(s.title)}`, '');
    for (const b of s.blocks) {
      if (b.kind === 'p') out.push(mdEscape(b.text), '');
      else if (b.kind === 'list') out.push(...b.items.map((i) => `- ${mdEscape(i)}`), '');
      else if (b.kind === 'table') {
        out.push(`| ${b.headers.map(mdEscape).join(' | ')} |`);
        out.push(`| ${b.headers.map((_, i) => (b.numeric?.includes(i) ? '---:' : '---')).join(' | ')} |`);
        for (const row of b.rows) out.push(`| ${row.map(mdEscape).join(' | ')} |`);
        out.push('');
      } else out.push('The chart of declared vs proven per system is in report.html.', '');
    }
  }
  return `${out.join('\n').trimEnd()}\n`;
}

// ------------------------------------------------------------------------------------------
// HTML

function h(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

const CSS = `
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:#1b1f24;max-width:72rem;margin:2rem auto;padding:0 1rem}
h1{font-size:1.6rem}h2{font-size:1.2rem;margin-top:2rem;border-bottom:1px solid #d0d7de}
table{border-collapse:collapse;margin:.6rem 0}th,td{border:1px solid #d0d7de;padding:.25rem .55rem;text-align:left;vertical-align:top}
th{background:#f6f8fa}td.n{text-align:right;font-variant-numeric:tabular-nums}
.charts{display:flex;flex-wrap:wrap;gap:1.5rem}figure{margin:0}figcaption{font-weight:600;margin-bottom:.3rem}
svg text{font:11px system-ui,sans-serif;fill:#1b1f24}svg .axis{stroke:#8c959f;stroke-width:1}svg .grid{stroke:#d0d7de;stroke-width:1}
svg .declared{fill:#9ecae1}svg .proven{fill:#08519c}.key{display:inline-block;width:.8em;height:.8em;margin:0 .3em 0 .8em}
.key.declared{background:#9ecae1}.key.proven{background:#08519c}
`.trim();

const PLOT_TOP = 24;
const PLOT_HEIGHT = 150;
const GROUP = 110;
const LEFT = 44;

function bar(cls: 'declared' | 'proven', x: number, f: Fraction): string {
  const clamped = f.tenths === null ? 0 : Math.min(1000, Math.max(0, Number(f.tenths)));
  const height = (clamped * PLOT_HEIGHT) / 1000;
  const y = PLOT_TOP + PLOT_HEIGHT - height;
  const label = f.text.replace(/ \(.*\)$/, '');
  return (
    `<rect class="${cls}" x="${x}" y="${y.toFixed(1)}" width="40" height="${height.toFixed(1)}"><title>${h(`${cls}: ${f.text}`)}</title></rect>` +
    `<text x="${x + 20}" y="${(y - 4).toFixed(1)}" text-anchor="middle">${h(label)}</text>`
  );
}

/** One SVG per metric: for each system a declared and a proven bar, on a 0–100 % scale. */
function chart(metric: string, rows: Row[]): string {
  const width = LEFT + rows.length * GROUP + 10;
  const height = PLOT_TOP + PLOT_HEIGHT + 40;
  const parts: string[] = [];
  for (const pct of [0, 50, 100]) {
    const y = PLOT_TOP + PLOT_HEIGHT - (pct * PLOT_HEIGHT) / 100;
    parts.push(`<line class="grid" x1="${LEFT}" y1="${y}" x2="${width - 10}" y2="${y}"/><text x="${LEFT - 6}" y="${y + 4}" text-anchor="end">${pct}%</text>`);
  }
  rows.forEach((row, i) => {
    const x = LEFT + i * GROUP + 10;
    parts.push(bar('declared', x, fraction(row.declared, row.n_declared)));
    parts.push(bar('proven', x + 45, fraction(row.proven, row.n_proven)));
    parts.push(`<text x="${x + 42}" y="${PLOT_TOP + PLOT_HEIGHT + 16}" text-anchor="middle">${h(show(row.system_id))}</text>`);
  });
  parts.push(`<line class="axis" x1="${LEFT}" y1="${PLOT_TOP + PLOT_HEIGHT}" x2="${width - 10}" y2="${PLOT_TOP + PLOT_HEIGHT}"/>`);
  return (
    `<figure><figcaption>${h(metric)}</figcaption>` +
    `<svg role="img" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" aria-label="${h(`${metric}: declared vs proven per system`)}">` +
    `<title>${h(`${metric}: declared vs proven per system`)}</title>${parts.join('')}</svg></figure>`
  );
}

function charts(scores: Row[]): string {
  const byMetric = new Map<string, Row[]>();
  for (const row of scores) {
    const m = show(row.metric);
    byMetric.set(m, [...(byMetric.get(m) ?? []), row]);
  }
  if (byMetric.size === 0) return '<p>(no scores to chart)</p>';
  const metrics = [...byMetric.keys()].sort(codePointOrder);
  return (
    '<p>Declared vs proven per system, as a percentage of each denominator (bar labels: numerator/denominator).' +
    '<span class="key declared"></span>declared<span class="key proven"></span>proven</p>' +
    `<div class="charts">${metrics.map((m) => chart(m, byMetric.get(m)!)).join('')}</div>`
  );
}

export function renderHtml(r: ReportInput): string {
  const body: string[] = [`<h1>${h(r.title)}</h1>`];
  for (const s of sections(r)) {
    body.push(`<h2>${h(s.title)}</h2>`);
    for (const b of s.blocks) {
      if (b.kind === 'p') body.push(`<p>${h(b.text)}</p>`);
      else if (b.kind === 'list') body.push(`<ul>${b.items.map((i) => `<li>${h(i)}</li>`).join('')}</ul>`);
      else if (b.kind === 'table') {
        const cell = (text: string, i: number, tag: 'td' | 'th') => `<${tag}${tag === 'td' && b.numeric?.includes(i) ? ' class="n"' : ''}>${h(text)}</${tag}>`;
        body.push(
          `<table><thead><tr>${b.headers.map((t, i) => cell(t, i, 'th')).join('')}</tr></thead><tbody>` +
            b.rows.map((row) => `<tr>${row.map((t, i) => cell(t, i, 'td')).join('')}</tr>`).join('') +
            '</tbody></table>',
        );
      } else body.push(charts(r.results.scores));
    }
  }
  return [
    '<!DOCTYPE html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${h(r.title)} — ${h(r.study_id)} — run ${h(r.run_id)}</title>`,
    `<style>${CSS}</style>`,
    '</head>',
    '<body>',
    ...body,
    '</body>',
    '</html>',
    '',
  ].join('\n');
}
