// Freeze checks the gold set against the corpus (SPEC §12.5, issue 22 item 3): an expected ref
// that no heading declares, and a negative item that expects something, are refused at freeze —
// before the deadline, while they can still be fixed — and nothing is written.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, scratchStudies } from '../support/cli.ts';

const study = scratchStudies();

function editKey(root: string, edit: (item: Record<string, unknown>) => void, which: 'positive' | 'negative'): void {
  const file = join(root, 'inputs/answer-key.jsonl');
  const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
  const i = lines.findIndex((l) => (JSON.parse(l) as { kind: string }).kind === which);
  const item = JSON.parse(lines[i]!) as Record<string, unknown>;
  edit(item);
  lines[i] = JSON.stringify(item);
  writeFileSync(file, `${lines.join('\n')}\n`);
}

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

describe('freeze checks the gold set against the corpus', () => {
  it("the example's key passes", async () => {
    expect((await freeze(study())).code).toBe(0);
  });

  it('refuses an expected ref that is not in the vocabulary (ANSWER_KEY_REF_UNKNOWN), in a citation or an amount, writing nothing', async () => {
    for (const edit of [
      (k: Record<string, unknown>) => void (k.expected_refs = ['R9999-9']),
      (k: Record<string, unknown>) => void (k.expected_amounts = [{ ref: 'R9999-9', value: '1', unit: 'EUR' }]),
    ]) {
      const root = study();
      const before = readFileSync(join(root, 'preregistration/freeze.json'));
      editKey(root, edit, 'positive');
      const r = await freeze(root);
      expect([r.code, r.json.code]).toEqual([3, 'ANSWER_KEY_REF_UNKNOWN']);
      expect(r.json.message).toContain('"R9999-9"');
      expect(readFileSync(join(root, 'preregistration/freeze.json'))).toEqual(before);
    }
  });

  // The operator whose key expects a wrong amount gains: every system that writes the article's
  // real amount fails the item. Freeze compares the key with the frozen text of the article it names.
  it('refuses an expected amount the frozen text of its article does not contain (ANSWER_KEY_AMOUNT_NOT_IN_CORPUS), writing nothing', async () => {
    const root = study();
    const before = readFileSync(join(root, 'preregistration/freeze.json'));
    // R2122-8 says "40 000 euros"; R2123-1 says 221 000 and 5 538 000 euros.
    editKey(root, (k) => void (k.expected_amounts = [{ ref: 'R2122-8', value: '5538000', unit: 'EUR' }]), 'positive');
    const r = await freeze(root);
    expect([r.code, r.json.code]).toEqual([3, 'ANSWER_KEY_AMOUNT_NOT_IN_CORPUS']);
    // The key's file and the item's line, the item, the amount, the article and what its text holds.
    expect(r.json.message).toBe(
      `${join(root, 'inputs/answer-key.jsonl')}:1: item mp-001 expects 5538000 EUR under R2122-8, whose frozen text holds 40000 (read with the study's amount pattern and separators); correct the amount or the ref, or mark it "derived" with its derivation in words`,
    );
    expect(r.json.details.problems).toEqual([r.json.message]);
    expect(readFileSync(join(root, 'preregistration/freeze.json'))).toEqual(before);
  });

  it("compares amounts as the classify stage extracts them: the study's decimal separator and group separators, trailing zeros", async () => {
    for (const value of ['40000', '40000.00']) {
      const root = study();
      editKey(root, (k) => void (k.expected_amounts = [{ ref: 'R2122-8', value, unit: 'EUR' }]), 'positive');
      expect((await freeze(root)).code, value).toBe(0);
    }
    // Amounts, not substrings: "40 000 euros" is the amount 40000; 40 is not found in it.
    const root = study();
    editKey(root, (k) => void (k.expected_amounts = [{ ref: 'R2122-8', value: '40', unit: 'EUR' }]), 'positive');
    expect((await freeze(root)).json.code).toBe('ANSWER_KEY_AMOUNT_NOT_IN_CORPUS');
  });

  it('exempts an amount marked derived (its derivation in words); an empty derivation is ANSWER_KEY_INVALID', async () => {
    const root = study();
    editKey(
      root,
      (k) =>
        void (k.expected_amounts = [
          { ref: 'R2123-1', value: '5759000', unit: 'EUR', derived: 'the sum of the two thresholds of R2123-1 (221 000 + 5 538 000)' },
        ]),
      'positive',
    );
    const r = await freeze(root);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const empty = study();
    editKey(empty, (k) => void (k.expected_amounts = [{ ref: 'R2123-1', value: '5759000', unit: 'EUR', derived: '' }]), 'positive');
    expect((await freeze(empty)).json.code).toBe('ANSWER_KEY_INVALID');
  });

  it('refuses a negative item that expects a ref (ANSWER_KEY_NEGATIVE_EXPECTS)', async () => {
    const root = study();
    editKey(root, (k) => void (k.expected_refs = ['R2122-8']), 'negative');
    const r = await freeze(root);
    expect([r.code, r.json.code]).toEqual([3, 'ANSWER_KEY_NEGATIVE_EXPECTS']);
  });
});

describe('freeze and doctor list a heading the vocabulary leaves out (VOCABULARY_HEADING_UNMATCHED)', () => {
  it('the example warns of nothing; a heading shaped like an identifier that no heading pattern matches is listed, and nothing is refused', async () => {
    const clean = await freeze(study());
    expect(clean.code).toBe(0);
    expect(clean.json.warnings).toEqual([]);

    const root = study();
    const file = join(root, 'corpus/ccag-travaux.md');
    const lines = readFileSync(file, 'utf8').split('\n');
    // `Art.` where the pattern expects `Article`: R2999-1 has the shape of an identifier, and is left out.
    lines.splice(3, 0, '## Art. R2999-1', '', 'Un article que le motif des titres ne déclare pas.', '');
    writeFileSync(file, lines.join('\n'));
    const r = await freeze(root);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.json.warnings).toEqual([
      'VOCABULARY_HEADING_UNMATCHED: corpus/ccag-travaux.md:4: "## Art. R2999-1" has an identifier\'s shape, but no heading pattern declares it (a citation of it is a PHANTOM)',
    ]);
    const text = await runCli([
      'freeze',
      '--replace',
      '--reason',
      'test refreeze',
      '--root',
      root,
      '--secret-file',
      join(root, 'inputs/answer-key.secret'),
    ]);
    expect(text.stdout).toContain('warning: VOCABULARY_HEADING_UNMATCHED: corpus/ccag-travaux.md:4');
    const doctor = await runCli(['doctor', '--root', root, '--json']);
    expect(doctor.json.warnings).toContain(r.json.warnings[0]);
    // A heading without any identifier's shape is no warning (the example's chapter titles).
    expect(lines.filter((l) => l.startsWith('## Chapitre')).length).toBeGreaterThan(0);
  });
});

describe("every hypothesis says why its threshold (the hypotheses view's reason)", () => {
  const plan = (root: string) => join(root, 'preregistration/PREREGISTRATION.md');
  it("freeze's dry run refuses a section 5 whose hypotheses have no reason column (SECTION5_VIEW_COLUMNS), or an empty one (SECTION5_VALUE_INVALID)", async () => {
    const text = readFileSync(plan(study()), 'utf8');
    const cases: Array<[string, string, string]> = [
      // hypothesis_plan names its columns: `why` instead of `reason`.
      [
        'no reason column',
        text
          .replace(
            'v(hypothesis_id, statement, threshold, direction, quantifier, reason)',
            'v(hypothesis_id, statement, threshold, direction, quantifier, why)',
          )
          .replace('p.quantifier, p.reason,', 'p.quantifier, p.why,')
          .replace('       reason, p_value, p_holm,', '       why, p_value, p_holm,'),
        'SECTION5_VIEW_COLUMNS',
      ],
      ['an empty reason', text.replace(/'a reader who checks one citation in twenty[^\n]*'/, "''"), 'SECTION5_VALUE_INVALID'],
    ];
    for (const [what, edited, code] of cases) {
      expect(edited, what).not.toBe(text);
      const root = study();
      const before = readFileSync(join(root, 'preregistration/freeze.json'));
      writeFileSync(plan(root), edited);
      const r = await freeze(root);
      expect([r.code, r.json.code], `${what}: ${r.stdout}`).toEqual([3, code]);
      expect(r.json.message).toContain('reason');
      expect(readFileSync(join(root, 'preregistration/freeze.json'))).toEqual(before);
    }
  });
});
