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

const freeze = (root: string) => runCli(['freeze', '--replace', '--root', root, '--secret-file', join(root, 'inputs/answer-key.secret'), '--json']);

describe('freeze checks the gold set against the corpus', () => {
  it('the example\'s key passes', async () => {
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

  it('refuses a negative item that expects a ref (ANSWER_KEY_NEGATIVE_EXPECTS)', async () => {
    const root = study();
    editKey(root, (k) => void (k.expected_refs = ['R2122-8']), 'negative');
    const r = await freeze(root);
    expect([r.code, r.json.code]).toEqual([3, 'ANSWER_KEY_NEGATIVE_EXPECTS']);
  });
});
