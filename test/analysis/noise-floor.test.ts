// Replicates and the noise floor (SPEC §13.2), on a study small enough to count by hand. The
// example's answer key: mp-001…mp-007 are positive items; the protocol asks 3 attempts of each of
// its 20 items, so an item is a success for a system only when all 3 attempts cite its expected
// article (a missing attempt is a failure). Each system below answers, in all 3 attempts, exactly
// the items listed, and nothing else:
//   sys-a        mp-001…mp-006
//   sys-a-rerun  mp-001…mp-005, mp-007   (replicate_of sys-a)
//   sys-b        mp-001
//   sys-b-rerun  mp-001…mp-007           (replicate_of sys-b)
// By hand, per metric (declared and proven agree: every proof is good):
//   sys-a vs sys-a-rerun: over the 16 positive items, discordant mp-006 (won by a) and mp-007 (by
//     the rerun) = 2, 14 ties; p = min(1, 2·(C(2,0)+C(2,1))/2^2) = 1.
//   sys-b vs sys-b-rerun: discordant mp-002…mp-007, all won by the rerun = 6; p = 2/2^6 = 0.03125
//     < 0.05: NOISE_FLOOR_EXCEEDED.
//   sys-a vs sys-b (the only comparison): a wins mp-002…mp-006 = 5, b none; p = 2/2^5 = 0.0625.
//     It favours sys-a, whose A/A discordance is 2: beyond_noise true. Judged on sys-b's (6) it
//     would be false — a losing system's noisy replicate cannot veto its rival's win.
// Who gains by breaking the rule: an operator registering a replicate only for a rival (its noise
// would then void the rival's wins), or counting a replicate as a second system in a hypothesis.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { articlePassages } from '../../scripts/generate-example-submissions.ts';
import { PROJECT_ROOT, runCli } from '../support/cli.ts';
import { buildSmallStudy, runSmallStudy, type HandRecord } from '../support/small-study.ts';

const passages = articlePassages(join(PROJECT_ROOT, 'corpus'), [
  'code-commande-publique/partie-legislative.md',
  'code-commande-publique/partie-reglementaire.md',
]);
const EXPECTED: Record<string, string> = {
  'mp-001': 'R2122-8',
  'mp-002': 'R2123-1',
  'mp-003': 'R2123-1',
  'mp-004': 'R2131-12',
  'mp-005': 'R2121-1',
  'mp-006': 'L2113-11',
  'mp-007': 'L2113-10',
};
const items = (...ids: number[]) => ids.map((n) => `mp-00${n}`);
const ANSWERS: Record<string, string[]> = {
  'sys-a': items(1, 2, 3, 4, 5, 6),
  'sys-a-rerun': items(1, 2, 3, 4, 5, 7),
  'sys-b': items(1),
  'sys-b-rerun': items(1, 2, 3, 4, 5, 6, 7),
};
const RECORDS: HandRecord[] = Object.entries(ANSWERS).flatMap(([system, ids]) =>
  ids.flatMap((item) =>
    [1, 2, 3].map((attempt): HandRecord => {
      const ref = EXPECTED[item]!;
      return { system, item, attempt, text: `Voir l'article ${ref}.`, passages: [{ ref, text: passages.get(ref)! }] };
    }),
  ),
);

/** study.json with the two replicates declared. */
const declareReplicates = (text: string): string => {
  const study = JSON.parse(text) as { systems: Array<{ system_id: string; replicate_of?: string }> };
  for (const s of study.systems) if (s.system_id.endsWith('-rerun')) s.replicate_of = s.system_id.slice(0, -'-rerun'.length);
  return `${JSON.stringify(study, null, 2)}\n`;
};

type Row = Record<string, unknown>;
let study: { root: string; cleanup: () => void };
let results: { noise_floor: Row[]; sign_test_adjustments: Row[]; sign_tests: Row[]; scores: Row[]; hypotheses: Row[] };
let report: string;

beforeAll(async () => {
  study = await buildSmallStudy(RECORDS, { editStudy: declareReplicates });
  ({ results, report } = await runSmallStudy<typeof results>(study.root));
}, 400_000);
afterAll(() => study?.cleanup());

describe('replicates and the noise floor', () => {
  it('each replicate against its original, per metric: items, discordant, the exact p-value, NOISE_FLOOR_EXCEEDED below alpha', () => {
    expect(results.noise_floor.map((r) => [r.system_id, r.replicate, r.metric, r.items, r.discordant, r.p_value, r.reason_code])).toEqual([
      ['sys-a', 'sys-a-rerun', 'positives_citing_expected/declared', 16, 2, 1, null],
      ['sys-a', 'sys-a-rerun', 'positives_citing_expected/proven', 16, 2, 1, null],
      ['sys-b', 'sys-b-rerun', 'positives_citing_expected/declared', 16, 6, 0.03125, 'NOISE_FLOOR_EXCEEDED'],
      ['sys-b', 'sys-b-rerun', 'positives_citing_expected/proven', 16, 6, 0.03125, 'NOISE_FLOOR_EXCEEDED'],
    ]);
  });

  it('a replicate is compared with its original only: the one comparison is sys-a vs sys-b, beyond the noise of the system it favours', () => {
    expect(results.sign_test_adjustments.map((r) => [r.system_a, r.system_b, r.metric, r.discordant, r.p_value, r.beyond_noise])).toEqual([
      ['sys-a', 'sys-b', 'positives_citing_expected/declared', 5, 0.0625, true],
      ['sys-a', 'sys-b', 'positives_citing_expected/proven', 5, 0.0625, true],
    ]);
  });

  it('a replicate has no score and enters no hypothesis', () => {
    expect([...new Set(results.scores.map((r) => r.system_id))]).toEqual(['sys-a', 'sys-b']);
    // H1, at least one system ≥ 80% proven: the best is sys-a, 18/48 — not sys-b-rerun's 21/48.
    const h1 = results.hypotheses.find((h) => h.hypothesis_id === 'H1')!;
    expect([h1.observed_system, h1.observed_num, h1.observed_den]).toEqual(['sys-a', 18, 48]);
  });

  it('the report shows the noise floor before the comparisons and says which systems have replicates', () => {
    const floor = report.indexOf('## Noise floor');
    expect(floor).toBeGreaterThan(0);
    expect(floor).toBeLessThan(report.indexOf('## Sign tests'));
    expect(report).toContain('Systems with a replicate: sys-a, sys-b.');
    expect(report).toContain(
      'Replicate campaigns, ranked against nobody and in no hypothesis (they measure the noise floor, below): sys-a-rerun (replicate of sys-a), sys-b-rerun (replicate of sys-b).',
    );
    expect(report).toMatch(/\| sys-b +\| sys-b-rerun +\| .* \| 16 +\| 6 +\| .* \| NOISE_FLOOR_EXCEEDED \|/);
  });
});

describe('a replicate is declared at freeze', () => {
  it('refuses one naming itself, an unknown system, or another replicate (STUDY_INVALID)', async () => {
    const file = join(study.root, 'preregistration/study.json');
    const original = readFileSync(file, 'utf8');
    try {
      for (const [system, of] of [
        ['sys-a', 'sys-a'],
        ['sys-a', 'sys-nobody'],
        ['sys-b', 'sys-a-rerun'],
      ] as const) {
        const s = JSON.parse(original) as { systems: Array<{ system_id: string; replicate_of?: string }> };
        s.systems.find((x) => x.system_id === system)!.replicate_of = of;
        writeFileSync(file, JSON.stringify(s, null, 2));
        const r = await runCli([
          'freeze',
          '--replace',
          '--reason',
          'test refreeze',
          '--root',
          study.root,
          '--secret-file',
          join(study.root, 'inputs/answer-key.secret'),
          '--json',
        ]);
        expect([system, of, r.code, r.json.code]).toEqual([system, of, 3, 'STUDY_INVALID']);
        expect(r.json.message).toContain('replicate_of');
      }
    } finally {
      writeFileSync(file, original);
    }
  });
});
