// `prereg reveal-check`: does the revealed answer key (with its secret) reproduce the frozen
// commitment? Scoring runs the same check first and refuses on a mismatch.
import { checkReveal } from '../freeze/answer-key.ts';
import { readAnswerKey, resolveSecret, SECRET_ENV } from '../freeze/answer-key-file.ts';
import { loadFreezeRecord } from '../freeze/freeze-record.ts';
import { studyLayout, type StudyLayout } from '../layout.ts';
import { EXIT, PreregError } from '../reasons.ts';
import type { Command } from './stage.ts';

/** Throws ANSWER_KEY_COMMITMENT_MISMATCH (exit 3) unless the revealed key reproduces the commitment. */
export function requireRevealedKey(layout: StudyLayout, keyPath: string, secretFile: string | undefined, env: NodeJS.ProcessEnv) {
  const frozen = loadFreezeRecord(layout.freeze);
  const secret = resolveSecret(layout, secretFile, env);
  if (!secret) {
    throw new PreregError('ANSWER_KEY_SECRET_MISSING', `no revealed secret: pass --secret-file, set $${SECRET_ENV} or add inputs/answer-key.secret`, EXIT.blocked);
  }
  const items = readAnswerKey(keyPath);
  const result = checkReveal(secret, items, frozen.answer_key);
  if (!result.ok) {
    throw new PreregError('ANSWER_KEY_COMMITMENT_MISMATCH', `${keyPath} does not reproduce the frozen commitment: ${result.problems.join('; ')}`, EXIT.blocked, {
      problems: result.problems,
    });
  }
  return { items, root: frozen.answer_key.root };
}

export const revealCheck: Command = {
  name: 'reveal-check',
  summary: 'check that the revealed answer key reproduces the frozen commitment',
  help: [
    'usage: prereg reveal-check [--answer-key FILE] [--secret-file FILE] [--root DIR] [--json]',
    '',
    'Exit 0 when every item, field and the order reproduce the committed root; 3 otherwise',
    '(ANSWER_KEY_COMMITMENT_MISMATCH, naming the first differing line).',
  ].join('\n'),
  options: { 'answer-key': { type: 'string' }, 'secret-file': { type: 'string' } },
  stage: true,
  async run(ctx) {
    const layout = studyLayout(ctx.root);
    const keyPath = typeof ctx.values['answer-key'] === 'string' ? ctx.values['answer-key'] : layout.answerKey;
    const secretFile = typeof ctx.values['secret-file'] === 'string' ? ctx.values['secret-file'] : undefined;
    const { items, root } = requireRevealedKey(layout, keyPath, secretFile, ctx.env);
    return {
      exitCode: EXIT.ok,
      json: { ok: true, answer_key_root: root, item_count: items.length },
      text: `revealed key reproduces the commitment: ${items.length} items, root ${root}`,
    };
  },
};
