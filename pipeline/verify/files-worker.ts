// Worker-thread side of `prereg verify FILE|DIR…`: builds the trust material once per thread, then
// reads, parses and verifies each posted path (verify/file-task.ts), so the main thread only walks
// directories and prints.
import { buildVerifyContext, type VerifyContextInputs } from '../evidence/task/index.ts';
import { inTurn } from '../parallel/in-turn.ts';
import { verifyFile, type FileVerification } from './file-task.ts';

export async function createHandler(init: VerifyContextInputs): Promise<(batch: string[]) => Promise<FileVerification[][]>> {
  const ctx = buildVerifyContext(init);
  return inTurn((file) => verifyFile(file, ctx));
}
