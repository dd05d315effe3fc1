// How a worker's handler runs a batch: one item after the other (the work is CPU-bound, and a
// worker thread is one core), results in the batch's order.

/** A batch handler that runs `each` on the items one after the other, in order. */
export function inTurn<TIn, TOut>(each: (item: TIn) => Promise<TOut>): (batch: TIn[]) => Promise<TOut[]> {
  return async (batch) => {
    const out: TOut[] = [];
    for (const item of batch) out.push(await each(item));
    return out;
  };
}
