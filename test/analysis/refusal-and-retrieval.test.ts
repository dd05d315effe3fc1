// Refusal judged from the text, and retrieval told from writing (SPEC §12.6), on hand-built
// studies where every record's outcome is known. The example's study.json freezes a
// refusal_pattern; both columns judge the text the same way (SPEC §13.1), the `refused` flag is
// the system's declaration, compared with the judgement. Rates count the expected records: 16
// positives and 4 negatives × 3 attempts.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { articlePassages } from '../../scripts/generate-example-submissions.ts';
import { PROJECT_ROOT, runCli, TEST_OPERATOR_ARGS } from '../support/cli.ts';
import { buildSmallStudy, type HandRecord } from '../support/small-study.ts';
import { queryStore } from '../support/store-query.ts';

const passages = articlePassages(join(PROJECT_ROOT, 'corpus'), ['code-commande-publique/partie-reglementaire.md', 'ccag-travaux.md']);
const served = (...refs: string[]) => refs.map((ref) => ({ ref, text: passages.get(ref)! }));
const REFUSAL = 'Le corpus ne contient pas de disposition permettant de répondre à cette question.';

const RECORDS: HandRecord[] = [
  // A negative answered, flagged as a refusal: ANSWERED_NEGATIVE in both columns (the flag is not the class).
  {
    system: 'sys-a',
    item: 'mp-017',
    attempt: 1,
    text: "Selon l'article R2123-1, la procédure adaptée s'applique.",
    refused: true,
    passages: served('R2123-1'),
  },
  // A negative refused in words but not flagged: REFUSAL_CORRECT in both columns.
  { system: 'sys-a', item: 'mp-018', attempt: 1, text: REFUSAL, passages: served('R2123-1') },
  // Consistent: a refusal flagged and written (not listed).
  { system: 'sys-a', item: 'mp-019', attempt: 1, text: REFUSAL, refused: true, passages: served('R2123-1') },
  // Retrieval against writing: served the expected R2122-8 and cites it; served it and cites
  // nothing; never served it (served R2123-1 instead) and cites it anyway.
  {
    system: 'sys-a',
    item: 'mp-001',
    attempt: 1,
    text: "Selon l'article R2122-8, le seuil est de 40 000 euros hors taxes.",
    passages: served('R2122-8'),
  },
  { system: 'sys-a', item: 'mp-001', attempt: 2, text: 'Le seuil dépend du besoin.', passages: served('R2122-8') },
  {
    system: 'sys-a',
    item: 'mp-001',
    attempt: 3,
    text: "Selon l'article R2122-8, le seuil est de 40 000 euros.",
    passages: served('R2123-1'),
  },
  { system: 'sys-b', item: 'mp-014', attempt: 1, text: 'Voir le CCAG Travaux 4.', passages: served('CCAG Travaux 4'), tamper: true },
];

async function scored(options: Parameters<typeof buildSmallStudy>[1] = {}) {
  const study = await buildSmallStudy(RECORDS, options);
  const run = await runCli(['run', '--root', study.root, '--outputs', join(study.root, 'outputs'), ...TEST_OPERATOR_ARGS, '--json']);
  expect(run.code, run.stdout + run.stderr).toBe(0);
  const results = JSON.parse(readFileSync(join(run.json.dir, 'results.json'), 'utf8')) as {
    scores: Array<Record<string, unknown>>;
    coverage: { refusal_flags_disagreeing: Array<Record<string, unknown>> };
  };
  const classes = await queryStore(
    study.root,
    "SELECT system_id || '/' || item_id || '/' || attempt AS r, class_declared, class_proven FROM result_assertion_classes WHERE kind = 'record' ORDER BY 1",
  );
  const record = Object.fromEntries(classes.map((c) => [String(c.r), `${String(c.class_declared)} / ${String(c.class_proven)}`]));
  const score = (system: string, metric: string) => {
    const s = results.scores.find((x) => x.system_id === system && x.metric === metric)!;
    return `${String(s.declared)}/${String(s.n_declared)} declared, ${String(s.proven)}/${String(s.n_proven)} proven`;
  };
  return { study, results, record, score };
}

describe('refusal judged from the text by the frozen refusal_pattern', () => {
  it('lists every record whose flag the text contradicts (REFUSAL_FLAG_DISAGREES); both columns follow the text', async () => {
    const { study, results, record, score } = await scored();
    try {
      expect(record['sys-a/mp-017/1']).toBe('ANSWERED_NEGATIVE / ANSWERED_NEGATIVE');
      expect(record['sys-a/mp-018/1']).toBe('REFUSAL_CORRECT / REFUSAL_CORRECT');
      expect(record['sys-a/mp-019/1']).toBe('REFUSAL_CORRECT / REFUSAL_CORRECT');
      expect(results.coverage.refusal_flags_disagreeing.map((r) => [r.item_id, r.refused_flag, r.refused_by_text, r.reason_code])).toEqual([
        ['mp-017', true, false, 'REFUSAL_FLAG_DISAGREES'],
        ['mp-018', false, true, 'REFUSAL_FLAG_DISAGREES'],
      ]);
      expect(results.coverage.refusal_flags_disagreeing[0]).toMatchObject({ system_id: 'sys-a', file: 'inputs/submissions/sys-a.jsonl' });
      // mp-018 and mp-019 refuse, of the 12 expected negative records.
      expect(score('sys-a', 'refusal_rate_negatives')).toBe('2/12 declared, 2/12 proven');
    } finally {
      study.cleanup();
    }
  }, 240_000);

  it('without a refusal_pattern both columns take the flag, and nothing is listed', async () => {
    const { study, results, record } = await scored({ editStudy: (t) => t.replace(/\n {2}"refusal_pattern": "[^\n]*",/, '') });
    try {
      expect(readFileSync(join(study.root, 'preregistration/study.json'), 'utf8')).not.toContain('refusal_pattern');
      expect(record['sys-a/mp-017/1']).toBe('REFUSAL_CORRECT / REFUSAL_CORRECT');
      expect(record['sys-a/mp-018/1']).toBe('ANSWERED_NEGATIVE / ANSWERED_NEGATIVE');
      expect(results.coverage.refusal_flags_disagreeing).toEqual([]);
    } finally {
      study.cleanup();
    }
  }, 240_000);
});

describe('retrieval told from writing: expected_served and cited_given_served', () => {
  it('counts, per positive answer, whether the expected article was served, and of those, cited; tampered evidence serves nothing proven', async () => {
    const { study, score } = await scored();
    try {
      // mp-001: served in attempts 1 and 2, cited in 1 (attempt 3 cites what it was never served: not
      // grounded); of the 48 expected positive records.
      expect(score('sys-a', 'expected_served')).toBe('2/48 declared, 2/48 proven');
      expect(score('sys-a', 'cited_given_served')).toBe('1/2 declared, 1/2 proven');
      expect(score('sys-a', 'positives_citing_expected')).toBe('1/48 declared, 1/48 proven');
      // sys-b's evidence was altered after signing: served declared, nothing served proven.
      expect(score('sys-b', 'expected_served')).toBe('1/48 declared, 0/48 proven');
      expect(score('sys-b', 'cited_given_served')).toBe('1/1 declared, 0/0 proven');
    } finally {
      study.cleanup();
    }
  }, 240_000);
});
