// The revealed answer key (with its secret) against the frozen commitment: what `prereg
// reveal-check` reports and what scoring requires before it runs.
import { checkReveal } from '../study/answer-key.ts';
import type { LoadedStudy } from '../study/loaded-study.ts';
import { PreregError } from '../reasons.ts';
import { readAnswerKey, resolveSecret, SECRET_ENV } from './answer-key-file.ts';

/** Throws ANSWER_KEY_COMMITMENT_MISMATCH (exit 3) unless the revealed key reproduces the commitment. */
export function requireRevealedKey(loaded: LoadedStudy, keyPath: string, secretFile: string | undefined, env: NodeJS.ProcessEnv) {
  const frozen = loaded.frozen();
  const secret = resolveSecret(loaded.layout, secretFile, env);
  if (!secret) {
    throw new PreregError(
      'ANSWER_KEY_SECRET_MISSING',
      `no revealed secret: pass --secret-file, set $${SECRET_ENV} or add inputs/answer-key.secret`,
    );
  }
  const items = readAnswerKey(keyPath);
  const result = checkReveal(secret, items, frozen.answer_key);
  if (!result.ok) {
    throw new PreregError(
      'ANSWER_KEY_COMMITMENT_MISMATCH',
      `${keyPath} does not reproduce the frozen commitment: ${result.problems.join('; ')}`,
      {
        problems: result.problems,
      },
    );
  }
  return { items, root: frozen.answer_key.root };
}
