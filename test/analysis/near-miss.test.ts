// Near misses (SPEC §13.2), on a study small enough to count by hand. The example's answer key has
// 16 positive items (mp-001…mp-016) and the protocol asks 3 attempts of each: 48 expected
// positive records per system; a record left out is served nothing (not_served). study.json
// declares two rules: the same number under another prefix (L2152-1 for R2152-1), the same number
// in another CCAG (CCAG Fournitures 4 for CCAG Travaux 4). Each record below is served exactly the
// refs listed:
//   sys-a  mp-002/1  R2123-1                 expected (mp-002 expects R2123-1)
//          mp-003/1  L2123-1, R2123-1        expected: an expected ref served wins
//          mp-008/1  L2152-1                 near miss (mp-008 expects R2152-1)
//          mp-008/2  L2152-1, proof tampered near miss declared; proven: nothing served
//          mp-014/1  CCAG Fournitures 4      near miss declared (mp-014 expects CCAG Travaux 4);
//                                            proven: not frozen corpus text, nothing served
//          mp-001/1  R2123-1                 not served (mp-001 expects R2122-8: another number)
//          mp-017/1  L2123-1                 a negative item: not counted
//   sys-b  mp-008/1  R2152-1                 expected
//          mp-008/2  R2152-2                 not served (another number, same prefix)
// By hand, per system and column (positives 48 each):
//   sys-a declared: expected 2, near miss 3, not served 43 (42 missing among them)
//   sys-a proven:   expected 2, near miss 1, not served 45
//   sys-b both:     expected 1, near miss 0, not served 47 (46 missing)
// Who gains by breaking the rule: a system credited for "retrieval" when it served the wrong
// article (a plan counting any served ref as retrieval); an operator declaring the rule after
// seeing the results (study.json is frozen: changing the rule is STUDY_DRIFT, refused).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { articlePassages } from '../../scripts/generate-example-submissions.ts';
import { PROJECT_ROOT, runCli, TEST_OPERATOR_ARGS } from '../support/cli.ts';
import { buildSmallStudy, runSmallStudy, type HandRecord } from '../support/small-study.ts';

const passages = articlePassages(join(PROJECT_ROOT, 'corpus'), [
  'code-commande-publique/partie-legislative.md',
  'code-commande-publique/partie-reglementaire.md',
  'ccag-travaux.md',
]);
const served = (ref: string) => ({
  ref,
  text:
    passages.get(ref) ??
    `Article ${ref} : le titulaire exécute les prestations conformément aux stipulations du marché et des documents particuliers.`,
});
const record = (system: string, item: string, attempt: number, refs: string[], more: Partial<HandRecord> = {}): HandRecord => ({
  system,
  item,
  attempt,
  text: 'Voir le corpus.',
  passages: refs.map(served),
  ...more,
});
const RECORDS: HandRecord[] = [
  record('sys-a', 'mp-002', 1, ['R2123-1']),
  record('sys-a', 'mp-003', 1, ['L2123-1', 'R2123-1']),
  record('sys-a', 'mp-008', 1, ['L2152-1']),
  record('sys-a', 'mp-008', 2, ['L2152-1'], { tamper: true }),
  record('sys-a', 'mp-014', 1, ['CCAG Fournitures 4']),
  record('sys-a', 'mp-001', 1, ['R2123-1']),
  record('sys-a', 'mp-017', 1, ['L2123-1']),
  record('sys-b', 'mp-008', 1, ['R2152-1']),
  record('sys-b', 'mp-008', 2, ['R2152-2']),
];
const RULES = [
  { pattern: '(?<prefix>[LRD])(?<number>[0-9]{4}-[0-9]+)', same: ['number'], differ: ['prefix'] },
  { pattern: 'CCAG (?<code>[A-Z][a-z]+) (?<number>[0-9]+)', same: ['number'], differ: ['code'] },
];
const withRules =
  (rules: unknown) =>
  (text: string): string => {
    const study = JSON.parse(text) as { vocabulary: Record<string, unknown> };
    study.vocabulary.near_miss = rules;
    return `${JSON.stringify(study, null, 2)}\n`;
  };

type Row = Record<string, unknown>;
let study: { root: string; cleanup: () => void };
let results: { retrieval: Row[] };
let report: string;

beforeAll(async () => {
  study = await buildSmallStudy(RECORDS, { editStudy: withRules(RULES) });
  ({ results, report } = await runSmallStudy<typeof results>(study.root));
}, 400_000);
afterAll(() => study?.cleanup());

describe('retrieval rows: expected served, near miss, not served', () => {
  it('per system and column, over the 48 expected positive records, as counted by hand', () => {
    expect(
      results.retrieval.map((r) => [r.system_id, r.evidence, r.positives, r.missing, r.expected_served, r.near_miss, r.not_served]),
    ).toEqual([
      ['sys-a', 'declared', 48, 42, 2, 3, 43],
      ['sys-a', 'proven', 48, 42, 2, 1, 45],
      ['sys-b', 'declared', 48, 46, 1, 0, 47],
      ['sys-b', 'proven', 48, 46, 1, 0, 47],
    ]);
  });

  it("the report's retrieval-and-writing table shows the near misses beside the expected article served", () => {
    const at = report.indexOf('## Retrieval and writing');
    expect(at).toBeGreaterThan(0);
    const section = report.slice(at, report.indexOf('\n## ', at + 1));
    expect(section).toMatch(
      /\| system +\| expected article served, declared +\| served, proven +\| near miss, declared +\| near miss, proven +\|/,
    );
    expect(section).toMatch(/\| sys-a +\| 2\/48 \(4\.2%\) +\| 2\/48 \(4\.2%\) +\| 3\/48 \(6\.3%\) +\| 1\/48 \(2\.1%\) +\|/);
    expect(section).toMatch(/\| sys-b +\| 1\/48 \(2\.1%\) +\| 1\/48 \(2\.1%\) +\| 0\/48 \(0\.0%\) +\| 0\/48 \(0\.0%\) +\|/);
    expect(section).toContain('vocabulary.near_miss');
  });
});

describe('the rule is frozen with study.json', () => {
  const studyFile = () => join(study.root, 'preregistration/study.json');

  it('an operator who changes the rule after the freeze is refused (STUDY_DRIFT), and nothing is written', async () => {
    const frozen = readFileSync(studyFile(), 'utf8');
    try {
      // Looser: any two identifiers with the same last number would be "near".
      writeFileSync(studyFile(), withRules([{ pattern: '(?<head>.+)-(?<number>[0-9]+)', same: ['number'], differ: ['head'] }])(frozen));
      const outputs = join(study.root, 'outputs-drift');
      const r = await runCli(['run', '--root', study.root, '--outputs', outputs, ...TEST_OPERATOR_ARGS, '--json']);
      expect([r.code, r.json.code]).toEqual([3, 'STUDY_DRIFT']);
      expect(existsSync(outputs)).toBe(false);
    } finally {
      writeFileSync(studyFile(), frozen);
    }
  }, 120_000);

  it('freeze refuses a rule that matches no identifier of the vocabulary (STUDY_INVALID, naming the member)', async () => {
    const frozen = readFileSync(studyFile(), 'utf8');
    try {
      writeFileSync(
        studyFile(),
        withRules([RULES[0], { pattern: 'CCAG (?<code>[A-Z][a-z]+) article (?<number>[0-9]+)', same: ['number'], differ: ['code'] }])(
          frozen,
        ),
      );
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
      expect([r.code, r.json.code]).toEqual([3, 'STUDY_INVALID']);
      const problems = (r.json.details as { problems: Array<{ code: string; file: string; field: string }> }).problems;
      expect(problems.map((p) => [p.code, p.file, p.field])).toEqual([
        ['STUDY_INVALID', 'preregistration/study.json', '/vocabulary/near_miss/1/pattern'],
      ]);
    } finally {
      writeFileSync(studyFile(), frozen);
    }
  }, 120_000);
});
