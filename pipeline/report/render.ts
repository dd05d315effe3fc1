// report.md and report.html (SPEC §7) from rows: pure, no file system, no clock. The one time shown
// is the study's as_of. The document itself (sections, the finding first) is document.ts; values
// are written by values.ts.
//
// Rates stay exact fractions everywhere else; here, and only here, each is also shown as a
// percentage with one decimal (rounded half up, in integer arithmetic), next to its numerator and
// denominator, so rounding never hides the gap between the declared and the proven column.
// report.html is self-contained: inline CSS, inline SVG charts, no script, nothing to load (a
// Content-Security-Policy forbids it too).
import type { Row } from '../store/cells.ts';
import { shown } from '../text/display.ts';
import { sections, type Block, type ReportInput } from './document.ts';
import { codePointOrder, fraction, metricName, show, type Fraction, type MetricLabels } from './values.ts';

export type { ReportInput, WitnessSummary } from './document.ts';

// ------------------------------------------------------------------------------------------
// Markdown

// Every text of either file goes through the display rule first (text/display.ts): a control
// character a participant wrote appears as \uXXXX, never raw; then Markdown's or HTML's own escapes.
function mdEscape(text: string): string {
  return shown(text).replace(/[\\`*_[\]<>|#]/g, (c) => `\\${c}`);
}

const TEXT_BAR = 40;

/** The primary metric's chart in text: a declared and a proven bar per system, 0–100 % in 40 cells. */
function textChart(rows: Row[]): string[] {
  const width = Math.max(0, ...rows.map((row) => shown(show(row.system_id)).length));
  const line = (label: string, column: string, f: Fraction) => {
    const cells =
      f.tenths === null ? 0 : Number((BigInt(TEXT_BAR) * (f.tenths < 0n ? 0n : f.tenths > 1000n ? 1000n : f.tenths) + 500n) / 1000n);
    return `${label.padEnd(width)}  ${column}  ${'█'.repeat(cells)}${'·'.repeat(TEXT_BAR - cells)}  ${f.text}`;
  };
  return [
    '```text',
    ...rows.flatMap((row) => [
      line(shown(show(row.system_id)), 'declared', fraction(row.declared, row.n_declared)),
      line('', 'proven  ', fraction(row.proven, row.n_proven)),
    ]),
    '```',
  ];
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
      } else if (b.metric === null) out.push('The charts of declared vs proven per system are in report.html.', '');
      else out.push(...textChart(r.results.scores.filter((row) => show(row.metric) === b.metric)), '');
    }
  }
  return `${out.join('\n').trimEnd()}\n`;
}

// ------------------------------------------------------------------------------------------
// HTML

function h(text: string): string {
  return shown(text).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

const CSS = `
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:#1b1f24;max-width:72rem;margin:1rem auto;padding:0 1rem;overflow-wrap:break-word}
h1{font-size:1.5rem;margin:.4rem 0}h2{font-size:1.2rem;margin-top:2rem;border-bottom:1px solid #d0d7de}#finding h2{margin-top:.6rem}
.lead-row{display:flex;flex-wrap:wrap;gap:.5rem 2rem;align-items:flex-start}.lead-row ul{flex:1 1 26rem;margin:.3rem 0;padding-left:1.2rem}.lead-row>*{min-width:0;max-width:100%}
.lead-row li{margin-bottom:.35rem}.legend{margin:.2rem 0}
.table-scroll{overflow-x:auto;margin:.6rem 0}table{border-collapse:collapse}th,td{border:1px solid #d0d7de;padding:.25rem .55rem;text-align:left;vertical-align:top}
th{background:#f6f8fa}td.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}.t{min-width:14rem}
.charts{display:grid;grid-template-columns:repeat(auto-fill,minmax(min(100%,var(--chart-width)),1fr));gap:1.5rem}figure{margin:0}figcaption{font-weight:600;margin-bottom:.3rem}
svg{max-width:100%;height:auto}.charts figure{display:flex;flex-direction:column;align-items:flex-start}.charts svg{margin-top:auto}
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

/** A chart's width for `systems` systems, in px. */
function chartWidth(systems: number): number {
  return LEFT + systems * GROUP + 10;
}

/** One SVG per metric: for each system a declared and a proven bar, on a 0–100 % scale. */
function chart(metric: string, rows: Row[], labels: MetricLabels, id?: string): string {
  const width = chartWidth(rows.length);
  const height = PLOT_TOP + PLOT_HEIGHT + 40;
  const parts: string[] = [];
  for (const pct of [0, 50, 100]) {
    const y = PLOT_TOP + PLOT_HEIGHT - (pct * PLOT_HEIGHT) / 100;
    parts.push(
      `<line class="grid" x1="${LEFT}" y1="${y}" x2="${width - 10}" y2="${y}"/><text x="${LEFT - 6}" y="${y + 4}" text-anchor="end">${pct}%</text>`,
    );
  }
  rows.forEach((row, i) => {
    const x = LEFT + i * GROUP + 10;
    parts.push(bar('declared', x, fraction(row.declared, row.n_declared)));
    parts.push(bar('proven', x + 45, fraction(row.proven, row.n_proven)));
    parts.push(`<text x="${x + 42}" y="${PLOT_TOP + PLOT_HEIGHT + 16}" text-anchor="middle">${h(show(row.system_id))}</text>`);
  });
  parts.push(`<line class="axis" x1="${LEFT}" y1="${PLOT_TOP + PLOT_HEIGHT}" x2="${width - 10}" y2="${PLOT_TOP + PLOT_HEIGHT}"/>`);
  const name = metricName(metric, labels);
  return (
    `<figure${id ? ` id="${id}"` : ''}><figcaption>${h(name)}</figcaption>` +
    `<svg role="img" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" aria-label="${h(`${name}: declared vs proven per system`)}">` +
    `<title>${h(`${name}: declared vs proven per system`)}</title>${parts.join('')}</svg></figure>`
  );
}

const CHART_KEY = '<span class="key declared"></span>declared<span class="key proven"></span>proven';

/** Every metric's chart (only: the one metric's, marked as the primary chart). */
function charts(scores: Row[], labels: MetricLabels, only: string | null): string {
  const byMetric = new Map<string, Row[]>();
  for (const row of scores) {
    const m = show(row.metric);
    if (only === null || m === only) byMetric.set(m, [...(byMetric.get(m) ?? []), row]);
  }
  if (byMetric.size === 0) return '<p>No chart: section 5 computes no rate to draw.</p>';
  if (only !== null)
    return `<div class="primary">${chart(only, byMetric.get(only)!, labels, 'primary-chart')}<p class="legend">${CHART_KEY}</p></div>`;
  const metrics = [...byMetric.keys()].sort(codePointOrder);
  // One grid of equal columns as wide as the widest chart: every row's second chart starts at the
  // same x, whatever the length of its caption; narrower than a column, a chart shrinks to fit.
  const widest = Math.max(...[...byMetric.values()].map((rows) => chartWidth(rows.length)));
  return (
    `<p>Declared vs proven per system, as a percentage of each denominator (bar labels: numerator/denominator).${CHART_KEY}</p>` +
    `<div class="charts" style="--chart-width:${widest}px">${metrics.map((m) => chart(m, byMetric.get(m)!, labels)).join('')}</div>`
  );
}

/** A cell longer than this makes its column prose: kept wide enough to read rather than squeezed. */
const PROSE = 60;

/** A table in its own box, which scrolls sideways when the table is wider than the page (the page never does). */
function tableHtml(b: Extract<Block, { kind: 'table' }>): string {
  const prose = b.headers.map((_, i) => b.rows.some((row) => (row[i] ?? '').length > PROSE));
  const cls = (i: number, tag: 'td' | 'th') => (tag === 'td' && b.numeric?.includes(i) ? ' class="n"' : prose[i] ? ' class="t"' : '');
  const cell = (text: string, i: number, tag: 'td' | 'th') => `<${tag}${cls(i, tag)}>${h(text)}</${tag}>`;
  return (
    `<div class="table-scroll"><table><thead><tr>${b.headers.map((t, i) => cell(t, i, 'th')).join('')}</tr></thead><tbody>` +
    b.rows.map((row) => `<tr>${row.map((t, i) => cell(t, i, 'td')).join('')}</tr>`).join('') +
    '</tbody></table></div>'
  );
}

export function renderHtml(r: ReportInput): string {
  const body: string[] = [`<h1>${h(r.title)}</h1>`];
  const html = (b: Block, lead: boolean): string => {
    if (b.kind === 'p') return `<p>${h(b.text)}</p>`;
    if (b.kind === 'list') return `<ul${lead ? ' id="finding-summary"' : ''}>${b.items.map((i) => `<li>${h(i)}</li>`).join('')}</ul>`;
    if (b.kind === 'table') return tableHtml(b);
    return charts(r.results.scores, r.metric_labels, b.metric);
  };
  for (const s of sections(r)) {
    const blocks = s.blocks;
    const out: string[] = [];
    for (let i = 0; i < blocks.length; i++) {
      // The finding's sentences and its chart side by side, so both sit in the first screen.
      if (s.lead && blocks[i]!.kind === 'list' && blocks[i + 1]?.kind === 'charts') {
        out.push(`<div class="lead-row">${html(blocks[i]!, true)}${html(blocks[i + 1]!, true)}</div>`);
        i++;
      } else out.push(html(blocks[i]!, s.lead === true));
    }
    body.push(
      s.lead
        ? `<section id="finding">\n<h2>${h(s.title)}</h2>\n${out.join('\n')}\n</section>`
        : `<h2>${h(s.title)}</h2>\n${out.join('\n')}`,
    );
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
