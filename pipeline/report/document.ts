// The report as a document of sections and blocks, shared by report.md and report.html. Pure: rows
// in, blocks out. It leads with its finding — one sentence per system on the study's primary
// metric, that metric's chart, the hypotheses with their outcomes — and the details follow.
import type { CheckedDeviation } from '../evidence/deviations/check.ts';
import type { Cell, Row } from '../store/cells.ts';
import type { EmitInputs, HeldResultName, StoreFacts } from '../results/shapes.ts';
import type { StudyClass } from '../study/classes.ts';
import {
  codePointOrder,
  fieldsOf,
  fraction,
  gap,
  gapTenths,
  integer,
  intervalText,
  levelText,
  metricName,
  observedOf,
  percentOf,
  pValueText,
  show,
  tenthsText,
  type MetricLabels,
} from './values.ts';

export interface WitnessSummary {
  witness: string;
  ok: boolean;
  reason_codes: string[];
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
  /** The amendments of the plan, oldest first (freeze --replace --reason): each freeze, the one it replaced, and why. */
  amendments: Array<{ freeze_digest: string; amends: string; reason: string }>;
  /** study.json report.primary_metric: the metric the first screen leads with (null: none named). */
  primary_metric: string | null;
  /** study.json report.metrics: metric names in words, with the better direction. */
  metric_labels: MetricLabels;
  /** study.json classes: the classes of the study's own, each with its one-line meaning (SPEC §13.1). */
  classes: StudyClass[];
  /** Every result but assertion_classes (a row per assertion and record), whose classes class_counts counts. */
  results: Record<HeldResultName, Row[]>;
  /** Per system and class, assertion_classes rows declared and proven in it (system_id, class, declared, proven). */
  class_counts: Row[];
  facts: StoreFacts;
  /** inputs/deviations.jsonl, checked (SPEC §13.3): listed right after the finding. */
  deviations: CheckedDeviation[];
}

/** The plan's amendments, when it has any: each a new freeze naming the one it replaced, and why. */
function amendmentBlocks(amendments: ReportInput['amendments']): Block[] {
  if (amendments.length === 0) return [];
  return [
    {
      kind: 'p',
      text: `The plan was amended ${amendments.length} time(s) before the window opened; each amendment is a new freeze naming the one it replaced, kept with its anchors under preregistration/amendments/ (check-anchors verifies the chain).`,
    },
    table(
      ['freeze_digest', 'amends', 'reason'],
      amendments.map((a) => [a.freeze_digest, a.amends, a.reason]),
      [],
      'No amendment: the plan was frozen once.',
    ),
  ];
}

export type Block =
  | { kind: 'p'; text: string }
  | { kind: 'list'; items: string[] }
  | { kind: 'table'; headers: string[]; rows: string[][]; numeric?: number[] }
  /** Charts of declared vs proven: one metric's, or every metric's. */
  | { kind: 'charts'; metric: string | null };

export interface Section {
  title: string;
  /** The section that opens the report (report.html marks it for the first screen). */
  lead?: boolean;
  blocks: Block[];
}

/** A table, or when it has no row, `empty`: a sentence saying what it would hold (never a bare "no rows"). */
function table(headers: string[], rows: string[][], numeric: number[], empty: string): Block {
  return rows.length === 0 ? { kind: 'p', text: empty } : { kind: 'table', headers, rows, numeric };
}

// ------------------------------------------------------------------------------------------
// The finding

/** One sentence per system: declared vs proven on the primary metric, and the gap between them. */
function findingSentence(row: Row): string {
  const declared = fraction(row.declared, row.n_declared).text;
  const proven = fraction(row.proven, row.n_proven).text;
  const t = gapTenths(row);
  const verdict =
    t === null
      ? 'the gap cannot be computed'
      : t === 0n
        ? 'declared and proven agree'
        : `proven is ${tenthsText(t < 0n ? -t : t)} points ${t < 0n ? 'below' : 'above'} declared`;
  return `${show(row.system_id)}: ${declared} declared, ${proven} proven — ${verdict}.`;
}

function hypothesesTable(rows: Row[]): Block {
  return table(
    [
      'hypothesis',
      'outcome',
      'observed',
      'interval (for reading)',
      'threshold',
      'p (Holm)',
      'p against (Holm)',
      'why this outcome',
      'statement',
      'why this threshold',
    ],
    rows.map((row) => [
      show(row.hypothesis_id),
      show(row.outcome),
      observedOf(row),
      intervalText(row.observed_lower, row.observed_upper),
      percentOf(row.threshold),
      pValueText(row.p_holm),
      pValueText(row.p_holm_against),
      show(row.decision_reason),
      show(row.statement),
      show(row.reason),
    ]),
    [2, 3, 4, 5, 6],
    'No hypotheses: section 5 declares none, so nothing is decided.',
  );
}

/** Each replicate campaign (study.json systems[].replicate_of) and the system it repeats. */
function replicatesOf(f: StoreFacts): Map<string, string> {
  return new Map(
    f.evidence.registered_systems
      .filter((row) => row.replicate_of !== null && row.replicate_of !== undefined)
      .map((row) => [show(row.system_id), show(row.replicate_of)]),
  );
}

/**
 * The noise floor (SPEC §13.2), shown before the comparisons: how often each system's replicate
 * campaign disagrees with it, item by item — the difference identical campaigns make by chance.
 */
function noiseFloorBlocks(r: ReportInput): Block[] {
  const replicates = replicatesOf(r.facts);
  const originals = new Set(replicates.values());
  const without = [...new Set(r.facts.evidence.registered_systems.map((row) => show(row.system_id)))].filter(
    (s) => !replicates.has(s) && !originals.has(s),
  );
  if (replicates.size === 0) {
    return [
      {
        kind: 'p',
        text: 'No system was run twice (study.json systems[].replicate_of): the noise of identical campaigns is not measured, so no comparison below can be set against it ("beyond noise" is —). Two identical campaigns of one system can disagree on a fifth of the items.',
      },
    ];
  }
  return [
    {
      kind: 'p',
      text: `A replicate is a system run again, alike; the items on which the two campaigns disagree are the noise a comparison must beat. Systems with a replicate: ${[...originals].join(', ')}${without.length > 0 ? `; without: ${without.join(', ')} (their wins cannot be set against a noise floor)` : ''}. NOISE_FLOOR_EXCEEDED marks a pair whose own sign test reaches alpha: the two campaigns were not one system, or not run alike. In the comparisons, "beyond noise" says whether the discordant items exceed the noise floor of the system the comparison favours.`,
    },
    table(
      ['system', 'replicate', 'metric', 'items', 'discordant', 'p-value', 'flag'],
      r.results.noise_floor.map((row) => [
        show(row.system_id),
        show(row.replicate),
        metricName(show(row.metric), r.metric_labels),
        show(row.items),
        show(row.discordant),
        pValueText(row.p_value),
        row.reason_code === null ? '—' : show(row.reason_code),
      ]),
      [3, 4, 5],
      'No replicate was compared with its original (results.json noise_floor is empty).',
    ),
  ];
}

/** The causes a flip is attributed to (results.json constancy_flips), in the order the report counts them. */
const FLIP_CAUSES = [
  ['retrieval', 'REQUEST'],
  ['retrieval', 'SERVICE'],
  ['writing', null],
  ['missing', null],
] as const;

/**
 * Flips attributed (SPEC §13.2): per system and metric, how many items flipped over their attempts
 * and why — counted from the rows prereg's own SQL wrote, never from the plan's.
 */
function flipBlocks(r: ReportInput): Block[] {
  const counts = new Map<string, { system: string; metric: string; byCause: number[] }>();
  for (const row of r.results.constancy_flips) {
    const key = `${show(row.system_id)}\n${show(row.metric)}`;
    const entry = counts.get(key) ?? { system: show(row.system_id), metric: show(row.metric), byCause: FLIP_CAUSES.map(() => 0) };
    const at = FLIP_CAUSES.findIndex(([cause, why]) => cause === row.cause && why === (row.retrieval_cause ?? null));
    if (at >= 0) entry.byCause[at]! += 1;
    counts.set(key, entry);
  }
  if (counts.size === 0) return [{ kind: 'p', text: "Flips: no item's outcome differs across its attempts." }];
  return [
    {
      kind: 'p',
      text: 'Flips: items whose outcome is met in some attempts and not in others (a missing or TRUNCATED attempt is a failed one), each attributed by prereg from the evidence, not by the plan. Retrieval: the expected article was served in some attempts and not in others — REQUEST when the system sent different requests (its own querying), SERVICE when one request (the same request hashes, signed by the issuer in verified proofs the system owns) was served differently (the retrieval service). Writing: the article was served alike and the answer still changed. Missing: the attempts submitted agree; only an attempt left out differs. Retrieval flips are fixed in retrieval, writing flips in the answer.',
    },
    table(
      ['system', 'metric', 'flips', 'retrieval (REQUEST)', 'retrieval (SERVICE)', 'writing', 'missing'],
      [...counts.keys()]
        .sort(codePointOrder)
        .map((k) => counts.get(k)!)
        .map((c) => [
          c.system,
          metricName(c.metric, r.metric_labels),
          String(c.byCause.reduce((a, b) => a + b, 0)),
          ...c.byCause.map(String),
        ]),
      [2, 3, 4, 5, 6],
      "No flip: no item's outcome differs across its attempts.",
    ),
  ];
}

function finding(r: ReportInput): Section {
  const blocks: Block[] = [];
  const primary = r.primary_metric;
  if (primary === null) {
    blocks.push({ kind: 'p', text: 'study.json names no primary metric (report.primary_metric): the report leads with the hypotheses.' });
  } else {
    const replicates = replicatesOf(r.facts);
    const rows = r.results.scores.filter((row) => show(row.metric) === primary && !replicates.has(show(row.system_id)));
    blocks.push({
      kind: 'p',
      text: `Primary metric: ${metricName(primary, r.metric_labels)}. Declared takes each submission at its word; proven counts only what verified evidence establishes.`,
    });
    blocks.push({ kind: 'list', items: rows.map(findingSentence) });
    if (replicates.size > 0) {
      blocks.push({
        kind: 'p',
        text: `Replicate campaigns, ranked against nobody and in no hypothesis (they measure the noise floor, below): ${[...replicates].map(([rep, of]) => `${rep} (replicate of ${of})`).join(', ')}.`,
      });
    }
    blocks.push({ kind: 'charts', metric: primary });
  }
  const flag = attemptsFlag(r.results.constancy);
  if (flag) blocks.push({ kind: 'p', text: flag });
  blocks.push(hypothesesTable(r.results.hypotheses));
  return { title: 'Finding', lead: true, blocks };
}

// ------------------------------------------------------------------------------------------
// Deviations from the plan: on the record, beside the finding, changing nothing computed

function deviationItem(d: CheckedDeviation): string {
  const intake = `after ${d.intake_entries} intake entr${d.intake_entries === 1 ? 'y' : 'ies'}`;
  return `Deviation ${d.seq + 1}, dated ${d.gen_time ?? '(undated)'} by ${d.witness ?? 'an unnamed TSA'}, ${intake}${d.after_submissions ? ' — after the submissions were seen' : ''}: ${d.text}`;
}

function deviations(r: ReportInput): Section {
  const blocks: Block[] =
    r.deviations.length === 0
      ? [{ kind: 'p', text: 'No deviation from the pre-registered plan was recorded (inputs/deviations.jsonl holds none).' }]
      : [
          {
            kind: 'p',
            text: "What was done differently from the frozen plan, and why, in the operator's words: each signed with the operator key pinned at the freeze and dated by a timestamp authority. A deviation changes nothing computed: every number in this report is the frozen plan's. Those dated at or after closes_at were recorded after the submissions were seen.",
          },
          { kind: 'list', items: r.deviations.map(deviationItem) },
        ];
  return { title: 'Deviations from the plan', blocks };
}

// ------------------------------------------------------------------------------------------
// Constancy on equal footing, and the items behind each sign test

/** Per system, the numbers of attempts its constancy rows count over. */
function attemptsBySystem(constancy: Row[]): Map<string, string[]> {
  const by = new Map<string, Set<string>>();
  for (const row of constancy) {
    const s = show(row.system_id);
    by.set(s, (by.get(s) ?? new Set()).add(show(row.attempts)));
  }
  return new Map([...by].sort(([a], [b]) => codePointOrder(a, b)).map(([s, set]) => [s, [...set].sort((a, b) => Number(a) - Number(b))]));
}

/** The warning when systems were counted over different numbers of attempts, else null. */
function attemptsFlag(constancy: Row[]): string | null {
  const by = attemptsBySystem(constancy);
  const counts = new Set([...by.values()].flat());
  if (counts.size <= 1) return null;
  const list = [...by].map(([s, a]) => `${s} ${a.join(' and ')}`).join(', ');
  return `Constancy is not comparable across systems: they were counted over different numbers of attempts per item (${list}). "Always" shrinks as attempts are added; constancy comparisons and sign tests between these systems are flagged below.`;
}

function comparable(by: Map<string, string[]>, a: string, b: string): string {
  const [x, y] = [by.get(a) ?? [], by.get(b) ?? []];
  const same = x.length === 1 && y.length === 1 && x[0] === y[0];
  return `${x.join('+') || '—'} / ${y.join('+') || '—'}${same ? '' : ' — not comparable'}`;
}

function signTests(r: ReportInput): Block[] {
  const by = attemptsBySystem(r.results.constancy);
  const key = (row: Row) => `${show(row.system_a)}\u0000${show(row.system_b)}\u0000${show(row.metric)}`;
  const won = new Map<string, { a: string[]; b: string[] }>();
  for (const row of r.results.discordant_items) {
    const w = won.get(key(row)) ?? { a: [], b: [] };
    (show(row.winner) === show(row.system_a) ? w.a : w.b).push(show(row.item_id));
    won.set(key(row), w);
  }
  const adjusted = new Map(r.results.sign_test_adjustments.map((row) => [key(row), row]));
  const first = r.results.sign_test_adjustments[0];
  const alpha = first === undefined ? null : show(first.alpha);
  return [
    {
      kind: 'p',
      text: "Exact two-sided binomial test on the discordant items only: items one system succeeds on in every attempt the protocol expects (a missing attempt is a failure) and the other does not. The items are listed so the test can be checked; attempts per item are shown for each system. \"Caveats\" says what a reader needs beside a comparison without voiding it: TRUNCATION_GAP when the two systems' shares of truncated answers differ by more than the study's protocol.max_truncation_gap (truncated answers already count as failures); CONFIG_VARIES when either system's records carry more than one configuration.",
    },
    ...(first === undefined
      ? []
      : [
          {
            kind: 'p' as const,
            text: `At alpha = ${alpha}, the fewest discordant items with which any comparison could reach significance is ${show(first.fewest_discordant)} (all won by one system); below that, a comparison cannot show a difference whatever the systems do. "Wins needed" is, at a comparison's own number of discordant items, the fewest the leading system must win for the raw p-value to reach alpha. The Holm-adjusted p-value corrects for the comparisons of the same metric; "significant" is judged on it.`,
          },
        ]),
    table(
      [
        'system A',
        'system B',
        'metric',
        'attempts A / B',
        'wins A',
        'wins B',
        'ties',
        'p-value',
        'Holm p-value',
        'significant',
        'wins needed',
        'beyond noise',
        'items won by A',
        'items won by B',
        'caveats',
      ],
      // A replicate against its original is the noise floor, not a comparison.
      r.results.sign_tests
        .filter((row) => adjusted.has(key(row)))
        .map((row) => {
          const w = won.get(key(row)) ?? { a: [], b: [] };
          const adj = adjusted.get(key(row));
          const needed =
            adj === undefined
              ? '—'
              : adj.wins_needed === null
                ? `none of ${show(adj.discordant)}`
                : `${show(adj.wins_needed)} of ${show(adj.discordant)}`;
          return [
            show(row.system_a),
            show(row.system_b),
            metricName(show(row.metric), r.metric_labels),
            comparable(by, show(row.system_a), show(row.system_b)),
            show(row.wins_a),
            show(row.wins_b),
            show(row.ties),
            pValueText(row.p_value),
            adj === undefined ? '—' : pValueText(adj.p_holm),
            adj === undefined ? '—' : adj.reaches_alpha === true ? 'yes' : 'no',
            needed,
            adj?.beyond_noise === true ? 'yes' : adj?.beyond_noise === false ? 'no' : '—',
            w.a.join(', ') || '—',
            w.b.join(', ') || '—',
            Array.isArray(adj?.caveats) && adj.caveats.length > 0 ? adj.caveats.map(show).join(', ') : '—',
          ];
        }),
      [4, 5, 6, 7, 8],
      "No comparison between two systems: section 5's sign tests compare no pair other than a replicate and its original.",
    ),
  ];
}

// ------------------------------------------------------------------------------------------
// The details

function classCounts(rows: Row[]): Block {
  // class → system → [declared, proven], from the counts per system and class (ReportInput.class_counts)
  const counts = new Map<string, Map<string, [number, number]>>();
  const systems = new Set<string>();
  for (const r of rows) {
    const system = show(r.system_id);
    systems.add(system);
    const cls = show(r.class);
    const bySystem = counts.get(cls) ?? new Map<string, [number, number]>();
    const pair = bySystem.get(system) ?? [0, 0];
    pair[0] += Number(r.declared);
    pair[1] += Number(r.proven);
    bySystem.set(system, pair);
    counts.set(cls, bySystem);
  }
  const sys = [...systems].sort(codePointOrder);
  const headers = ['class', ...sys.flatMap((s) => [`${s} declared`, `${s} proven`])];
  const body = [...counts.keys()]
    .sort(codePointOrder)
    .map((cls) => [cls, ...sys.flatMap((s) => (counts.get(cls)!.get(s) ?? [0, 0]).map(String))]);
  return table(headers, body, headers.map((_, i) => i).slice(1), 'No assertion was classified: no accepted record makes one.');
}

/** The classes of the study's own (study.json classes), with what each means: the built-in ones are the product's (docs/tables.md). */
function studyClasses(classes: readonly StudyClass[]): Block[] {
  if (classes.length === 0) return [];
  return [
    { kind: 'p', text: 'Beside the built-in classes, this study declares its own (study.json classes), frozen with the plan:' },
    table(
      ['class', 'what it means'],
      classes.map((c) => [c.name, c.meaning]),
      [],
      'The study declares no class of its own.',
    ),
  ];
}

/** Evidence belongs to the record that submits it (SPEC §6.2): registration, binding, every reuse. */
function ownershipBlocks(f: StoreFacts): Block[] {
  const e = f.evidence;
  // Bound by fingerprints: some system registered with one (`binding: "none"` registers by id alone).
  const registered = e.registered_systems.some((r) => Array.isArray(r.buyer_fingerprints) && r.buyer_fingerprints.length > 0);
  const list = (c: Cell | undefined) => (Array.isArray(c) ? c.map(show).join(', ') : show(c));
  return [
    {
      kind: 'p',
      text: registered
        ? `study.json registers ${e.registered_systems.length} system(s) (${e.registered_systems.map((r) => show(r.system_id)).join(', ')}): a proof counts as proven for a record only when the buyer fingerprint its chain hash covers is one of the submitting system's; otherwise EVIDENCE_NOT_BOUND (the proof keeps its status, the record gets nothing proven from it).`
        : e.registered_systems.length > 0
          ? `study.json declares "binding": "none" (a weakened mode), registering ${e.registered_systems.length} system(s) by id alone: a proof is bound to no system, so any system may claim any proof, and evidence claimed by two records is EVIDENCE_REUSED on every claimant — a copier who submits another system's evidence cancels the original's proven credit as well as its own.`
          : "study.json registers no systems: a proof is bound to no system, so any system may claim any proof. Evidence claimed by two records is EVIDENCE_REUSED on both: a copier who submits another system's evidence cancels the original's proven credit as well as its own.",
    },
    {
      kind: 'p',
      text: `A proof (by its chain hash, which the issuer signs) or a receipt timeline (by its job and final entry digest, which a commitment binds) claimed by more than one record${registered ? ' of the same system' : ''} is EVIDENCE_REUSED on each and counts as proven for none. A shared proof_id is listed but cancels nothing (no signature covers it), and identical responses are no reuse (a deterministic service answers two calls alike).`,
    },
    {
      kind: 'p',
      text: "A passage counts as proven served only when the proof's seller is one the trust policy pins (read from what the proof binds: the recomputed preimage or an opened commitment; EVIDENCE_SELLER_UNBOUND / EVIDENCE_SELLER_UNPINNED otherwise), and its text is the frozen corpus's section for its ref, whole or an excerpt of at least passages.min_chars characters (PASSAGE_NOT_IN_CORPUS otherwise). A passage serves its own ref only; references its text mentions are relayed, never served.",
    },
    table(
      [
        'system',
        'proofs',
        'VERIFIED',
        'proofs not bound',
        'proofs reused',
        'timelines reused',
        'seller not pinned',
        'passages not in corpus',
      ],
      e.by_system.map((r) => [
        show(r.system_id),
        show(r.proofs),
        show(r.verified),
        show(r.proofs_not_bound),
        show(r.proofs_reused),
        show(r.timelines_reused),
        show(r.proofs_seller_not_pinned),
        show(r.passages_not_in_corpus),
      ]),
      [1, 2, 3, 4, 5, 6, 7],
      'No system submitted evidence: no proof or receipt timeline to attribute.',
    ),
    {
      kind: 'p',
      text:
        e.reuse.length === 0
          ? 'No evidence is used by more than one record.'
          : `${e.reuse.length} value(s) are used by more than one record. "claimed by" lists the records that count as its users (a VERIFIED proof or ANCHORED timeline not EVIDENCE_NOT_BOUND); the reuse cancels credit when more than one record claims it.`,
    },
    ...(e.reuse.length === 0
      ? []
      : [
          table(
            ['kind', 'value', 'records', 'systems', 'claimed by', 'cancels credit'],
            e.reuse.map((r) => [
              show(r.kind),
              show(r.value),
              list(r.records),
              list(r.systems),
              list(r.claimed_by) || '—',
              r.cancels === true ? 'yes' : 'no',
            ]),
            [],
            'No value is claimed by more than one record.',
          ),
        ]),
    ...sellerInconsistencyBlocks(e.seller_inconsistencies),
  ];
}

/** Requests a pinned seller served two ways (SELLER_INCONSISTENT, SPEC §13.1), and what the check cannot show. */
function sellerInconsistencyBlocks(rows: readonly Row[]): Block[] {
  const limits =
    "Only VERIFIED proofs bound to the submitting system, from a pinned seller, whose request hash the issuer's signature covers and whose response body was submitted, are compared. Requests are told apart by their hash: this check cannot show that systems sending different requests were served alike.";
  if (rows.length === 0)
    return [
      { kind: 'p', text: `No request to a pinned seller was served two different sets of passages (SELLER_INCONSISTENT). ${limits}` },
    ];
  const served = (c: Cell | undefined) =>
    (Array.isArray(c) ? c : [])
      .map((s) => {
        const o = fieldsOf(s);
        const refs = (Array.isArray(o.passages) ? o.passages : []).map((p) => show(fieldsOf(p).ref));
        return `${show(o.system_id)} attempt ${show(o.attempt)}: ${refs.join(', ') || 'no passage'}`;
      })
      .join('; ');
  return [
    {
      kind: 'p',
      text: `SELLER_INCONSISTENT: ${rows.length} request(s) to a pinned seller were served different sets of passages (by reference and text) — to two systems, or to two attempts of one: those answers were not served alike. results.json (evidence.seller_inconsistencies) gives each passage's text. ${limits}`,
    },
    table(
      ['item', 'request hash', 'seller', 'served (references)'],
      rows.map((r) => [show(r.item_id), show(r.request_hash), show(r.seller), served(r.served)]),
      [],
      'No request to a pinned seller was served two ways.',
    ),
  ];
}

/** The answer key's derived amounts (SPEC §13.1): computed, so freeze did not find them in the corpus. */
function derivedAmountBlocks(f: StoreFacts): Block[] {
  if (f.derived_amounts.length === 0)
    return [
      {
        kind: 'p',
        text: 'Every amount the answer key expects is written in the frozen text of the article it names (freeze checked each: ANSWER_KEY_AMOUNT_NOT_IN_CORPUS); none is derived.',
      },
    ];
  return [
    {
      kind: 'p',
      text: `${f.derived_amounts.length} amount(s) of the answer key are derived — computed from the text (a sum, a conversion), so freeze did not look for them in the article they name; every other expected amount is written there.`,
    },
    table(
      ['item', 'ref', 'amount', 'derivation'],
      f.derived_amounts.map((r) => [show(r.item_id), show(r.ref), `${show(r.value)} ${show(r.unit)}`, show(r.derived)]),
      [],
      'No amount of the answer key is derived.',
    ),
  ];
}

/**
 * The commitments files the run read, from both sources the manifest records (SPEC §5.2, §12.3):
 * the operator-collected inputs/commitments.jsonl and each system's own, received through intake
 * (inputs/commitments/*.jsonl, among the intake files), counted, then each with its digest.
 */
function commitmentRows(inputs: EmitInputs): string[][] {
  const intake = inputs.intake_files.filter((f) => /^inputs\/commitments\/[^/]+\.jsonl$/.test(f.file));
  const operator = inputs.commitments_sha256;
  const count = intake.length + (operator === null ? 0 : 1);
  const summary =
    count === 0
      ? 'none: no inputs/commitments.jsonl, and none received through intake'
      : `${count}: ${operator === null ? 'none operator-collected (no inputs/commitments.jsonl)' : 'the operator-collected inputs/commitments.jsonl'}; ${intake.length === 0 ? 'none' : intake.length} received through intake`;
  return [
    ['commitments files', summary],
    ...(operator === null ? [] : [['inputs/commitments.jsonl (operator-collected)', operator]]),
    ...intake.map((f) => [`${f.file} (received through intake)`, f.sha256]),
  ];
}

/** Scores with each column's exact interval (SPEC §12.6). */
function scoreTable(r: ReportInput): Block[] {
  const intervals = new Map(r.results.score_intervals.map((row) => [`${show(row.system_id)}\u0000${show(row.metric)}`, row]));
  const first = r.results.score_intervals[0];
  const level = first === undefined ? null : levelText(first.alpha);
  const header = (column: string) => (level === null ? `${column} interval` : `${column} ${level} interval`);
  // Section 5's extra `missing` column (SPEC §13.1): the expected records of the rate's denominator no record fills.
  const withMissing = r.results.scores.some((row) => row.missing !== undefined);
  return [
    ...(level === null
      ? []
      : [
          {
            kind: 'p' as const,
            text: `Beside each rate, its exact two-sided Clopper–Pearson ${level} interval (study.json statistics.alpha = ${show(first!.alpha)}), shown widened to one decimal.`,
          },
        ]),
    table(
      [
        'system',
        'metric',
        'declared',
        header('declared'),
        'proven',
        header('proven'),
        'proven − declared',
        ...(withMissing ? ['missing'] : []),
      ],
      r.results.scores.map((row) => {
        const i = intervals.get(`${show(row.system_id)}\u0000${show(row.metric)}`);
        return [
          show(row.system_id),
          metricName(show(row.metric), r.metric_labels),
          fraction(row.declared, row.n_declared).text,
          intervalText(i?.declared_lower, i?.declared_upper),
          fraction(row.proven, row.n_proven).text,
          intervalText(i?.proven_lower, i?.proven_upper),
          gap(row),
          ...(withMissing ? [row.missing === null || row.missing === undefined ? '—' : show(row.missing)] : []),
        ];
      }),
      withMissing ? [2, 4, 6, 7] : [2, 4, 6],
      'No scores: section 5 computes no rate (results.json scores is empty).',
    ),
  ];
}

/** A system's near misses in one column (results.json retrieval), over its expected positive answers; — without a row. */
function nearMissText(r: ReportInput, system: string, evidence: 'declared' | 'proven'): string {
  const row = r.results.retrieval.find((x) => show(x.system_id) === system && show(x.evidence) === evidence);
  return row === undefined ? '—' : fraction(row.near_miss, row.positives).text;
}

/** Was the expected article served at all, and when it was, cited (SPEC §12.6): retrieval against writing. */
function retrievalBlocks(r: ReportInput): Block[] {
  const of = (system: string, metric: string) =>
    r.results.scores.find((row) => show(row.system_id) === system && show(row.metric) === metric);
  const systems = [...new Set(r.results.scores.map((row) => show(row.system_id)))].sort(codePointOrder);
  const rows = systems.flatMap((system) => {
    const served = of(system, 'expected_served');
    const cited = of(system, 'cited_given_served');
    if (served === undefined || cited === undefined) return [];
    return [
      [
        system,
        fraction(served.declared, served.n_declared).text,
        fraction(served.proven, served.n_proven).text,
        nearMissText(r, system, 'declared'),
        nearMissText(r, system, 'proven'),
        fraction(cited.declared, cited.n_declared).text,
        fraction(cited.proven, cited.n_proven).text,
      ],
    ];
  });
  if (rows.length === 0)
    return [
      { kind: 'p', text: 'Section 5 computes no expected_served or cited_given_served metric: retrieval and writing are not told apart.' },
    ];
  return [
    {
      kind: 'p',
      text: "Per positive answer: was a passage under one of the item's expected references served at all (retrieval), and when it was, did the answer cite it (writing)? A system that is served the expected article and does not cite it fails at writing; one never served it fails at retrieval. A near miss is an answer served no expected article but one related to it by the rule study.json froze (vocabulary.near_miss: the same number under another prefix, the same number in another code): retrieval came close and still failed. Near misses are counted by the pipeline over the expected positive answers (a missing answer was served nothing); none when the study declares no rule.",
    },
    table(
      [
        'system',
        'expected article served, declared',
        'served, proven',
        'near miss, declared',
        'near miss, proven',
        'cited when served, declared',
        'cited when served, proven',
      ],
      rows,
      [1, 2, 3, 4, 5, 6],
      'No system has both the retrieval and the writing rate.',
    ),
  ];
}

/** The expected tools (SPEC §13.3): per system, the records whose timeline lacks one and the tools logged but not expected, then those records. Nothing when the study expects none. */
function expectedToolsBlocks(c: StoreFacts['coverage']): Block[] {
  if (!c.systems.some((row) => row.expected_tools_missing !== null && row.expected_tools_missing !== undefined)) return [];
  const list = (v: Cell | undefined) => (Array.isArray(v) ? v.map(show).join(', ') : show(v));
  const blocks: Block[] = [
    {
      kind: 'p',
      text: 'Expected tools: the protocol names the actions each job must log, in order (study.json protocol.expected_tools, under the names each system registered). A record whose timeline lacks one is EXPECTED_TOOL_MISSING; its timeline stays as anchored as it was, and when the trust policy requires receipts the record earns no proven credit. Tools logged but not expected are listed, not judged.',
    },
    table(
      ['system', 'records lacking an expected tool', 'tools logged but not expected'],
      c.systems.map((row) => [show(row.system_id), show(row.expected_tools_missing), list(row.unexpected_tools)]),
      [1],
      'No system is expected to log tools.',
    ),
  ];
  if (c.expected_tools_missing.length > 0) {
    blocks.push(
      table(
        ['system', 'item', 'attempt', 'job', 'missing', 'logged', 'file', 'line'],
        c.expected_tools_missing.map((row) => [
          show(row.system_id),
          show(row.item_id),
          show(row.attempt),
          show(row.job_id),
          list(row.missing_tools),
          list(row.logged_tools),
          show(row.file),
          show(row.line_no),
        ]),
        [2, 7],
        'No record lacks an expected tool.',
      ),
    );
  }
  return blocks;
}

/** What the protocol expected of each system and what came (SPEC §12.5), and refusal flags the text contradicts. */
function coverageBlocks(f: StoreFacts): Block[] {
  const c = f.coverage;
  const affiliated = new Set(f.evidence.registered_systems.filter((row) => row.affiliated === true).map((row) => show(row.system_id)));
  const protocol = c.systems.find((row) => row.attempts_per_item !== null);
  const blocks: Block[] = [
    {
      kind: 'p',
      text: protocol
        ? `The protocol expects ${show(protocol.attempts_per_item)} attempt(s) of each of the ${show(protocol.items)} items from every system; every rate counts them, a missing record as a failure, and a system with no accepted record is WITHDRAWN (left out of the comparisons and the hypotheses over all systems). "missing" counts the attempts the protocol expects that no accepted record fills; a committed job no record submits (JOB_NOT_SUBMITTED) is an attempt made and hidden — only a commitment the system itself signed or submitted through intake can say a job was its own.`
        : 'study.json declares no protocol (protocol.attempts_per_item): the attempts expected are unknown, and only the items with no attempt at all are counted.',
    },
    table(
      ['system', 'registered', 'status', 'expected', 'submitted', 'missing', 'items without a record', 'jobs not submitted'],
      c.systems.map((row) => [
        show(row.system_id),
        row.registered !== true ? 'no' : affiliated.has(show(row.system_id)) ? 'yes, affiliated with the operator' : 'yes',
        show(row.status),
        show(row.expected),
        show(row.submitted),
        show(row.missing),
        show(row.items_without_record),
        show(row.jobs_not_submitted),
      ]),
      [3, 4, 5, 6, 7],
      'No system is registered or submitted: there is nothing to cover.',
    ),
    ...expectedToolsBlocks(c),
  ];
  if (c.jobs_not_submitted.length > 0) {
    blocks.push(
      table(
        ['system', 'job', 'code', 'bound by', 'file', 'line'],
        c.jobs_not_submitted.map((row) => [
          show(row.system_id),
          show(row.job_id),
          show(row.reason_code),
          Array.isArray(row.bound_by) ? row.bound_by.map(show).join(', ') : show(row.bound_by),
          show(row.file),
          show(row.line_no),
        ]),
        [5],
        'No committed job went unsubmitted (JOB_NOT_SUBMITTED).',
      ),
    );
  }
  if (c.refusal_flags_disagreeing.length > 0) {
    blocks.push({
      kind: 'p',
      text: `${c.refusal_flags_disagreeing.length} record(s) declare a refusal the answer contradicts, or the reverse (REFUSAL_FLAG_DISAGREES): a refusal is judged from the answer as written, in both columns (the study's frozen refusal_pattern, a short tail, no amount, no citation of anything not served); the flag is only the system's declaration.`,
    });
    blocks.push(
      table(
        ['system', 'item', 'attempt', 'refused (flag)', 'refused (text)', 'file', 'line'],
        c.refusal_flags_disagreeing.map((row) => [
          show(row.system_id),
          show(row.item_id),
          show(row.attempt),
          show(row.refused_flag),
          show(row.refused_by_text),
          show(row.file),
          show(row.line_no),
        ]),
        [2, 6],
        'No refusal flag disagrees with its answer.',
      ),
    );
  }
  return blocks;
}

/**
 * Who the systems are beyond their scores (SPEC §13.2): those the study declares affiliated with the
 * operator, the configurations each system's records carry (CONFIG_VARIES when more than one),
 * and what no study can see — attempts a system ran and never submitted.
 */
function systemBlocks(f: StoreFacts): Block[] {
  const affiliated = f.evidence.registered_systems.filter((row) => row.affiliated === true).map((row) => show(row.system_id));
  const committedOnly =
    'A system may have run more attempts than it submitted and kept the best: nothing in a submission shows the attempts it left out, unless every job is committed before it is answered (AER-1 external commitments), in which case a committed job no record submits is listed above (JOB_NOT_SUBMITTED).';
  const configs = f.coverage.configurations;
  const varying = [...new Set(configs.filter((row) => row.varies === true).map((row) => show(row.system_id)))];
  return [
    {
      kind: 'p',
      text:
        affiliated.length > 0
          ? `Affiliated with the operator (study.json systems[].affiliated): ${affiliated.join(', ')}. Their results are computed like every other system's; a reader weighs them knowing who ran the study.`
          : 'study.json declares no system affiliated with the operator (systems[].affiliated).',
    },
    { kind: 'p', text: committedOnly },
    {
      kind: 'p',
      text: configs.every((row) => row.config === null)
        ? "No submission line names its configuration (config): what produced each system's answers is not stated."
        : `Each system's configurations, as its submission lines name them (config): a configuration is shown, never used to split a system's attempts. ${varying.length > 0 ? `CONFIG_VARIES (records carrying more than one configuration): ${varying.join(', ')}. Their attempts were not all run alike; each of their comparisons carries the caveat.` : 'No system varies its configuration.'}`,
    },
    table(
      ['system', 'configuration', 'records'],
      configs.map((row) => [show(row.system_id), row.config === null ? '(none)' : show(row.config), show(row.records)]),
      [2],
      'No accepted record: no configuration to show.',
    ),
  ];
}

export function sections(r: ReportInput): Section[] {
  const f = r.facts;
  const files = f.submission_files;
  const total = (col: string) => files.reduce((s, row) => s + (integer(row[col]) ?? 0n), 0n);
  const ok = r.witnesses.filter((w) => w.ok);
  const mixedAttempts = attemptsFlag(r.results.constancy);
  return [
    finding(r),
    deviations(r),
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
            "Metrics are named in words, with the direction that is better, as study.json (report.metrics) names them; results.json keeps section 5's identifiers.",
            'A hypothesis is decided by a one-sided exact binomial test of its count against its threshold, with Holm\'s correction at the study\'s alpha across every hypothesis of the plan: SUPPORTED when the Holm-adjusted p-value that the threshold is not met ("p (Holm)") is at most alpha, NOT_SUPPORTED when the opposite one\'s ("p against (Holm)") is, INCONCLUSIVE otherwise — a point estimate past its threshold is not enough. "At least one system" is decided on the best system, its p-value multiplied by the number of systems considered. The interval beside the observed value is exact (Clopper–Pearson) at alpha divided by the number of hypotheses, shown for reading; the decision is the test\'s.',
            "A flip is an item a system gets right in some attempts only; the constancy section counts, per system, whether retrieval changed (the expected article served in some attempts only: REQUEST when the system's requests differed, SERVICE when one request was served differently) or the writing did, as prereg attributes it from the evidence, whatever the plan says.",
            'A grounded citation means the cited article was served to the system, not that what the answer infers from it is faithful: whether the answer reads the article rightly is not judged here.',
            "A near miss (Retrieval and writing) is a positive answer served no expected article but one the study's frozen rule relates to it (study.json vocabulary.near_miss), such as the legislative article for the regulatory one: it is not retrieval, and it says how close retrieval came. The rule was frozen before the results; nobody can choose it after seeing them.",
            'This report shows reproducible results and verified evidence. It does not show that evidence was truthful, nor that the witnesses saw every action of a system.',
          ],
        },
      ],
    },
    {
      title: 'Freeze and witnesses',
      blocks: [
        table(
          ['input', 'digest'],
          [
            ['freeze_digest', r.inputs.freeze_digest],
            ['corpus root', r.inputs.corpus_root],
            ['section 5', r.inputs.section5_sha256],
            ['answer-key commitment', r.inputs.answer_key_root],
            ['trust policy root', r.inputs.trust_root],
            ...commitmentRows(r.inputs),
          ],
          [],
          'No input digest was recorded.',
        ),
        {
          kind: 'p',
          text:
            r.witnesses.length === 0
              ? "No independent witness confirmed the freeze: there is no anchor token, so nothing outside the operator's own files shows that the plan preceded the submissions."
              : `${r.independent_witnesses} independent witness(es) confirmed the freeze before the submission window opened (the study requires ${r.min_witnesses}).`,
        },
        ...(r.witnesses.length === 0
          ? []
          : [
              table(
                ['witness', 'verified', 'signer', 'codes'],
                r.witnesses.map((w) => [w.witness, w.ok ? 'yes' : 'NO', w.signer ?? '—', w.reason_codes.join(', ') || '—']),
                [],
                'No anchor token names a witness.',
              ),
            ]),
        ...(ok.length < r.min_witnesses
          ? [{ kind: 'p' as const, text: 'Fewer witnesses than the study requires confirmed the freeze.' }]
          : []),
        ...amendmentBlocks(r.amendments),
        ...derivedAmountBlocks(f),
      ],
    },
    {
      title: 'Submissions',
      blocks: [
        table(
          ['file', 'lines read', 'accepted', 'rejected'],
          files.length === 0
            ? []
            : [
                ...files.map((row) => [show(row.file), show(row.lines_read), show(row.accepted), show(row.rejected)]),
                ['total', String(total('lines_read')), String(total('accepted')), String(total('rejected'))],
              ],
          [1, 2, 3],
          'No submission file was read.',
        ),
        { kind: 'p', text: 'Every line read is either accepted or rejected with a reason code (rejects.csv); nothing is dropped.' },
        table(
          ['reason code', 'rejected lines'],
          f.rejects_by_code.map((x) => [x.reason_code, String(x.lines)]),
          [1],
          'No line was rejected.',
        ),
        table(
          ['system', 'accepted records'],
          f.records_by_system.map((x) => [x.system_id, String(x.records)]),
          [1],
          'No record was accepted: no system has a record.',
        ),
      ],
    },
    { title: 'Coverage', blocks: coverageBlocks(f) },
    { title: 'Systems', blocks: systemBlocks(f) },
    {
      title: 'Scores',
      blocks: [...scoreTable(r), { kind: 'charts', metric: null }],
    },
    { title: 'Retrieval and writing', blocks: retrievalBlocks(r) },
    { title: 'Whose evidence is whose', blocks: ownershipBlocks(f) },
    {
      title: 'Constancy over repeated attempts',
      blocks: [
        {
          kind: 'p',
          text: 'A case that succeeds only some of the time is not a success. Each row counts items over the number of attempts it names; "always" shrinks as attempts are added, so only rows with the same number of attempts compare.',
        },
        ...(mixedAttempts ? [{ kind: 'p' as const, text: mixedAttempts }] : []),
        table(
          ['system', 'metric', 'attempts', 'always', 'sometimes', 'never'],
          r.results.constancy.map((row) => [
            show(row.system_id),
            metricName(show(row.metric), r.metric_labels),
            show(row.attempts),
            show(row.always),
            show(row.sometimes),
            show(row.never),
          ]),
          [2, 3, 4, 5],
          'No constancy: section 5 counts no metric over repeated attempts (results.json constancy is empty).',
        ),
        ...flipBlocks(r),
      ],
    },
    { title: 'Noise floor', blocks: noiseFloorBlocks(r) },
    { title: 'Sign tests', blocks: signTests(r) },
    { title: 'Assertion classes', blocks: [classCounts(r.class_counts), ...studyClasses(r.classes)] },
    {
      title: 'Evidence checked',
      blocks: [
        table(
          ['table', 'rows'],
          [
            ['assertions', String(f.counts.assertions)],
            ['proof_checks', String(f.counts.proof_checks)],
            ['chain_checks', String(f.counts.chain_checks)],
          ],
          [1],
          'No evidence table.',
        ),
        ...(f.proof_status
          ? [
              table(
                ['proof status', 'proofs'],
                f.proof_status.map((x) => [x.status, String(x.rows)]),
                [1],
                'No proof was checked.',
              ),
            ]
          : []),
        ...(f.chain_status
          ? [
              table(
                ['chain status', 'chains'],
                f.chain_status.map((x) => [x.status, String(x.rows)]),
                [1],
                'No receipt chain was checked.',
              ),
            ]
          : []),
        ...(f.witnesses_by_system
          ? [
              {
                kind: 'p' as const,
                text: "Independent witnesses per system: witnesses the issuer could not have produced itself (an RFC 3161 token from a pinned TSA, a transparency-log entry) that verified for a proof. The issuer's own signature and hashes are not counted.",
              },
              table(
                ['system', 'proofs', 'proofs with an independent witness', 'independent witnesses'],
                f.witnesses_by_system.map((x) => [x.system_id, String(x.proofs), String(x.witnessed), String(x.witnesses)]),
                [1, 2, 3],
                'No proof was submitted, so none has a witness.',
              ),
            ]
          : []),
      ],
    },
  ];
}
