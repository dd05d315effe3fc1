// Worker-thread side of verification: builds the trust material once per thread (keys and TSA
// certificates decoded once, not per proof), then verifies batches.
import { buildVerifyContext, runVerifyTask, type VerifyContextInputs, type VerifyOutcome, type VerifyTask } from '../evidence/task/index.ts';

export async function createHandler(init: VerifyContextInputs): Promise<(batch: VerifyTask[]) => Promise<VerifyOutcome[]>> {
  const ctx = buildVerifyContext(init);
  return async (batch) => {
    const out: VerifyOutcome[] = [];
    for (const task of batch) out.push(await runVerifyTask(task, ctx));
    return out;
  };
}
