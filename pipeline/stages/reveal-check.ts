// `prereg reveal-check`: does the revealed answer key (with its secret) reproduce the frozen
// commitment? Scoring runs the same check first and refuses on a mismatch.
import { requireRevealedKey } from '../freeze/reveal.ts';
import { requireSealedIntake } from '../intake/files.ts';
import { loadStudyFiles } from '../study/loaded-study.ts';
import { studyLayout } from '../layout.ts';
import { EXIT } from '../reasons.ts';
import type { Command } from '../command.ts';

export const revealCheck: Command = {
  name: 'reveal-check',
  summary: 'check that the revealed answer key reproduces the frozen commitment',
  help: [
    'usage: prereg reveal-check [--answer-key FILE] [--secret-file FILE] [--root DIR] [--json]',
    '',
    'Exit 0 when every item, field and the order reproduce the committed root; 3 otherwise',
    '(ANSWER_KEY_COMMITMENT_MISMATCH, naming the first differing line). A study with sealed intake',
    'is refused before inputs/seal.json exists (SEAL_MISSING).',
  ].join('\n'),
  options: { 'answer-key': { type: 'string' }, 'secret-file': { type: 'string' } },
  stage: true,
  jsonSchema: () => 'prereg.reveal-check/1',
  async run(ctx) {
    const layout = studyLayout(ctx.root);
    const keyPath = typeof ctx.values['answer-key'] === 'string' ? ctx.values['answer-key'] : layout.answerKey;
    const secretFile = typeof ctx.values['secret-file'] === 'string' ? ctx.values['secret-file'] : undefined;
    // Sealed intake: the answer key is revealed only after the submissions are sealed (SPEC §12.2).
    const loaded = loadStudyFiles(layout);
    requireSealedIntake(loaded, Date.now(), true);
    const { items, root } = requireRevealedKey(loaded, keyPath, secretFile, ctx.env);
    return {
      exitCode: EXIT.ok,
      json: { ok: true, answer_key_root: root, item_count: items.length },
      text: `revealed key reproduces the commitment: ${items.length} items, root ${root}`,
    };
  },
};
