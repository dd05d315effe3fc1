// Worker-thread side of `prereg verify FILE|DIR…`: builds the trust material once per thread, then
// reads, parses and verifies each posted path (verify/file-task.ts), so the main thread only walks
// directories and prints.
import { buildVerifyContext, type VerifyContextInputs } from '../evidence/verify-task.ts';
import { verifyFile, type FileVerification } from '../verify/file-task.ts';

export async function createHandler(init: VerifyContextInputs): Promise<(batch: string[]) => Promise<FileVerification[]>> {
  const ctx = buildVerifyContext(init);
  return async (batch) => {
    const out: FileVerification[] = [];
    for (const file of batch) out.push(await verifyFile(file, ctx));
    return out;
  };
}
