// Which freezes the audited study answers for (SPEC §13.4): a receipt the operator signed under
// any other freeze of the same study is equivocation. Today the chain is the audited freeze alone;
// an amendment chain (each freeze naming its predecessor, anchored before opens_at) will add its
// predecessors here, and nowhere else.
import type { loadFrozenStudy } from '../study/frozen-study.ts';

/** The freeze digests the audited freeze chain accounts for. */
export function accountedFreezeDigests(state: Pick<ReturnType<typeof loadFrozenStudy>, 'freezeDigest'>): ReadonlySet<string> {
  return new Set([state.freezeDigest]);
}
