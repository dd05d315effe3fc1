// The pure parts of emit: fractions and percentages of the report, escaping, the manifest helpers.
import { describe, expect, it } from 'vitest';
import { sealManifest, sha256sums } from '../../pipeline/emit/manifest.ts';
import type { EmitInputs } from '../../pipeline/results/shapes.ts';
import type { Row } from '../../pipeline/emit/tables.ts';
import type { StoreFacts } from '../../pipeline/results/shapes.ts';
import { JsonNumber } from '../../pipeline/formats/canonical-json.ts';
import { renderHtml, renderMarkdown, type ReportInput } from '../../pipeline/report/render.ts';
import { fraction, metricName, observedOf, percentOf } from '../../pipeline/report/values.ts';

describe('fraction: numerator/denominator with a percentage rounded half up, in integers', () => {
  it.each([
    [1n, 3n, '1/3 (33.3%)'],
    [2n, 3n, '2/3 (66.7%)'],
    [1n, 8n, '1/8 (12.5%)'],
    [1n, 16n, '1/16 (6.3%)'], // 6.25 → 6.3
    [1n, 2000n, '1/2000 (0.1%)'], // 0.05 → 0.1
    [1n, 2001n, '1/2001 (0.0%)'],
    [7n, 7n, '7/7 (100.0%)'],
    [0n, 5n, '0/5 (0.0%)'],
    [3n, 0n, '3/0 (n/a)'],
    [12345678901234567n, 12345678901234568n, '12345678901234567/12345678901234568 (100.0%)'],
  ])('%s/%s → %s', (n, d, text) => {
    expect(fraction(n, d).text).toBe(text);
  });

  it('shows a missing value as a dash and draws no bar', () => {
    expect(fraction(null, 4n)).toEqual({ text: '—/4', tenths: null });
    expect(fraction(new JsonNumber('3'), new JsonNumber('4')).tenths).toBe(750n);
  });
});

describe('percentOf: thresholds and observed doubles as percentages, never the raw double', () => {
  it.each([
    ['0.8', '80%'],
    ['0.05', '5%'],
    ['0.1', '10%'],
    ['0.625', '62.5%'],
    ['1.0', '100%'],
    ['0', '0%'],
    ['0.9791666666666666', '≈ 97.9%'],
    ['1e-07', '≈ 0.0%'],
  ])('%s → %s', (lexeme, text) => {
    expect(percentOf(new JsonNumber(lexeme))).toBe(text);
  });

  it('prefers the exact fraction section 5 gives for an observed value', () => {
    expect(observedOf({ observed: new JsonNumber('0.9791666666666666'), observed_num: 47n, observed_den: 48n })).toBe('47/48 (97.9%)');
    expect(observedOf({ observed: new JsonNumber('0.9791666666666666') })).toBe('≈ 97.9%');
    expect(observedOf({ observed: null, observed_num: null, observed_den: null })).toBe('—');
  });

  it('names the system an observed value is, when section 5 says (observed_system), and none over all systems', () => {
    expect(observedOf({ observed: new JsonNumber('1.0'), observed_num: 15n, observed_den: 15n, observed_system: 'copycat' })).toBe(
      '15/15 (100.0%), copycat',
    );
    expect(observedOf({ observed: new JsonNumber('0.1'), observed_num: 3n, observed_den: 30n, observed_system: null })).toBe(
      '3/30 (10.0%)',
    );
  });
});

describe('metricName: metrics in words with the better direction', () => {
  const labels = {
    invented_amounts: { label: 'invented amounts', better: 'lower' as const },
    positives: { label: 'positives citing', better: 'higher' as const },
    relayed: { label: 'relayed' },
  };
  it.each([
    ['invented_amounts', 'invented amounts (lower is better)'],
    ['positives/proven', 'positives citing, proven (higher is better)'],
    ['positives/declared', 'positives citing, declared (higher is better)'],
    ['relayed', 'relayed'], // neither good nor bad: no direction
    ['unnamed_metric', 'unnamed_metric'],
    ['positives/other', 'positives/other'],
  ])('%s → %s', (metric, text) => {
    expect(metricName(metric, labels)).toBe(text);
  });
});

const inputs: EmitInputs = {
  corpus_root: 'c'.repeat(64),
  section5_sha256: '5'.repeat(64),
  answer_key_root: 'a'.repeat(64),
  trust_root: 't'.repeat(64),
  freeze_digest: 'f'.repeat(64),
  submissions: [],
  commitments_sha256: null,
  deviations_sha256: null,
  anchors: [],
  intake_files: [],
};
const facts: StoreFacts = {
  submission_files: [],
  rejects_by_code: [],
  records_by_system: [],
  counts: { assertions: 0n, proof_checks: 0n, chain_checks: 0n },
  proof_status: null,
  chain_status: null,
  witnesses_by_system: null,
  evidence: { registered_systems: [], reuse: [], by_system: [], seller_inconsistencies: [] },
  coverage: { systems: [], jobs_not_submitted: [], refusal_flags_disagreeing: [], expected_tools_missing: [], configurations: [] },
  derived_amounts: [],
};

function report(scores: Row[]): ReportInput {
  return {
    title: 'T <b>',
    study_id: 's',
    as_of: '2026-01-01',
    run_id: '0123456789abcdef',
    inputs,
    witnesses: [],
    independent_witnesses: 0,
    min_witnesses: 1,
    amendments: [],
    primary_metric: null,
    metric_labels: {},
    classes: [],
    results: {
      scores,
      constancy: [],
      sign_tests: [],
      discordant_items: [],
      hypotheses: [],
      score_intervals: [],
      sign_test_adjustments: [],
      noise_floor: [],
      constancy_flips: [],
      retrieval: [],
    },
    class_counts: [],
    facts,
    deviations: [],
  };
}

describe('report rendering', () => {
  const hostile: Row[] = [
    { system_id: '<script>alert(1)</script>', metric: 'm|x', declared: 1n, proven: 0n, n_declared: 2n, n_proven: 2n },
    { system_id: 'https://evil.example/x.png', metric: 'm|x', declared: 5n, proven: 4n, n_declared: 4n, n_proven: 4n },
  ];

  it('escapes every value in HTML and Markdown', () => {
    const html = renderHtml(report(hostile));
    expect(html).not.toContain('<script>');
    expect(html).toContain('&lt;script&gt;');
    expect(html).toContain('T &lt;b&gt;');
    const md = renderMarkdown(report(hostile));
    expect(md).toContain('| m\\|x |');
    expect(md).toContain('\\<script\\>');
  });

  it('never loads anything, even when values look like URLs (they are text), and clamps bars to 100 %', () => {
    const html = renderHtml(report(hostile));
    expect(html).not.toMatch(/\bsrc=|\bhref=|url\(|<img|<link|<script/i);
    expect(html).toContain("default-src 'none'");
    expect(html).toContain('5/4 (125.0%)');
    expect(html).toMatch(/<rect class="declared" x="\d+" y="24\.0" width="40" height="150\.0">/);
  });

  it('counts independent evidence witnesses per system (SPEC §6.1)', () => {
    const r = report([]);
    r.facts = { ...facts, witnesses_by_system: [{ system_id: 'sys-a', proofs: 3n, witnessed: 2n, witnesses: 2n }] };
    const md = renderMarkdown(r);
    expect(md).toContain('| system | proofs | proofs with an independent witness | independent witnesses |');
    expect(md).toContain('| sys-a | 3 | 2 | 2 |');
    expect(renderMarkdown(report([]))).not.toContain('Independent witnesses per system');
  });

  it('says what a grounded citation means: the cited article was served, not that the inference is faithful', () => {
    const md = renderMarkdown(report([]));
    const reading = md.slice(md.indexOf('How to read this report'), md.indexOf('Freeze and witnesses'));
    expect(reading).toContain(
      'grounded citation means the cited article was served to the system, not that what the answer infers from it is faithful',
    );
  });

  it("lists the answer key's derived amounts, which freeze did not check against the corpus, and says when there are none", () => {
    const r = report([]);
    r.facts = {
      ...facts,
      derived_amounts: [{ item_id: 'q-7', ref: 'A-2', value: '5759000', unit: 'EUR', derived: 'the sum of the two thresholds' }],
    };
    const md = renderMarkdown(r);
    expect(md).toContain('| item | ref | amount | derivation |');
    expect(md).toContain('| q-7 | A-2 | 5759000 EUR | the sum of the two thresholds |');
    expect(renderMarkdown(report([]))).toContain(
      'Every amount the answer key expects is written in the frozen text of the article it names',
    );
  });

  it('names each request a pinned seller served two ways (SELLER_INCONSISTENT), and says what the check cannot show', () => {
    const r = report([]);
    const served = (system_id: string, attempt: bigint, refs: string[]) => ({
      system_id,
      attempt,
      evidence_index: 0n,
      passages: refs.map((ref) => ({ ref, text: `text of ${ref}` })),
    });
    r.facts = {
      ...facts,
      evidence: {
        ...facts.evidence,
        seller_inconsistencies: [
          {
            reason_code: 'SELLER_INCONSISTENT',
            item_id: 'q-1',
            request_hash: 'ab'.repeat(32),
            seller: 'seller.example',
            served: [served('sys-a', 1n, ['A-2']), served('sys-b', 1n, ['A-3'])],
          },
        ],
      },
    };
    const md = renderMarkdown(r);
    expect(md).toContain('SELLER\\_INCONSISTENT: 1 request(s) to a pinned seller were served different sets of passages');
    expect(md).toContain(`| q-1 | ${'ab'.repeat(32)} | seller.example | sys-a attempt 1: A-2; sys-b attempt 1: A-3 |`);
    for (const text of [md, renderMarkdown(report([]))])
      expect(text).toContain('cannot show that systems sending different requests were served alike');
    expect(renderMarkdown(report([]))).toContain('No request to a pinned seller was served two different sets of passages');
  });

  it('says so when no witness confirmed the freeze', () => {
    expect(renderMarkdown(report([]))).toContain('No independent witness confirmed the freeze');
    expect(renderHtml(report([]))).toContain('No chart: section 5 computes no rate to draw.');
  });
});

describe('manifest helpers', () => {
  it('writes SHA256SUMS in sha256sum -c form, sorted by name', () => {
    expect(
      sha256sums([
        { file: 'b', bytes: 1, sha256: '2'.repeat(64) },
        { file: 'a.csv', bytes: 1, sha256: '1'.repeat(64) },
      ]),
    ).toBe(`${'1'.repeat(64)}  a.csv\n${'2'.repeat(64)}  b\n`);
  });

  it('sorts outputs and seals the manifest with the digest of everything else', () => {
    const m = sealManifest({
      format: 'prereg.manifest/1',
      study_id: 's',
      as_of: '2026-01-01',
      run_id: 'r',
      inputs,
      tool: { name: 'prereg', version: '0' },
      duckdb_version: 'v1',
      outputs: [
        { file: 'z', bytes: 0, sha256: '0'.repeat(64) },
        { file: 'a', bytes: 0, sha256: '0'.repeat(64) },
      ],
      decision_digest: 'd'.repeat(64),
    });
    expect(m.outputs.map((o) => o.file)).toEqual(['a', 'z']);
    expect(m.artifact_digest).toMatch(/^[0-9a-f]{64}$/);
    expect(sealManifest({ ...m, decision_digest: 'e'.repeat(64) }).artifact_digest).not.toBe(m.artifact_digest);
    expect(sealManifest({ ...m, artifact_digest: 'stale' } as never)).toEqual(m); // never hashes itself
  });
});

describe('the deviations section (SPEC §13.3)', () => {
  const section = (md: string) => md.slice(md.indexOf('## Deviations from the plan'), md.indexOf('## How to read this report'));

  it('follows the finding and says so when none was recorded', () => {
    const md = renderMarkdown(report([]));
    expect([...md.matchAll(/^## (.+)$/gm)].map((m) => m[1]).slice(0, 2)).toEqual(['Finding', 'Deviations from the plan']);
    expect(section(md)).toContain('No deviation from the pre-registered plan was recorded');
  });

  it('lists each deviation with its date, witness and intake position, marks the late ones, and escapes the text', () => {
    const deviations = [
      {
        seq: 0,
        text: 'mirror used <script>x</script>',
        gen_time: '2026-11-10T12:00:00Z',
        witness: 'CN=TSA',
        intake_entries: 1,
        after_submissions: false,
      },
      { seq: 1, text: 'a late one', gen_time: '2026-11-20T00:00:00Z', witness: 'CN=TSA', intake_entries: 4, after_submissions: true },
    ];
    const md = section(renderMarkdown({ ...report([]), deviations }));
    const items = md.split('\n').filter((l) => l.startsWith('- '));
    expect(items).toEqual([
      '- Deviation 1, dated 2026-11-10T12:00:00Z by CN=TSA, after 1 intake entry: mirror used \\<script\\>x\\</script\\>',
      '- Deviation 2, dated 2026-11-20T00:00:00Z by CN=TSA, after 4 intake entries — after the submissions were seen: a late one',
    ]);
    const html = renderHtml({ ...report([]), deviations });
    expect(html).not.toContain('<script>x');
    expect(html).toContain('after the submissions were seen: a late one');
  });
});

describe('empty tables say what they would hold (issue 38)', () => {
  // The paragraphs of a report in Markdown (its tables, lists and headings left out).
  const paragraphs = (md: string) =>
    md
      .split('\n\n')
      .map((p) => p.trim())
      .filter((p) => p !== '' && !/^(#|\||- |```)/.test(p));

  it('never writes a bare "(no rows)", and names what is missing where a table would be', () => {
    for (const text of [renderMarkdown(report([])), renderHtml(report([]))]) expect(text).not.toContain('(no rows)');
    const md = renderMarkdown(report([]));
    for (const message of [
      'No hypotheses: section 5 declares none, so nothing is decided.',
      'No scores: section 5 computes no rate (results.json scores is empty).',
      'No line was rejected.',
      'No record was accepted: no system has a record.',
      "No comparison between two systems: section 5's sign tests compare no pair other than a replicate and its original.",
      'No constancy: section 5 counts no metric over repeated attempts (results.json constancy is empty).',
      'No assertion was classified: no accepted record makes one.',
    ]) {
      expect(md).toContain(message);
    }
    // One message per table: none stands for two different tables.
    const all = paragraphs(md);
    expect(all.length).toBe(new Set(all).size);
  });
});

describe('the commitments line counts both sources (issue 38)', () => {
  const freezeTable = (md: string) => md.slice(md.indexOf('## Freeze and witnesses'), md.indexOf('## Submissions'));
  const intakeFiles = [
    { file: 'inputs/commitments/sys-a.jsonl', sha256: '1'.repeat(64) },
    { file: 'inputs/commitments/sys-b.jsonl', sha256: '2'.repeat(64) },
    { file: 'inputs/intake.jsonl', sha256: '3'.repeat(64) },
    { file: 'inputs/seal.json', sha256: '4'.repeat(64) },
  ];

  it('names the commitments received through intake when the operator collected none', () => {
    const md = freezeTable(renderMarkdown({ ...report([]), inputs: { ...inputs, intake_files: intakeFiles } }));
    expect(md).not.toContain('none (no inputs/commitments.jsonl)');
    expect(md).toContain('| commitments files | 2: none operator-collected (no inputs/commitments.jsonl); 2 received through intake |');
    expect(md).toContain(`| inputs/commitments/sys-a.jsonl (received through intake) | ${'1'.repeat(64)} |`);
    expect(md).toContain(`| inputs/commitments/sys-b.jsonl (received through intake) | ${'2'.repeat(64)} |`);
    expect(md).not.toContain('inputs/intake.jsonl');
  });

  it('counts the operator-collected file beside them, and says none when there is neither', () => {
    const both = freezeTable(
      renderMarkdown({ ...report([]), inputs: { ...inputs, commitments_sha256: 'c'.repeat(64), intake_files: intakeFiles.slice(0, 1) } }),
    );
    expect(both).toContain('| commitments files | 2: the operator-collected inputs/commitments.jsonl; 1 received through intake |');
    expect(both).toContain(`| inputs/commitments.jsonl (operator-collected) | ${'c'.repeat(64)} |`);
    const none = freezeTable(renderMarkdown(report([])));
    expect(none).toContain('| commitments files | none: no inputs/commitments.jsonl, and none received through intake |');
  });
});
