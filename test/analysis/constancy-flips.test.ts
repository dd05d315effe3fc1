// Retrieval constancy and flips attributed (SPEC §13.2), on a study small enough to count by hand.
// The example's answer key; the protocol is cut to 2 attempts per item. One system, sys-a, answers
// eight of the 16 positive items (mp-001…mp-008) and nothing else (every other expected attempt is
// missing, so it meets nothing in either attempt: never a flip). Every proof verifies unless said.
//   item    expected   attempt 1                 attempt 2                                       flip (both columns)
//   mp-001  R2122-8    served it, cites it       served it, cites nothing                        writing
//   mp-002  R2123-1    served it, cites it       another query: served R2122-8, cites R2123-1     retrieval / REQUEST
//   mp-003  R2123-1    served it, cites it       the same query: served R2122-8, cites R2123-1    retrieval / SERVICE
//   mp-004  R2131-12   served it, cites it       missing                                         missing
//   mp-005  R2121-1    served it, cites it       served it, TRUNCATED                            writing (a cut answer fails)
//   mp-006  L2113-11   served it, cites it       served it, cites it                             none
//   mp-007  L2113-10   served it, cites it       the same query: served R2122-8 under a TAMPERED  retrieval / REQUEST (a request
//                                                proof, cites L2113-10                            hash no verified proof signs is
//                                                                                                 no "same request")
//   mp-008  R2152-1    served it, cites it       served nothing of its own: attaches a proof      declared: writing;
//                                                sys-b paid for (R2152-1), cites nothing           proven: retrieval / REQUEST
// constancy expected_served, over 2 attempts of the 16 positive items: declared, always mp-001,
// mp-005, mp-006, mp-008 = 4; sometimes mp-002, mp-003, mp-004 (missing: not served), mp-007 = 4;
// never the 8 positive items sys-a does not answer. Proven: mp-008's second proof is not sys-a's
// (EVIDENCE_NOT_BOUND), so always 3, sometimes 5, never 8.
// Per metric positives_citing_expected/{declared,proven}: 7 items flip (all but mp-006), each met in
// 1 of 2 attempts. Declared: retrieval/REQUEST 2 (mp-002, mp-007), retrieval/SERVICE 1 (mp-003),
// writing 3 (mp-001, mp-005, mp-008), missing 1 (mp-004). Proven: REQUEST 3 (mp-008 joins), SERVICE
// 1, writing 2, missing 1. No negative item is answered: no refusal flips.
// Who gains by breaking the rule: a system whose retrieval is unstable, if its flips were called
// "writing" (mp-008: a rival's proof attached to the failed attempt) or blamed on the service
// without a signed request (mp-007); an operator whose plan would
// attribute a rival's retrieval flips to writing — the second study below rewrites section 5's
// expected_served to hide them, and the flips do not move.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { articlePassages } from '../../scripts/generate-example-submissions.ts';
import { PROJECT_ROOT, runCli, scratchStudies } from '../support/cli.ts';
import { buildSmallStudy, runSmallStudy, type HandRecord } from '../support/small-study.ts';

const passages = articlePassages(join(PROJECT_ROOT, 'corpus'), [
  'code-commande-publique/partie-legislative.md',
  'code-commande-publique/partie-reglementaire.md',
]);
const served = (ref: string) => [{ ref, text: passages.get(ref)! }];
const cites = (ref: string) => `Voir l'article ${ref}.`;
const first = (item: string, ref: string): HandRecord => ({ system: 'sys-a', item, attempt: 1, text: cites(ref), passages: served(ref) });
const second = (item: string, r: Omit<HandRecord, 'system' | 'item' | 'attempt'>): HandRecord => ({
  system: 'sys-a',
  item,
  attempt: 2,
  ...r,
});

const RECORDS: HandRecord[] = [
  first('mp-001', 'R2122-8'),
  second('mp-001', { text: 'Voir le code.', passages: served('R2122-8') }),
  first('mp-002', 'R2123-1'),
  second('mp-002', { text: cites('R2123-1'), passages: served('R2122-8'), query: 'mp-002 autrement' }),
  first('mp-003', 'R2123-1'),
  second('mp-003', { text: cites('R2123-1'), passages: served('R2122-8') }),
  first('mp-004', 'R2131-12'),
  first('mp-005', 'R2121-1'),
  second('mp-005', { text: "Voir l'article R2121-1 qui", truncated: true, passages: served('R2121-1') }),
  first('mp-006', 'L2113-11'),
  second('mp-006', { text: cites('L2113-11'), passages: served('L2113-11') }),
  first('mp-007', 'L2113-10'),
  second('mp-007', { text: cites('L2113-10'), passages: served('R2122-8'), tamper: true }),
  first('mp-008', 'R2152-1'),
  second('mp-008', { text: 'Voir le code.', passages: served('R2152-1'), buyer: 'sys-b' }),
];

/** study.json with 2 attempts per item. */
const twoAttempts = (text: string): string => {
  const study = JSON.parse(text) as { protocol: { attempts_per_item: number } };
  study.protocol.attempts_per_item = 2;
  return `${JSON.stringify(study, null, 2)}\n`;
};

type Row = Record<string, unknown>;
type Results = { constancy: Row[]; constancy_flips: Row[] };

const FLIPS = (column: 'declared' | 'proven') => {
  const metric = `positives_citing_expected/${column}`;
  return [
    ['sys-a', 'mp-001', metric, 2, 1, 2, 0, 'writing', null],
    ['sys-a', 'mp-002', metric, 2, 1, 1, 0, 'retrieval', 'REQUEST'],
    ['sys-a', 'mp-003', metric, 2, 1, 1, 0, 'retrieval', 'SERVICE'],
    ['sys-a', 'mp-004', metric, 2, 1, 1, 1, 'missing', null],
    ['sys-a', 'mp-005', metric, 2, 1, 2, 0, 'writing', null],
    ['sys-a', 'mp-007', metric, 2, 1, 1, 0, 'retrieval', 'REQUEST'],
    // The rival's proof counts as served only at the system's word: proven, the retrieval flip shows.
    column === 'declared'
      ? ['sys-a', 'mp-008', metric, 2, 1, 2, 0, 'writing', null]
      : ['sys-a', 'mp-008', metric, 2, 1, 1, 0, 'retrieval', 'REQUEST'],
  ];
};
/** Both columns' flips, in results.json's order (item, then metric). */
const ALL_FLIPS = [...FLIPS('declared'), ...FLIPS('proven')].sort((a, b) => `${a[1]}/${a[2]}`.localeCompare(`${b[1]}/${b[2]}`));
const flipRows = (rows: Row[]) =>
  rows.map((r) => [r.system_id, r.item_id, r.metric, r.attempts, r.met, r.served, r.missing, r.cause, r.retrieval_cause]);

describe('retrieval constancy and flips attributed', () => {
  let study: { root: string; cleanup: () => void };
  let results: Results;
  let report: string;
  beforeAll(async () => {
    study = await buildSmallStudy(RECORDS, { editStudy: twoAttempts });
    ({ results, report } = await runSmallStudy<Results>(study.root));
  }, 400_000);
  afterAll(() => study?.cleanup());

  it('constancy counts the expected article served: always, sometimes, never across the attempts, in both columns', () => {
    const rows = results.constancy.filter((r) => String(r.metric).startsWith('expected_served/'));
    expect(rows.map((r) => [r.system_id, r.metric, r.attempts, r.always, r.sometimes, r.never])).toEqual([
      ['sys-a', 'expected_served/declared', 2, 4, 4, 8],
      ['sys-a', 'expected_served/proven', 2, 3, 5, 8],
    ]);
  });

  it('each flip is attributed: retrieval (REQUEST, SERVICE) when the expected article was served in some attempts only, writing when served alike, missing when only a left-out attempt differs', () => {
    expect(flipRows(results.constancy_flips)).toEqual(ALL_FLIPS);
  });

  it('the report counts each cause per system and metric, and says how to read it', () => {
    expect(report).toContain('Flips: items whose outcome is met in some attempts and not in others');
    expect(report).toMatch(/\| sys-a +\| [^|]*declared[^|]*\| 7 +\| 2 +\| 1 +\| 3 +\| 1 +\|/);
    expect(report).toMatch(/\| sys-a +\| [^|]*proven[^|]*\| 7 +\| 3 +\| 1 +\| 2 +\| 1 +\|/);
  });
});

describe('an operator cannot attribute retrieval flips to writing through the plan', () => {
  // Section 5 rewritten so that every served article counts as the expected one: its constancy
  // then says the expected article was always served, but the flips are prereg's, from the evidence.
  let study: { root: string; cleanup: () => void };
  let results: Results;
  beforeAll(async () => {
    study = await buildSmallStudy(RECORDS, {
      editStudy: twoAttempts,
      editPlan: (plan) =>
        plan.replace('WHERE list_contains(k.expected_refs, sr.ref)\nGROUP BY sr.record_id;', 'WHERE true\nGROUP BY sr.record_id;'),
    });
    ({ results } = await runSmallStudy<Results>(study.root));
  }, 400_000);
  afterAll(() => study?.cleanup());

  it('the plan hides the retrieval instability in its constancy, the flips still name it', () => {
    const rows = results.constancy.filter((r) => r.metric === 'expected_served/declared');
    // The rewrite took: every answered item but mp-004 (one attempt missing) was served something in both attempts.
    expect(rows.map((r) => [r.always, r.sometimes, r.never])).toEqual([[7, 1, 8]]);
    expect(flipRows(results.constancy_flips)).toEqual(ALL_FLIPS);
  });
});

describe("a plan cannot redefine a built-in function the pipeline's own SQL reads with", () => {
  // Section 5 runs on the store, and a macro it creates stays there: `bool_or` redefined as true
  // would make prereg's flips SQL see the expected article served in every attempt, and call every
  // retrieval flip "writing". Freeze refuses such a plan (exit 3, nothing frozen).
  const scratch = scratchStudies();
  it("freeze refuses a section 5 whose macro takes a built-in function's name (SECTION5_BUILTIN_REDEFINED)", async () => {
    const root = scratch();
    const plan = join(root, 'preregistration/PREREGISTRATION.md');
    const text = readFileSync(plan, 'utf8');
    const before = readFileSync(join(root, 'preregistration/freeze.json'), 'utf8');
    expect(text).toContain('CREATE OR REPLACE VIEW expected_served AS');
    writeFileSync(
      plan,
      text.replace(
        'CREATE OR REPLACE VIEW expected_served AS',
        'CREATE OR REPLACE MACRO bool_or(x) AS true;\n\nCREATE OR REPLACE VIEW expected_served AS',
      ),
    );
    const r = await runCli([
      'freeze',
      '--replace',
      '--reason',
      'test refreeze',
      '--root',
      root,
      '--secret-file',
      join(root, 'inputs/answer-key.secret'),
      '--json',
    ]);
    expect([r.code, r.json.code], r.stdout).toEqual([3, 'SECTION5_BUILTIN_REDEFINED']);
    const line =
      readFileSync(plan, 'utf8')
        .split('\n')
        .findIndex((l) => l.startsWith('CREATE OR REPLACE MACRO bool_or')) + 1;
    expect(r.stdout).toContain(`bool_or (PREREGISTRATION.md line ${line})`);
    expect(readFileSync(join(root, 'preregistration/freeze.json'), 'utf8')).toBe(before);
  });
});
