// What verification needs besides the evidence: the pinned trust material, the study window and
// the receipt-chain commitments, read once and passed to every worker as plain data.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { validateCommitmentLine, type ChainCommitment } from '../evidence/aer1-chain.ts';
import type { StudyWindow } from '../evidence/arkforge-proof.ts';
import type { VerifyContextInputs } from '../evidence/verify-task.ts';
import { readJsonLines } from '../io/json-files.ts';
import { loadTrust } from '../io/trust-files.ts';
import { EXIT, PreregError } from '../reasons.ts';

/** Outside a study, nothing bounds the time: every instant is inside this window. */
export const UNBOUNDED_WINDOW: StudyWindow = { opens_at: '1970-01-01T00:00:00Z', closes_at: '9999-12-31T23:59:59Z' };

export function readCommitments(path: string | null): ChainCommitment[] {
  if (path === null || !existsSync(path)) return [];
  const problems: string[] = [];
  const out = readJsonLines(path).map(({ line, value }) => {
    for (const p of validateCommitmentLine(value)) problems.push(`${path}:${line}: ${p}`);
    return value as ChainCommitment;
  });
  if (problems.length > 0) throw new PreregError('COMMITMENTS_INVALID', problems.join('\n'), EXIT.blocked, { path, problems });
  return out;
}

/** Builds (and so validates) the trust material once; workers rebuild it from the same inputs. */
export function verifyContextInputs(trustDir: string, window: StudyWindow, commitments: ChainCommitment[]): VerifyContextInputs {
  if (!existsSync(join(trustDir, 'policy.json'))) {
    throw new PreregError('FILE_NOT_FOUND', `${trustDir}/policy.json does not exist; pass --trust DIR`, EXIT.blocked);
  }
  return { trust: loadTrust(trustDir).material.inputs, window, commitments };
}

export function sha256OfFile(path: string): string | null {
  return existsSync(path) ? createHash('sha256').update(readFileSync(path)).digest('hex') : null;
}
