// Which request may follow which (docs/intake.md, "Versions"): only the participant says which of
// its files is the newest. Each /2 request carries a version (1 for the system's first of a kind)
// and the request digest of the one it supersedes, both under its signature, so the operator can
// neither replay an older request after a newer one nor invent a successor. A /1 request (before
// versions, read in old logs only) counts as version 0. Pure: requests in, problems out.
import { GENESIS_PREV, requestDigest, type IntakeEntry, type IntakeRequest } from './records.ts';

/** The request's version; 0 for a /1 request, which has none. */
export function requestVersion(r: IntakeRequest): number {
  return r.version ?? 0;
}

const chainKey = (r: IntakeRequest): string => `${r.system_id}\u0000${r.kind}`;

/** The last request taken in for `next`'s system and kind, or undefined. */
export function lastRequestOf(entries: readonly IntakeEntry[], next: IntakeRequest): IntakeRequest | undefined {
  const key = chainKey(next);
  for (let i = entries.length - 1; i >= 0; i--) if (chainKey(entries[i]!.request) === key) return entries[i]!.request;
  return undefined;
}

/** Null when `next` may follow `last` (the last request taken in for its system and kind; undefined: none); else why not. */
export function successorProblem(last: IntakeRequest | undefined, next: IntakeRequest): string | null {
  const whose = `${JSON.stringify(next.system_id)}'s ${next.kind}`;
  if (next.version === undefined) {
    // Old logs: /1 requests among themselves are read as they were; never after a versioned one.
    return last === undefined || last.version === undefined
      ? null
      : `an unversioned prereg.intake-request/1 of ${whose} after its version ${last.version}`;
  }
  const version = last === undefined ? 1 : requestVersion(last) + 1;
  const supersedes = last === undefined ? GENESIS_PREV : requestDigest(last);
  if (next.version === version && next.supersedes === supersedes) return null;
  const held =
    last === undefined
      ? 'no request of it was taken in before'
      : `the last one taken in is version ${requestVersion(last)} (request digest ${supersedes})`;
  return `version ${next.version} of ${whose} (superseding ${next.supersedes}) is not the successor of the last request: ${held}; only version ${version} superseding ${supersedes} follows it`;
}

/** Every entry that is not the successor of the one before it of its system and kind: [0-based index, why]. */
export function chainProblems(entries: readonly IntakeEntry[]): Array<[number, string]> {
  const last = new Map<string, IntakeRequest>();
  const out: Array<[number, string]> = [];
  entries.forEach((e, i) => {
    const problem = successorProblem(last.get(chainKey(e.request)), e.request);
    if (problem !== null) out.push([i, problem]);
    last.set(chainKey(e.request), e.request);
  });
  return out;
}

/** The entry that holds `request` or a later version of its system and kind (the operator took it in, or what superseded it), or undefined. */
export function entryHoldingOrSuperseding(entries: readonly IntakeEntry[], request: IntakeRequest): IntakeEntry | undefined {
  const digest = requestDigest(request);
  const key = chainKey(request);
  return entries.find(
    (e) => chainKey(e.request) === key && (requestDigest(e.request) === digest || requestVersion(e.request) >= requestVersion(request)),
  );
}
