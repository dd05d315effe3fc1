// The classes are part of the frozen plan (SPEC §13.1, issue 34 item 6): study.json `classes`
// declares the class values section 5 may produce beyond the built-in set, each with a one-line
// meaning the report shows, and freeze refuses (SECTION5_VALUE_INVALID, exit 3, nothing written,
// nothing to anchor) a section 5 that could class an assertion outside them — by a quoted literal
// that can reach a class column, or by a branch the product's fixture of every combination of
// base-table flags reaches. Found at `run`, after the deadline, the same plan leaves the study with
// no result. Who gains: an operator who would rather publish nothing than an unwelcome result
// plants a branch that fires on some data only, and calls the refusal at `run` an accident.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { articlePassages } from '../../scripts/generate-example-submissions.ts';
import { PROJECT_ROOT, runCli, scratchStudies, TEST_OPERATOR_ARGS } from '../support/cli.ts';
import { auditorFlags, publishedFreezeDigest } from '../support/auditor.ts';
import { buildSmallStudy } from '../support/small-study.ts';

const study = scratchStudies();
const PLAN = 'preregistration/PREREGISTRATION.md';
const STUDY = 'preregistration/study.json';

/** The example's amount macro, as section 5 writes it; each test replaces one of its branches. */
const ELSE_INVENTED = "       ELSE 'AMOUNT_INVENTED' END;";
/** The 1-based line of the example plan that starts with `text`. */
const lineOf = (text: string) =>
  readFileSync(join(PROJECT_ROOT, PLAN), 'utf8')
    .split('\n')
    .findIndex((l) => l.startsWith(text)) + 1;

const editPlan = (root: string, from: string, to: string) => {
  const path = join(root, PLAN);
  const before = readFileSync(path, 'utf8');
  expect(before).toContain(from);
  writeFileSync(path, before.replace(from, to));
};
const withClasses = (root: string, classes: Record<string, string>) => {
  const path = join(root, STUDY);
  writeFileSync(path, `${JSON.stringify({ ...JSON.parse(readFileSync(path, 'utf8')), classes }, null, 2)}\n`);
};
const freeze = (root: string) =>
  runCli([
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

/** freeze refused the plan: exit 3, the code, and neither freeze.json nor the anchors changed. */
async function expectRefused(root: string, code: string) {
  const frozen = readFileSync(join(root, 'preregistration/freeze.json'), 'utf8');
  const anchors = readdirSync(join(root, 'preregistration/anchors')).sort();
  const r = await freeze(root);
  expect([r.code, r.json.code], r.stdout).toEqual([3, code]);
  expect(readFileSync(join(root, 'preregistration/freeze.json'), 'utf8')).toBe(frozen);
  expect(readdirSync(join(root, 'preregistration/anchors')).sort()).toEqual(anchors);
  return r;
}

describe('freeze refuses a section 5 that could produce an undeclared class', () => {
  const REFUSED: Array<{ what: string; branch: string; says: string[] }> = [
    {
      what: 'a quoted class literal the study does not declare: AMOUNT_UNHEARD_OF, named with its line',
      branch: "'AMOUNT_UNHEARD_OF'",
      says: ['AMOUNT_UNHEARD_OF', `${PLAN}:${lineOf(ELSE_INVENTED)}`, 'classes'],
    },
    // Neither served nor the key's amount: only then is upper('amount_unheard_of') reached.
    {
      what: 'a class computed in a branch only one combination of flags reaches (no literal to see): the fixture run finds it',
      branch: "upper('amount_unheard_of')",
      says: ['AMOUNT_UNHEARD_OF', 'assertion_classes.class_'],
    },
    {
      what: 'a branch that leaves the class empty on some combination of flags (ELSE NULL, as a CASE without ELSE)',
      branch: 'NULL',
      says: ['NULL', 'assertion_classes.class_'],
    },
  ];
  for (const c of REFUSED) {
    it(`refuses ${c.what}`, async () => {
      const root = study();
      editPlan(root, ELSE_INVENTED, `       ELSE ${c.branch} END;`);
      const r = await expectRefused(root, 'SECTION5_VALUE_INVALID');
      for (const text of c.says) expect(r.json.message).toContain(text);
    });
  }

  it("a literal that is only compared, and a study's own UPPER_SNAKE values outside the class columns (hypothesis ids, outcomes), are not classes", async () => {
    const root = study();
    // The example compares 'AMOUNT_INVENTED' in its scores and writes 'H1'…'H5', 'SUPPORTED': accepted as is.
    expect((await freeze(root)).code).toBe(0);
    editPlan(
      root,
      "  CASE WHEN served THEN 'AMOUNT_SUPPORTED'",
      "  CASE WHEN 'AMOUNT_FOO' = 'AMOUNT_BAR' THEN 'AMOUNT_INVENTED' WHEN served THEN 'AMOUNT_SUPPORTED'",
    );
    expect((await freeze(root)).code).toBe(0);
  });

  it('accepts the same plan once study.json declares the class with its meaning', async () => {
    const root = study();
    editPlan(root, ELSE_INVENTED, "       ELSE 'AMOUNT_UNHEARD_OF' END;");
    withClasses(root, { AMOUNT_UNHEARD_OF: 'an amount no served passage holds and the key does not expect' });
    const r = await freeze(root);
    expect(r.code, r.stdout).toBe(0);
  });

  it('refuses a declaration that redefines a built-in class, or a class that is not UPPER_SNAKE (STUDY_INVALID)', async () => {
    for (const classes of [{ AMOUNT_INVENTED: 'something else' }, { 'amount-odd': 'lower case' }, { AMOUNT_ODD: '' }] as Array<
      Record<string, string>
    >) {
      const root = study();
      withClasses(root, classes);
      const r = await expectRefused(root, 'STUDY_INVALID');
      expect(r.json.message).toContain('/classes');
    }
  });
});

describe('a class the study declares, through run: the report shows its meaning', () => {
  const MEANING = 'an amount no served passage holds and the key does not expect';
  const passages = articlePassages(join(PROJECT_ROOT, 'corpus'), ['code-commande-publique/partie-reglementaire.md']);
  let report: string;
  let results: { assertion_classes: Array<Record<string, unknown>> };
  let audited: Awaited<ReturnType<typeof runCli>>;
  let cleanup: () => void;
  beforeAll(async () => {
    const s = await buildSmallStudy(
      [
        // 45 000 euros is neither served (R2122-8 writes 40 000) nor the key's amount for mp-001.
        {
          system: 'sys-a',
          item: 'mp-001',
          attempt: 1,
          text: "Selon l'article R2122-8, le seuil est de 45 000 euros.",
          passages: [{ ref: 'R2122-8', text: passages.get('R2122-8')! }],
        },
        {
          system: 'sys-b',
          item: 'mp-001',
          attempt: 1,
          text: "Selon l'article R2122-8, le seuil est de 40 000 euros.",
          passages: [{ ref: 'R2122-8', text: passages.get('R2122-8')! }],
        },
      ],
      {
        editStudy: (text) => JSON.stringify({ ...JSON.parse(text), classes: { AMOUNT_UNHEARD_OF: MEANING } }, null, 2),
        editPlan: (text) => text.replace(ELSE_INVENTED, "       ELSE 'AMOUNT_UNHEARD_OF' END;"),
      },
    );
    cleanup = s.cleanup;
    const r = await runCli(['run', '--root', s.root, '--outputs', join(s.root, 'outputs'), ...TEST_OPERATOR_ARGS, '--json']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    report = readFileSync(join(r.json.dir, 'report.md'), 'utf8');
    results = JSON.parse(readFileSync(join(r.json.dir, 'results.json'), 'utf8'));
    audited = await runCli(['audit', r.json.dir, '--root', s.root, ...auditorFlags(publishedFreezeDigest(s.root)), '--json']);
  });
  afterAll(() => cleanup());

  it("classes the invented amount with the study's own class, and the report gives its meaning", () => {
    const amounts = results.assertion_classes
      .filter((a) => a.kind === 'amount')
      .map((a) => [a.system_id, a.class_declared, a.class_proven]);
    expect(amounts).toEqual([
      ['sys-a', 'AMOUNT_UNHEARD_OF', 'AMOUNT_UNHEARD_OF'],
      ['sys-b', 'AMOUNT_SUPPORTED', 'AMOUNT_SUPPORTED'],
    ]);
    // report.md escapes Markdown's `_`.
    expect(report).toContain(`| AMOUNT\\_UNHEARD\\_OF | ${MEANING} |`);
  });

  it("audits VALID: the audit's rerun accepts the declared class and reproduces the report", () => {
    expect([audited.code, audited.json.verdict], audited.stdout).toEqual([0, 'valid']);
  });
});

// The limit the docs state: a class computed from the data at run time, which neither a literal
// nor the fixture shows, passes the freeze; `run` still refuses it, writing nothing, and the study
// then has no result.
describe('a class computed from the data at run time', () => {
  it('passes the freeze, and run refuses it (exit 3, SECTION5_VALUE_INVALID), writing no outputs', async () => {
    const passages = articlePassages(join(PROJECT_ROOT, 'corpus'), ['code-commande-publique/partie-reglementaire.md']);
    const s = await buildSmallStudy(
      [
        {
          system: 'sys-a',
          item: 'mp-001',
          attempt: 1,
          text: "Selon l'article R2122-8, le seuil est de 45 000 euros.",
          passages: [{ ref: 'R2122-8', text: passages.get('R2122-8')! }],
        },
      ],
      {
        // Only an amount of 45 000 — a value no fixture row holds — takes the computed class.
        editPlan: (text) =>
          text.replace(
            'ELSE amount_class(amount_served_declared, key_amount) END AS class_declared',
            "ELSE CASE WHEN value = '45000' THEN upper('amount_odd') ELSE amount_class(amount_served_declared, key_amount) END END AS class_declared",
          ),
      },
    );
    try {
      const outputs = join(s.root, 'outputs');
      const r = await runCli(['run', '--root', s.root, '--outputs', outputs, ...TEST_OPERATOR_ARGS, '--json']);
      expect([r.code, r.json.code], r.stdout).toEqual([3, 'SECTION5_VALUE_INVALID']);
      expect(r.json.message).toContain('AMOUNT_ODD');
      expect(existsSync(outputs) ? readdirSync(outputs) : []).toEqual([]);
    } finally {
      s.cleanup();
    }
  });
});
