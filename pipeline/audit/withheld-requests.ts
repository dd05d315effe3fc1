// Withholding, judged at audit (docs/intake.md, "Dated requests"): a participant's request whose
// token — over its request digest, under one of the AUDITOR's roots — is dated before closes_at,
// signed by its system's registered agent key under this freeze, that the log holds neither as an
// entry nor through a later version of the same system and kind, is INTAKE_REQUEST_WITHHELD: the
// operator left out a file the participant signed in time. Anything less proves nothing against
// the operator (a note): a participant must not get a study declared invalid with a forged or
// undated request. A later version in the log answers the claim even when it does not name this
// request (a participant that signs two versions of one number forked its own chain).
import { requestDigest, requestProblems, INTAKE_REQUEST_FORMAT, type IntakeEntry, type IntakeRequest } from '../evidence/intake/records.ts';
import { entryHoldingOrSuperseding } from '../evidence/intake/request-chain.ts';
import { requestRefusal, type AgentKeyRegistry } from '../evidence/intake/requests.ts';
import { verifyTimestampToken, type TsaTrust } from '../evidence/timestamp/index.ts';
import { utcMillis } from '../formats/utc-instant.ts';
import type { DatedRequest } from '../intake/dated-requests.ts';

export interface WithheldOptions {
  /** The log's entries as verified (the intake rail fails on its own when they are not the sealed ones). */
  entries: readonly IntakeEntry[];
  registry: AgentKeyRegistry;
  freezeDigest: string;
  closesAt: string;
  /** The auditor's own roots; null when it gave none (no token can then date a request). */
  auditorTsa: TsaTrust | null;
}

export interface WithheldOutcome {
  /** Against the operator: each fails the intake rail. */
  withheld: Array<{ file: string; message: string }>;
  /** Requests that prove nothing against the operator, and why. */
  notes: string[];
  /** Requests the log holds (or a later version of). */
  held: number;
}

export async function withheldRequests(given: readonly DatedRequest[], options: WithheldOptions): Promise<WithheldOutcome> {
  const out: WithheldOutcome = { withheld: [], notes: [], held: 0 };
  for (const r of given) {
    const why = await provesNothing(r, options);
    if (why !== null) {
      out.notes.push(`${r.file}: ${why} (proves nothing against the operator)`);
      continue;
    }
    const request = r.value as IntakeRequest;
    const digest = requestDigest(request);
    const holding = entryHoldingOrSuperseding(options.entries, request);
    if (holding !== undefined) {
      out.held++;
      continue;
    }
    out.withheld.push({
      file: r.file,
      message: `version ${request.version} of ${JSON.stringify(request.system_id)}'s ${request.kind} (request digest ${digest}), signed by its agent key and dated before closes_at ${options.closesAt}, is not in the log, nor any later version of it: the operator left it out`,
    });
  }
  return out;
}

/** Why the request proves nothing against the operator, or null when it stands. */
async function provesNothing(r: DatedRequest, options: WithheldOptions): Promise<string | null> {
  const problems = requestProblems(r.value);
  if (problems.length > 0) return `INTAKE_REQUEST_INVALID: ${problems.join('; ')}`;
  const request = r.value as IntakeRequest;
  if (request.format !== INTAKE_REQUEST_FORMAT) return `INTAKE_REQUEST_INVALID: a ${request.format} carries no version`;
  const refusal = requestRefusal(request, options.registry, options.freezeDigest);
  if (refusal !== null) return `${refusal.code}: ${refusal.message}`;
  if (r.token === null) return 'INTAKE_TOKEN_INVALID: no token beside it: the request is undated';
  if (options.auditorTsa === null) return 'INTAKE_TOKEN_INVALID: no --tsa-root given: its date cannot be checked';
  const token = await verifyTimestampToken(r.token, Buffer.from(requestDigest(request), 'hex'), options.auditorTsa);
  if (!token.ok)
    return `INTAKE_TOKEN_INVALID: its token does not date its request digest under the auditor's roots (${token.reason_codes.join(', ')})`;
  if (utcMillis(token.genTime!)! >= utcMillis(options.closesAt)!)
    return `INTAKE_LATE: dated ${token.genTime}, not before closes_at ${options.closesAt}`;
  return null;
}
