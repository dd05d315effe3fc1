// Worker-thread side of `prereg verify FILE|DIR…`: builds the trust material once per thread, then
// reads, parses and verifies each posted path (verify/file-task.ts), so the main thread only walks
// directories and prints.
import { buildVerifyContext, type VerifyContextInputs } from '../evidence/verify-task.ts';
import { verifyFile, type FileVerification } from '../verify/file-task.ts';
import { inTurn } from './verify-worker.ts';

export async function createHandler(init: VerifyContextInputs): Promise<(batch: string[]) => Promise<FileVerification[]>> {
  const ctx = buildVerifyContext(init);
  return inTurn((file) => verifyFile(file, ctx));
}
