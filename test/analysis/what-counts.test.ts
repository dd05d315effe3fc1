// What counts (SPEC §13.1), played by the parties the study judges, on a copy of the example
// (20 items: 16 positive, 4 negative; 3 attempts each, so 60 expected records per system, 48 on
// positives, 12 on negatives). Every expected figure below is counted by hand from RECORDS.
//
// - a system pads a hedge with an invented amount and an unserved citation to buy a refusal;
// - a system flags its cut answers as truncated (or cuts a refusal formula) hoping to leave a
//   denominator or to be read as a refusal;
// - a system submits only what it gets right, and leaves out the lines it gets wrong;
// - a registered system submits nothing at all.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { articlePassages } from '../../scripts/generate-example-submissions.ts';
import { copyExampleStudy, PROJECT_ROOT, runCli, TEST_OPERATOR_ARGS } from '../support/cli.ts';
import { buildSmallStudy, type HandRecord } from '../support/small-study.ts';
import { queryStore } from '../support/store-query.ts';

const passages = articlePassages(join(PROJECT_ROOT, 'corpus'), ['code-commande-publique/partie-reglementaire.md']);
const served = (...refs: string[]) => refs.map((ref) => ({ ref, text: passages.get(ref)! }));

const TAIL =
  "L'amende dépend du chiffre d'affaires de l'entreprise, de la durée de l'entente, de la gravité des faits, du dommage causé à l'économie, de la situation individuelle de chaque soumissionnaire et des éventuelles circonstances atténuantes retenues par l'autorité.";

const RECORDS: HandRecord[] = [
  // Refusals judged from the answer (item 1).
  // A hedge, an amount and a citation of an article never served: an answer, in both columns.
  {
    system: 'sys-a',
    item: 'mp-017',
    attempt: 1,
    text: "Je ne peux pas répondre avec certitude, mais la TVA est de 20 euros par dossier selon l'article R2122-8.",
    passages: served('R2123-1'),
  },
  // A refusal that points to the article it was served: a refusal, in both columns.
  {
    system: 'sys-a',
    item: 'mp-018',
    attempt: 1,
    text: "Je ne peux pas répondre : l'article R2123-1 ne traite pas de la durée des concessions.",
    refused: true,
    passages: served('R2123-1'),
  },
  // The refusal formula followed by more than 200 characters: an answer, whatever the flag says.
  {
    system: 'sys-a',
    item: 'mp-019',
    attempt: 1,
    text: `Je ne peux pas répondre précisément. ${TAIL}`,
    refused: true,
    passages: served('R2123-1'),
  },
  // Truncation (item 2): cut inside the formula, flagged refused and truncated; cut after it.
  { system: 'sys-a', item: 'mp-020', attempt: 1, text: 'Je ne peux pas r', refused: true, truncated: true, passages: served('R2123-1') },
  {
    system: 'sys-a',
    item: 'mp-017',
    attempt: 2,
    text: 'Je ne peux pas répondre à cette question car le corpus ne dit rien sur la nomin',
    truncated: true,
    passages: served('R2123-1'),
  },
  // A positive cut after a grounded citation: the citation is judged, the stub is not, the answer failed.
  {
    system: 'sys-a',
    item: 'mp-001',
    attempt: 1,
    text: "Selon l'article R2122-8, le seuil est de 40 000 euros. Voir aussi l'article R2122-",
    truncated: true,
    passages: served('R2122-8'),
  },
  // Missing records (item 3): sys-cherry submits only the 10 records it gets right.
  ...[1, 2, 3].map(
    (attempt): HandRecord => ({
      system: 'sys-cherry',
      item: 'mp-001',
      attempt,
      text: "Voir l'article R2122-8.",
      passages: served('R2122-8'),
    }),
  ),
  ...[1, 2, 3].map(
    (attempt): HandRecord => ({
      system: 'sys-cherry',
      item: 'mp-002',
      attempt,
      text: "Voir l'article R2123-1.",
      passages: served('R2123-1'),
    }),
  ),
  ...[1, 2, 3].map(
    (attempt): HandRecord => ({
      system: 'sys-cherry',
      item: 'mp-003',
      attempt,
      text: "Voir l'article R2123-1.",
      passages: served('R2123-1'),
    }),
  ),
  { system: 'sys-cherry', item: 'mp-004', attempt: 1, text: "Voir l'article R2131-12.", passages: served('R2131-12') },
];

// sys-gone is registered (its own fingerprint) and submits nothing: WITHDRAWN. The truncation gap
// is set below sys-a's share (3 of 60 truncated, 0.05; sys-cherry 0 of 60) to show its caveat.
const withGone = (text: string) => {
  const study = JSON.parse(text) as { systems: Array<Record<string, unknown>>; protocol: Record<string, unknown> };
  study.systems.push({ system_id: 'sys-gone', buyer_fingerprints: ['9'.repeat(64)] });
  study.protocol.max_truncation_gap = 0.04;
  return `${JSON.stringify(study, null, 2)}\n`;
};

type Row = Record<string, unknown>;
let study: { root: string; cleanup: () => void };
let results: {
  scores: Row[];
  constancy: Row[];
  sign_tests: Row[];
  sign_test_adjustments: Row[];
  hypotheses: Row[];
  coverage: { refusal_flags_disagreeing: Row[]; systems?: Row[] };
} & Record<string, unknown>;
let record: Record<string, string>;
let assertion: Record<string, string>;
let exitCode: number;

beforeAll(async () => {
  study = await buildSmallStudy(RECORDS, { editStudy: withGone });
  const run = await runCli(['run', '--root', study.root, '--outputs', join(study.root, 'outputs'), ...TEST_OPERATOR_ARGS, '--json']);
  exitCode = run.code;
  expect(run.code, run.stdout + run.stderr).toBe(0);
  results = JSON.parse(readFileSync(join(run.json.dir, 'results.json'), 'utf8')) as typeof results;
  const classes = await queryStore(
    study.root,
    "SELECT c.system_id || '/' || c.item_id || '/' || c.attempt AS r, c.kind, a.text, c.class_declared, c.class_proven FROM result_assertion_classes c LEFT JOIN assertions a ON a.assertion_id = c.assertion_id ORDER BY 1, c.assertion_id",
  );
  record = Object.fromEntries(
    classes.filter((c) => c.kind === 'record').map((c) => [String(c.r), `${String(c.class_declared)} / ${String(c.class_proven)}`]),
  );
  assertion = Object.fromEntries(
    classes
      .filter((c) => c.kind !== 'record')
      .map((c) => [`${String(c.r)} ${String(c.text)}`, `${String(c.class_declared)} / ${String(c.class_proven)}`]),
  );
}, 400_000);
afterAll(() => study?.cleanup());

const score = (system: string, metric: string) => {
  const s = results.scores.find((x) => x.system_id === system && x.metric === metric)!;
  return `${String(s.declared)}/${String(s.n_declared)} declared, ${String(s.proven)}/${String(s.n_proven)} proven, ${String(s.missing)} missing`;
};
const hypothesis = (id: string) => {
  const h = results.hypotheses.find((x) => x.hypothesis_id === id)!;
  return `${String(h.outcome)} ${String(h.observed_num)}/${String(h.observed_den)}`;
};

describe('a refusal is judged from the answer as written, the same in both columns', () => {
  it('a hedge with an amount and an unserved citation is an answer; a refusal pointing to a served article is a refusal; a long tail is an answer', () => {
    expect(exitCode).toBe(0);
    expect(record['sys-a/mp-017/1']).toBe('ANSWERED_NEGATIVE / ANSWERED_NEGATIVE');
    expect(record['sys-a/mp-018/1']).toBe('REFUSAL_CORRECT / REFUSAL_CORRECT');
    expect(record['sys-a/mp-019/1']).toBe('ANSWERED_NEGATIVE / ANSWERED_NEGATIVE');
  });

  it('the refused flag is the declaration, compared with the judgement (REFUSAL_FLAG_DISAGREES)', () => {
    expect(
      results.coverage.refusal_flags_disagreeing.map((r) => [
        r.system_id,
        r.item_id,
        r.attempt,
        r.refused_flag,
        r.refused_by_text,
        r.reason_code,
      ]),
    ).toEqual([
      ['sys-a', 'mp-019', 1, true, false, 'REFUSAL_FLAG_DISAGREES'],
      ['sys-a', 'mp-020', 1, true, false, 'REFUSAL_FLAG_DISAGREES'],
    ]);
  });
});

describe('a truncated answer is a failed answer', () => {
  it('is TRUNCATED in both columns, never a refusal', () => {
    expect(record['sys-a/mp-020/1']).toBe('TRUNCATED / TRUNCATED');
    expect(record['sys-a/mp-017/2']).toBe('TRUNCATED / TRUNCATED');
    expect(record['sys-a/mp-001/1']).toBe('TRUNCATED / TRUNCATED');
  });

  it('its citations before the cut are judged, the stub at the cut is not, and it counts as a failure', () => {
    expect(assertion['sys-a/mp-001/1 R2122-8']).toBe('GROUNDED_EXPECTED / GROUNDED_EXPECTED');
    expect(assertion['sys-a/mp-001/1 R2122-']).toBe('NOT_JUDGED / NOT_JUDGED');
    // sys-a: 1 refusal (mp-018/1) of 12 expected negative records; 0 of 48 positives (the cut one failed).
    expect(score('sys-a', 'refusal_rate_negatives')).toBe('1/12 declared, 1/12 proven, 7 missing');
    expect(score('sys-a', 'positives_citing_expected')).toBe('0/48 declared, 0/48 proven, 47 missing');
    expect(score('sys-a', 'truncated_answers')).toBe('3/60 declared, 3/60 proven, 54 missing');
  });
});

describe('the truncation gap beside each comparison', () => {
  it('is a caveat (TRUNCATION_GAP) on every comparison of two systems whose truncated shares differ by more than protocol.max_truncation_gap', () => {
    expect(results.sign_test_adjustments.map((a) => [a.system_a, a.system_b, a.metric, a.caveats])).toEqual([
      ['sys-a', 'sys-cherry', 'positives_citing_expected/declared', ['TRUNCATION_GAP']],
      ['sys-a', 'sys-cherry', 'positives_citing_expected/proven', ['TRUNCATION_GAP']],
    ]);
  });
});

describe('missing records count', () => {
  it('a system submitting only the 10 records it gets right is 10/48, not 10/10, and H1 is not bought', () => {
    expect(score('sys-cherry', 'positives_citing_expected')).toBe('10/48 declared, 10/48 proven, 38 missing');
    expect(score('sys-cherry', 'refusal_rate_negatives')).toBe('0/12 declared, 0/12 proven, 12 missing');
    // Best system 10/48 < 80%: with 10/10 it would have been SUPPORTED.
    expect(hypothesis('H1')).toBe('NOT_SUPPORTED 10/48');
  });

  it('constancy and H5 count every expected attempt: a left-out attempt is a failed one, not another row', () => {
    const rows = results.constancy.filter((c) => c.system_id === 'sys-cherry' && c.metric === 'positives_citing_expected/proven');
    // mp-001..003 always, mp-004 once of 3, the 12 other positives never.
    expect(rows.map((c) => [c.attempts, c.always, c.sometimes, c.never])).toEqual([[3, 3, 1, 12]]);
    expect(hypothesis('H5')).toBe('NOT_SUPPORTED 0/16');
  });

  it('sign tests compare over the expected attempts: a missing attempt loses', () => {
    const t = results.sign_tests.find(
      (x) => x.system_a === 'sys-a' && x.system_b === 'sys-cherry' && x.metric === 'positives_citing_expected/proven',
    )!;
    expect([t.wins_a, t.wins_b, t.ties]).toEqual([0, 3, 13]);
  });

  it('a registered system with no accepted record is WITHDRAWN: listed, left out of the all-systems hypotheses', async () => {
    const coverage = await queryStore(
      study.root,
      'SELECT system_id, status, expected, submitted, missing FROM coverage ORDER BY system_id',
    );
    expect(coverage.map((c) => [c.system_id, c.status, Number(c.expected), Number(c.submitted), Number(c.missing)])).toEqual([
      ['sys-a', 'INCOMPLETE', 60, 6, 54],
      ['sys-cherry', 'INCOMPLETE', 60, 10, 50],
      ['sys-gone', 'WITHDRAWN', 60, 0, 60],
    ]);
    expect(results.sign_tests.filter((t) => t.system_a === 'sys-gone' || t.system_b === 'sys-gone')).toEqual([]);
    // H4 over sys-a and sys-cherry: 1 refusal of 24 expected negative records (not 36 with sys-gone's).
    expect(hypothesis('H4')).toBe('NOT_SUPPORTED 1/24');
  });
});

describe('prereg validate tells the participant before it sends the file', () => {
  it('lists each line whose refused flag the answer as written contradicts (REFUSAL_FLAG_DISAGREES), accepting the line', async () => {
    const copy = copyExampleStudy();
    try {
      // A negative of sys-honest's, rewritten as the hedge of the issue and flagged refused: an
      // answer (an amount, an article its evidence never served), whatever the flag says.
      const lines = readFileSync(join(copy.root, 'inputs/submissions/sys-honest.jsonl'), 'utf8').trimEnd().split('\n');
      const negative = lines
        .map(
          (l) =>
            JSON.parse(l) as {
              item_id: string;
              answer: Record<string, unknown>;
              evidence: Array<{ response: { passages: Array<{ ref: string }> } }>;
            },
        )
        .find((l) => l.item_id === 'mp-017' && l.answer.refused === true)!;
      expect(negative.evidence.flatMap((e) => e.response.passages.map((p) => p.ref))).not.toContain('R2122-8');
      negative.answer.text = "Je ne peux pas répondre avec certitude, mais la TVA est de 20 EUR par dossier selon l'article R2122-8.";
      const file = join(copy.root, 'hedge.jsonl');
      writeFileSync(file, `${JSON.stringify(negative)}\n`);
      const v = await runCli(['validate', file, '--root', copy.root, '--json']);
      expect(v.code, v.stdout + v.stderr).toBe(0);
      expect(v.json.notes.filter((n: string) => n.includes('REFUSAL_FLAG_DISAGREES'))).toEqual([
        expect.stringMatching(
          /hedge\.jsonl:1: REFUSAL_FLAG_DISAGREES: sys-honest\/mp-017\/\d declares refused true, but the answer as written is not a refusal/,
        ),
      ]);
      // The example's own sys-tampered line 53 flags an answer as a refusal; its other lines agree.
      const t = await runCli(['validate', join(copy.root, 'inputs/submissions/sys-tampered.jsonl'), '--root', copy.root, '--json']);
      expect(t.json.notes.filter((n: string) => n.includes('REFUSAL_FLAG_DISAGREES'))).toEqual([
        expect.stringMatching(
          /sys-tampered\.jsonl:53: REFUSAL_FLAG_DISAGREES: sys-tampered\/mp-018\/1 declares refused true, but the answer as written is not a refusal/,
        ),
      ]);
    } finally {
      copy.cleanup();
    }
  }, 240_000);
});
