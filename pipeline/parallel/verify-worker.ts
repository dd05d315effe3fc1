// Worker-thread side of verification: builds the trust material once per thread (keys and TSA
// certificates decoded once, not per proof), then verifies batches.
import { buildVerifyContext, runVerifyTask, type VerifyContextInputs, type VerifyOutcome, type VerifyTask } from '../evidence/task/index.ts';

/** A batch handler that runs `each` on the items one after the other (verification is CPU-bound), in order. */
export function inTurn<TIn, TOut>(each: (item: TIn) => Promise<TOut>): (batch: TIn[]) => Promise<TOut[]> {
  return async (batch) => {
    const out: TOut[] = [];
    for (const item of batch) out.push(await each(item));
    return out;
  };
}

export async function createHandler(init: VerifyContextInputs): Promise<(batch: VerifyTask[]) => Promise<VerifyOutcome[]>> {
  const ctx = buildVerifyContext(init);
  return inTurn((task) => runVerifyTask(task, ctx));
}
