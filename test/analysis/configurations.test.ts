// Configurations, never a partition; affiliated systems; what cannot be seen (SPEC §13.2), on a
// study small enough to count. Three systems answer mp-001 in each of the protocol's 3 attempts:
// - sys-a names model m1 in attempts 1 and 2 and m2 in attempt 3: CONFIG_VARIES;
// - sys-b names one configuration in every attempt, and is declared affiliated with the operator;
// - sys-c names none.
// Who gains by breaking the rule: a system that varies its configuration between attempts (a
// stronger model on the attempts that count) to escape constancy — its attempts still count as
// the protocol declares them, and each of its comparisons says CONFIG_VARIES.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { articlePassages } from '../../scripts/generate-example-submissions.ts';
import { PROJECT_ROOT, runCli } from '../support/cli.ts';
import { buildSmallStudy, runSmallStudy, type HandRecord } from '../support/small-study.ts';
import { scratchDir } from '../audit/helpers.ts';

const passages = articlePassages(join(PROJECT_ROOT, 'corpus'), ['code-commande-publique/partie-reglementaire.md']);
const served = [{ ref: 'R2122-8', text: passages.get('R2122-8')! }];
const answer = "Voir l'article R2122-8.";
const M1 = { model: 'm1', temperature: 0 };
const M2 = { model: 'm2', temperature: 0 };
const B = { model: 'b-1', top_k: 5, rerank: true };

const RECORDS: HandRecord[] = [1, 2, 3].flatMap((attempt): HandRecord[] => [
  { system: 'sys-a', item: 'mp-001', attempt, text: answer, passages: served, config: attempt === 3 ? M2 : M1 },
  { system: 'sys-b', item: 'mp-001', attempt, text: answer, passages: served, config: B },
  { system: 'sys-c', item: 'mp-001', attempt, text: answer, passages: served },
]);

/** study.json with sys-b declared affiliated with the operator. */
const affiliateB = (text: string): string => {
  const study = JSON.parse(text) as { systems: Array<{ system_id: string; affiliated?: boolean }> };
  for (const s of study.systems) if (s.system_id === 'sys-b') s.affiliated = true;
  return `${JSON.stringify(study, null, 2)}\n`;
};

let study: { root: string; cleanup: () => void };
let results: {
  coverage: { configurations: Array<Record<string, unknown>> };
  sign_test_adjustments: Array<Record<string, unknown>>;
  constancy: Array<Record<string, unknown>>;
};
let report: string;
const tmp = scratchDir('prereg-config-');

beforeAll(async () => {
  study = await buildSmallStudy(RECORDS, { editStudy: affiliateB });
  ({ results, report } = await runSmallStudy<typeof results>(study.root));
}, 400_000);
afterAll(() => {
  study?.cleanup();
  tmp.cleanup();
});

describe('a line may say which configuration produced it', () => {
  it('is stored and listed per system, as canonical JSON, with the records carrying it (counted by hand)', () => {
    expect(results.coverage.configurations).toEqual([
      { system_id: 'sys-a', config: '{"model":"m1","temperature":0}', records: 2, varies: true },
      { system_id: 'sys-a', config: '{"model":"m2","temperature":0}', records: 1, varies: true },
      { system_id: 'sys-b', config: '{"model":"b-1","rerank":true,"top_k":5}', records: 3, varies: false },
      { system_id: 'sys-c', config: null, records: 3, varies: false },
    ]);
  });

  it("never splits the protocol's attempts: constancy counts sys-a over its 3 attempts, like the others", () => {
    const rows = results.constancy.filter((r) => r.metric === results.constancy[0]!.metric);
    expect(rows.map((r) => [r.system_id, r.attempts])).toEqual([
      ['sys-a', 3],
      ['sys-b', 3],
      ['sys-c', 3],
    ]);
  });

  it('a system whose configuration varies carries CONFIG_VARIES on each of its comparisons, and no other comparison does', () => {
    const caveats = new Map<string, Set<string>>();
    for (const a of results.sign_test_adjustments) {
      const pair = `${String(a.system_a)}~${String(a.system_b)}`;
      caveats.set(pair, new Set([...(caveats.get(pair) ?? []), ...(a.caveats as string[]).filter((c) => c === 'CONFIG_VARIES')]));
    }
    expect([...caveats].map(([pair, codes]) => [pair, [...codes]])).toEqual([
      ['sys-a~sys-b', ['CONFIG_VARIES']],
      ['sys-a~sys-c', ['CONFIG_VARIES']],
      ['sys-b~sys-c', []],
    ]);
  });

  it('the report shows the configurations, names the varying system, marks the affiliated one, and says what cannot be seen', () => {
    expect(report).toContain('CONFIG_VARIES (records carrying more than one configuration): sys-a.');
    expect(report).toContain('Affiliated with the operator (study.json systems[].affiliated): sys-b.');
    expect(report).toMatch(/\| sys-b +\| yes, affiliated with the operator +\|/);
    expect(report).toContain('A system may have run more attempts than it submitted');
    expect(report).toContain('{"model":"b-1","rerank":true,"top_k":5}');
  });
});

describe('a configuration is small and flat', () => {
  const line = (config: unknown): string =>
    JSON.stringify({
      format: 'prereg.submission/1',
      system_id: 'sys-a',
      item_id: 'mp-001',
      attempt: 1,
      answer: { text: 'x', refused: false, truncated: false },
      evidence: [],
      config,
    });

  it('refuses one nested, one with 17 members, and one over 1 KiB (SUBMISSION_CONFIG_TOO_LARGE); takes a flat one', async () => {
    const file = join(tmp.path, 'configs.jsonl');
    const seventeen = Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, i]));
    const large = Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`k${i}`, 'x'.repeat(150)]));
    writeFileSync(
      file,
      [line({ model: 'm1', temperature: 0.2, stream: false }), line({ model: { name: 'm1' } }), line(seventeen), line(large)].join('\n') +
        '\n',
    );
    const r = await runCli(['validate', file, '--root', tmp.path, '--json']);
    expect(r.code).toBe(1);
    expect(r.json.rejects.map((x: { line_no: number; reason_code: string }) => [x.line_no, x.reason_code])).toEqual([
      [2, 'SUBMISSION_SCHEMA'],
      [3, 'SUBMISSION_SCHEMA'],
      [4, 'SUBMISSION_CONFIG_TOO_LARGE'],
    ]);
  });
});
