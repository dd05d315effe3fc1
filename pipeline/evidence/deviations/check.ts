// What the audit, emit and `prereg deviation` check of each deviation entry once its line is in
// the chain (records.ts): signed by the pinned operator key, under this study's freeze, dated by a
// TSA token over its digest, not before the freeze's earliest anchor nor before the entry before
// it, and naming a position of the intake log no earlier than the previous entry's. Pure: keys,
// roots, the intake log's digests and the freeze's time come in; findings go out.
import type { KeyObject } from 'node:crypto';
import { verifyCanonical } from '../intake/ed25519.ts';
import { GENESIS_PREV } from '../intake/records.ts';
import { verifyTimestampToken, type TsaTrust } from '../timestamp/index.ts';
import { utcMillis } from '../../formats/utc-instant.ts';
import type { ReasonCode } from '../../reasons.ts';
import { deviationPayload, type DeviationEntry } from './records.ts';

export interface DeviationContext {
  study_id: string;
  freezeDigest: string;
  /** The pinned operator_public_key. */
  operatorKey: KeyObject;
  tsaTrust: TsaTrust;
  /** The earliest genTime of the freeze's anchors that verify; null when none does (the anchors' own finding). */
  frozenAt: string | null;
  /** closes_at: a deviation dated at or after it was recorded after the submissions were seen. */
  closesAt: string;
  /** The intake log's entry digests, in order (empty when there is none). */
  intakeDigests: readonly string[];
}

export interface DeviationFinding {
  code: ReasonCode;
  seq: number;
  message: string;
}

/** A deviation as the report shows it. */
export interface CheckedDeviation {
  seq: number;
  text: string;
  /** The token's genTime (null when the token does not verify). */
  gen_time: string | null;
  /** Who dated it: the token's signer (or TSA name). */
  witness: string | null;
  /** How many intake entries the log held when the deviation was signed. */
  intake_entries: number;
  /** Dated at or after closes_at: recorded after the submissions were seen. */
  after_submissions: boolean;
}

/** A deviation dated before the freeze's earliest anchor: one rule for the command (refusal) and the check (finding). */
export function deviationTimeFinding(genTime: string, frozenAt: string | null): string | null {
  if (frozenAt === null || utcMillis(genTime)! >= utcMillis(frozenAt)!) return null;
  return `dated ${genTime}, before the freeze's earliest anchor (${frozenAt})`;
}

/** A deviation dated before the one before it (null when in order, or when there is none): one rule for the command and the check. */
export function deviationOrderFinding(genTime: string, previousGenTime: string | null): string | null {
  if (previousGenTime === null || utcMillis(genTime)! >= utcMillis(previousGenTime)!) return null;
  return `dated ${genTime}, before the entry before it (${previousGenTime})`;
}

/** Whether a deviation dated `genTime` was recorded after the submissions were seen (at or after closes_at). */
export function afterSubmissions(genTime: string, closesAt: string): boolean {
  return utcMillis(genTime)! >= utcMillis(closesAt)!;
}

/** The problem with an intake position {entries, head} against the intake log, or null. */
export function intakePositionProblem(position: DeviationEntry['intake'], intakeDigests: readonly string[]): string | null {
  if (position.entries > intakeDigests.length)
    return `names intake entry ${position.entries - 1}, but inputs/intake.jsonl holds ${intakeDigests.length} entr${intakeDigests.length === 1 ? 'y' : 'ies'}`;
  const head = position.entries === 0 ? GENESIS_PREV : intakeDigests[position.entries - 1]!;
  if (position.head !== head)
    return `names intake head ${position.head} after ${position.entries} entr${position.entries === 1 ? 'y' : 'ies'}; inputs/intake.jsonl has ${head} there`;
  return null;
}

/** Every entry checked, in order; `digests` are the entries' digests (records.ts deviationDigest). */
export async function checkDeviations(
  entries: readonly DeviationEntry[],
  digests: readonly string[],
  ctx: DeviationContext,
): Promise<{ checked: CheckedDeviation[]; findings: DeviationFinding[] }> {
  const findings: DeviationFinding[] = [];
  const checked: CheckedDeviation[] = [];
  let previous: { genTime: string | null; intakeEntries: number } = { genTime: null, intakeEntries: 0 };
  for (const [i, e] of entries.entries()) {
    const found = (code: ReasonCode, message: string) => findings.push({ code, seq: e.seq, message: `deviation ${e.seq}: ${message}` });
    if (e.study_id !== ctx.study_id || e.freeze_digest !== ctx.freezeDigest) {
      found(
        'DEVIATION_FREEZE_MISMATCH',
        `names study ${JSON.stringify(e.study_id)} under freeze ${e.freeze_digest}; the study is ${JSON.stringify(ctx.study_id)} under ${ctx.freezeDigest}`,
      );
    }
    if (!verifyCanonical(ctx.operatorKey, deviationPayload(e), e.signature))
      found(
        'DEVIATION_SIGNATURE_INVALID',
        'its signature does not verify with the pinned operator_public_key (the entry was edited, or another key signed it)',
      );
    const token = await verifyTimestampToken(Buffer.from(e.token, 'base64'), Buffer.from(digests[i]!, 'hex'), ctx.tsaTrust);
    const genTime = token.ok ? token.genTime! : null;
    if (genTime === null)
      found(
        'DEVIATION_TOKEN_INVALID',
        `its token does not witness the entry digest ${digests[i]} under the given roots (${token.reason_codes.join(', ')})`,
      );
    else {
      const early = deviationTimeFinding(genTime, ctx.frozenAt);
      if (early) found('DEVIATION_BEFORE_FREEZE', early);
      const unordered = deviationOrderFinding(genTime, previous.genTime);
      if (unordered) found('DEVIATION_LOG_INVALID', `${unordered}: the log was reordered`);
    }
    const position = intakePositionProblem(e.intake, ctx.intakeDigests);
    if (position) found('DEVIATION_INTAKE_MISMATCH', position);
    else if (e.intake.entries < previous.intakeEntries)
      found(
        'DEVIATION_INTAKE_MISMATCH',
        `names ${e.intake.entries} intake entries, fewer than the deviation before it (${previous.intakeEntries})`,
      );
    checked.push({
      seq: e.seq,
      text: e.text,
      gen_time: genTime,
      witness: token.signerSubject ?? token.tsaName ?? null,
      intake_entries: e.intake.entries,
      after_submissions: genTime !== null && afterSubmissions(genTime, ctx.closesAt),
    });
    previous = { genTime: genTime ?? previous.genTime, intakeEntries: Math.max(previous.intakeEntries, e.intake.entries) };
  }
  return { checked, findings };
}
