// freeze refuses a plan that could not run after the deadline (docs/preregistration.md, "What
// freeze refuses"), and check-anchors reports the same problems. Each trap edits one file of a
// scratch copy of the example study.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT, runCli, scratchStudies } from '../support/cli.ts';

const study = scratchStudies();

const editJson = (root: string, file: string, change: (v: any) => void) => {
  const path = join(root, file);
  const value = JSON.parse(readFileSync(path, 'utf8'));
  change(value);
  writeFileSync(path, JSON.stringify(value, null, 2));
};
const editText = (root: string, file: string, change: (t: string) => string) => {
  const path = join(root, file);
  const before = readFileSync(path, 'utf8');
  const after = change(before);
  expect(after).not.toBe(before);
  writeFileSync(path, after);
};
/** The 1-based line of the example plan where `text` starts. */
const lineOf = (text: string) =>
  readFileSync(join(PROJECT_ROOT, 'preregistration/PREREGISTRATION.md'), 'utf8')
    .split('\n')
    .findIndex((l) => l.startsWith(text)) + 1;
const POLICY = 'preregistration/trust/policy.json';
const STUDY = 'preregistration/study.json';
const PLAN = 'preregistration/PREREGISTRATION.md';

interface Trap {
  what: string;
  edit: (root: string) => void;
  code: string;
  /** Text the message must contain: the file and the field (or line). */
  names: string[];
}

const TRAPS: Trap[] = [
  {
    what: 'an operator_public_key file that does not exist',
    edit: (r) => editJson(r, POLICY, (p) => (p.operator_public_key = 'operator/missing.pub.pem')),
    code: 'FILE_NOT_FOUND',
    names: [POLICY, '/operator_public_key', 'operator/missing.pub.pem'],
  },
  {
    what: 'no operator_public_key at all',
    edit: (r) => editJson(r, POLICY, (p) => delete p.operator_public_key),
    code: 'OPERATOR_KEY_UNPINNED',
    names: [POLICY, '/operator_public_key'],
  },
  {
    what: 'an operator_public_key that is a certificate, not an Ed25519 key',
    edit: (r) => editJson(r, POLICY, (p) => (p.operator_public_key = 'tsa-roots/TEST-ONLY-tsa-root.cert.pem')),
    code: 'OPERATOR_KEY_UNPINNED',
    names: [POLICY, '/operator_public_key'],
  },
  {
    what: 'a TSA root file that does not exist',
    edit: (r) => editJson(r, POLICY, (p) => (p.tsa_roots = ['tsa-roots/gone.pem'])),
    code: 'FILE_NOT_FOUND',
    names: [POLICY, '/tsa_roots/0', 'tsa-roots/gone.pem'],
  },
  {
    what: 'a misspelt policy field',
    edit: (r) =>
      editJson(r, POLICY, (p) => {
        p.require_receipt = p.require_receipts;
        delete p.require_receipts;
      }),
    code: 'TRUST_POLICY_INVALID',
    names: ['policy.json', 'require_receipt'],
  },
  {
    what: 'a policy that pins no seller (SPEC §12.4)',
    edit: (r) => editJson(r, POLICY, (p) => delete p.sellers),
    code: 'TRUST_SELLERS_MISSING',
    names: [POLICY, '/sellers'],
  },
  {
    what: 'a seller that is not a string',
    edit: (r) => editJson(r, POLICY, (p) => (p.sellers = ['retrieval.example', 42])),
    code: 'TRUST_POLICY_INVALID',
    names: ['policy.json', 'sellers'],
  },
  {
    what: 'an empty list of sellers',
    edit: (r) => editJson(r, POLICY, (p) => (p.sellers = [])),
    code: 'TRUST_POLICY_INVALID',
    names: ['policy.json', 'sellers'],
  },
  {
    what: 'a sellers string other than "any"',
    edit: (r) => editJson(r, POLICY, (p) => (p.sellers = 'retrieval.example')),
    code: 'TRUST_POLICY_INVALID',
    names: ['policy.json', 'sellers'],
  },
  {
    what: 'passages in a prereg.study/1 (a study/2 field)',
    edit: (r) =>
      editJson(r, STUDY, (s) => {
        s.format = 'prereg.study/1';
        s.passages = { min_chars: 40 };
      }),
    code: 'STUDY_INVALID',
    names: [STUDY, '/passages'],
  },
  {
    what: 'a passages.min_chars below 1',
    edit: (r) =>
      editJson(r, STUDY, (s) => {
        s.format = 'prereg.study/2';
        s.passages = { min_chars: 0 };
      }),
    code: 'STUDY_INVALID',
    names: [STUDY, 'min_chars'],
  },
  {
    what: 'section-5 SQL with a syntax error',
    edit: (r) => editText(r, PLAN, (t) => t.replace('CREATE OR REPLACE VIEW scores AS', 'CREATE OR REPLACE VIEWW scores AS')),
    code: 'SECTION5_SQL_FAILED',
    // The line of the offending statement in PREREGISTRATION.md, not in its SQL block.
    names: [PLAN, `PREREGISTRATION.md line ${lineOf('CREATE OR REPLACE VIEW scores AS')}: CREATE OR REPLACE VIEWW scores`],
  },
  {
    what: 'a renamed required view',
    edit: (r) => editText(r, PLAN, (t) => t.replace('CREATE OR REPLACE VIEW hypotheses AS', 'CREATE OR REPLACE VIEW hypothesis AS')),
    code: 'SECTION5_VIEW_MISSING',
    names: [PLAN, 'hypotheses'],
  },
  {
    what: 'a required view that lost a column',
    // A last block redefines sign_tests without its p_value column.
    edit: (r) =>
      editText(r, PLAN, (t) =>
        t.replace(
          '\n## 6',
          "\n```sql\nCREATE OR REPLACE VIEW sign_tests AS SELECT 'a' AS system_a, 'b' AS system_b, 'm' AS metric, 0 AS wins_a, 0 AS wins_b, 0 AS ties;\n```\n\n## 6",
        ),
      ),
    code: 'SECTION5_VIEW_COLUMNS',
    names: [PLAN, 'sign_tests', 'p_value'],
  },
  {
    // An operator declaring a winner on a point estimate (SPEC §13.2): a last block redefines the
    // hypotheses as they were before the exact tests, an outcome from the observed share alone.
    what: 'hypotheses decided on a point estimate, without the exact test and Holm',
    edit: (r) =>
      editText(r, PLAN, (t) =>
        t.replace(
          '\n## 6',
          "\n```sql\nCREATE OR REPLACE VIEW hypotheses AS SELECT 'H3' AS hypothesis_id, 'phantoms at most 5%' AS statement, 0.05 AS threshold, 3 / 157 AS observed, CASE WHEN 3 * 20 <= 157 THEN 'SUPPORTED' ELSE 'NOT_SUPPORTED' END AS outcome, 'why' AS reason;\n```\n\n## 6",
        ),
      ),
    code: 'SECTION5_VIEW_COLUMNS',
    names: [PLAN, 'hypotheses', 'p_value, p_holm, p_value_against, p_holm_against, observed_lower, observed_upper, decision_reason'],
  },
  {
    // A participant who leaves out what it gets wrong gains under rates over submitted records (SPEC §13.1).
    what: 'a plan whose rates count the records submitted, not expected_records',
    edit: (r) => editText(r, PLAN, (t) => t.replace('FROM expected_records e', 'FROM records e')),
    code: 'SECTION5_RULE_UNUSED',
    names: [PLAN, 'never reads expected_records'],
  },
  {
    // A participant that flags its answers as refusals gains when the plan scores the flag.
    what: "a plan that scores refusals by the submission's refused flag",
    edit: (r) =>
      editText(r, PLAN, (t) =>
        t.replace('coalesce(rr.declared, false) AS refused_declared', 'coalesce(r.refused, false) AS refused_declared'),
      ),
    code: 'SECTION5_RULE_UNUSED',
    names: [PLAN, `:${lineOf('       coalesce(rr.declared, false) AS refused_declared')}`, 'reads `refused`'],
  },
  {
    what: 'heading patterns that match no identifier (0 identifiers)',
    edit: (r) => editJson(r, STUDY, (s) => (s.vocabulary.heading_patterns = ['^## Clause (?<id>[0-9]+)$'])),
    code: 'VOCABULARY_EMPTY',
    names: [STUDY, '/vocabulary/heading_patterns'],
  },
  {
    what: 'one heading pattern among several that matches nothing',
    edit: (r) => editJson(r, STUDY, (s) => s.vocabulary.heading_patterns.push('^## Clause (?<id>[0-9]+)$')),
    code: 'VOCABULARY_EMPTY',
    names: [STUDY, '/vocabulary/heading_patterns/2'],
  },
  {
    what: 'a documents_suffix no corpus file has',
    edit: (r) => editJson(r, STUDY, (s) => (s.corpus.documents_suffix = '.markdown')),
    code: 'VOCABULARY_EMPTY',
    names: [STUDY, '/corpus/documents_suffix'],
  },
  {
    what: 'an amount pattern that does not compile',
    edit: (r) => editJson(r, STUDY, (s) => (s.amounts.pattern = '(?<value>[0-9]+')),
    code: 'STUDY_INVALID',
    names: [STUDY, '/amounts/pattern'],
  },
  {
    what: 'a shape pattern that matches no identifier of the vocabulary',
    edit: (r) => editJson(r, STUDY, (s) => (s.vocabulary.shape_patterns = ['[XYZ][0-9]{9}'])),
    code: 'STUDY_INVALID',
    names: [STUDY, '/vocabulary/shape_patterns/0'],
  },
];

describe('freeze refuses a plan that could not run after the deadline', () => {
  for (const trap of TRAPS) {
    it(`refuses ${trap.what} (exit 3, ${trap.code}), writing nothing`, async () => {
      const root = study();
      const frozen = readFileSync(join(root, 'preregistration/freeze.json'), 'utf8');
      trap.edit(root);
      const r = await runCli(['freeze', '--root', root, '--replace', '--reason', 'test refreeze', '--json']);
      expect([r.code, r.json.code]).toEqual([3, trap.code]);
      for (const name of trap.names) expect(r.json.message).toContain(name);
      expect(readFileSync(join(root, 'preregistration/freeze.json'), 'utf8')).toBe(frozen);
    });
  }

  it('check-anchors runs the same checks: a broken section 5 is a finding with its file and code', async () => {
    const root = study();
    TRAPS.find((t) => t.code === 'SECTION5_SQL_FAILED')!.edit(root);
    const r = await runCli(['check-anchors', '--root', root, '--json']);
    expect(r.code).toBe(1);
    expect(r.json.reason_codes).toEqual(expect.arrayContaining(['SECTION5_DRIFT', 'SECTION5_SQL_FAILED']));
    const finding = r.json.findings.find((f: { code: string }) => f.code === 'SECTION5_SQL_FAILED');
    expect(finding).toMatchObject({ file: PLAN, field: 'section 5' });
  });

  it('check-anchors reports a vanished operator key as a finding', async () => {
    const root = study();
    editJson(root, POLICY, (p) => (p.operator_public_key = 'operator/missing.pub.pem'));
    const r = await runCli(['check-anchors', '--root', root, '--json']);
    expect(r.code).toBe(1);
    expect(r.json.findings).toEqual(
      expect.arrayContaining([expect.objectContaining({ code: 'FILE_NOT_FOUND', file: POLICY, field: '/operator_public_key' })]),
    );
  });

  it('check-anchors reports a policy without sellers as a finding', async () => {
    const root = study();
    editJson(root, POLICY, (p) => delete p.sellers);
    const r = await runCli(['check-anchors', '--root', root, '--json']);
    expect(r.code).toBe(1);
    expect(r.json.findings).toEqual(
      expect.arrayContaining([expect.objectContaining({ code: 'TRUST_SELLERS_MISSING', file: POLICY, field: '/sellers' })]),
    );
  });

  it('the explicit weakened "sellers": "any" freezes', async () => {
    const root = study();
    editJson(root, POLICY, (p) => (p.sellers = 'any'));
    const r = await runCli(['freeze', '--root', root, '--replace', '--reason', 'test refreeze', '--json']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
  });

  it('the example study passes every check (freeze exit 0, check-anchors OK)', async () => {
    const root = study();
    // Frozen afresh from the same files: the same freeze_digest, which the example's anchor witnesses.
    rmSync(join(root, 'preregistration/freeze.json'));
    expect((await runCli(['freeze', '--root', root])).code).toBe(0);
    const r = await runCli(['check-anchors', '--root', root, '--json']);
    expect([r.code, r.json.reason_codes]).toEqual([0, []]);
  });
});
