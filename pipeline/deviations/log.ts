// inputs/deviations.jsonl (SPEC §13.3, docs/deviations.md) for every command that reads it:
// `prereg deviation`, which extends it, emit, which reports it, and the audit, which checks it.
// The file is read whole up to a cap (a deviation is a few KiB; the log is small), its lines
// chained (evidence/deviations/records.ts) up to the first bad one, and every entry checked
// against the frozen study (evidence/deviations/check.ts): the pinned operator key, the freeze's
// earliest anchor, the intake log.
import { existsSync } from 'node:fs';
import { checkDeviations, type CheckedDeviation, type DeviationFinding } from '../evidence/deviations/check.ts';
import { DeviationChain, type DeviationEntry } from '../evidence/deviations/records.ts';
import type { TsaTrust } from '../evidence/timestamp/index.ts';
import { verifyAnchors } from '../freeze/anchors.ts';
import { readIntakeLogFile } from '../intake/log.ts';
import { readRegularFileCapped } from '../io/regular-file.ts';
import { utcMillis } from '../formats/utc-instant.ts';
import type { StudyLayout } from '../layout.ts';
import { PreregError } from '../reasons.ts';
import type { FrozenStudy } from '../study/frozen-study.ts';

export const DEVIATION_LOG = 'inputs/deviations.jsonl';
/** Far above any real log (thousands of deviations), so that no file can exhaust memory. */
export const MAX_DEVIATION_LOG_BYTES = 16 * 1024 * 1024;

export interface DeviationLog {
  entries: DeviationEntry[];
  digests: string[];
  /** The log's exact bytes (empty when there is none). */
  bytes: Buffer;
  /** The first bad line (1-based) and what is wrong with it. */
  problem: { line: number; message: string } | null;
}

/** The log, read up to its first bad line; no file is an empty log. Over the cap: DEVIATION_LOG_INVALID. */
export function readDeviationLogFile(layout: StudyLayout): DeviationLog {
  const chain = new DeviationChain();
  if (!existsSync(layout.deviations)) return { entries: [], digests: [], bytes: Buffer.alloc(0), problem: null };
  const bytes = readRegularFileCapped(layout.deviations, MAX_DEVIATION_LOG_BYTES);
  if (bytes === null)
    throw new PreregError(
      'DEVIATION_LOG_INVALID',
      `${DEVIATION_LOG} is larger than ${MAX_DEVIATION_LOG_BYTES} bytes: \`prereg deviation\` writes a few KiB per deviation`,
      { file: DEVIATION_LOG },
    );
  const out = (problem: DeviationLog['problem']): DeviationLog => ({ entries: chain.entries, digests: chain.digests, bytes, problem });
  const text = bytes.toString('utf8');
  if (!Buffer.from(text, 'utf8').equals(bytes)) return out({ line: 1, message: 'is not valid UTF-8' });
  const lines = text.split('\n');
  const last = lines.pop();
  if (last !== '') lines.push(last!);
  for (const [i, line] of lines.entries()) {
    // The last line, cut short, is no entry.
    if (i === lines.length - 1 && last !== '')
      return out({ line: i + 1, message: 'the last line has no final newline (a write was cut short)' });
    const problem = chain.add(line);
    if (problem !== null) return out({ line: i + 1, message: problem });
  }
  return out(null);
}

/** What the checks stand on beside the log: the freeze's earliest witnessed time and the intake log's digests. */
export interface DeviationGrounds {
  frozenAt: string | null;
  intakeDigests: string[];
}

/** The grounds, read: the freeze's anchors verified under `tsaTrust`, the intake log's digests. */
export async function deviationGrounds(state: FrozenStudy, tsaTrust: TsaTrust): Promise<DeviationGrounds> {
  const { layout } = state.loaded;
  const anchors = await verifyAnchors(layout.anchors, state.freezeDigest, { study: tsaTrust, auditor: null }, state.frozen.window.opens_at);
  const times = anchors.filter((a) => a.ok && a.gen_time !== null).map((a) => a.gen_time!);
  const frozenAt = times.reduce<string | null>((min, t) => (min === null || utcMillis(t)! < utcMillis(min)! ? t : min), null);
  const intake = await readIntakeLogFile(layout.intakeLog, 'inputs/intake.jsonl');
  return { frozenAt, intakeDigests: intake.digests };
}

export interface VerifiedDeviations {
  log: DeviationLog;
  checked: CheckedDeviation[];
  /** Every finding, the log's broken line (DEVIATION_LOG_INVALID) included; `line` is the log's line. */
  findings: Array<DeviationFinding & { line: number }>;
}

/** The whole log checked against the frozen study, under `tsaTrust` (the study's roots, with the auditor's at audit). */
export async function verifyDeviationLog(state: FrozenStudy, tsaTrust: TsaTrust, known?: DeviationGrounds): Promise<VerifiedDeviations> {
  const log = readDeviationLogFile(state.loaded.layout);
  // No entry to check: neither the anchors nor the intake log (up to 128 MiB) need reading.
  // A caller that has the grounds already (`prereg deviation`) passes them: read once.
  const grounds = log.entries.length === 0 ? { frozenAt: null, intakeDigests: [] } : (known ?? (await deviationGrounds(state, tsaTrust)));
  const { checked, findings } = await checkDeviations(log.entries, log.digests, {
    study_id: state.study.study_id,
    freezeDigest: state.freezeDigest,
    operatorKey: state.loaded.operatorKey().key,
    tsaTrust,
    closesAt: state.frozen.window.closes_at,
    ...grounds,
  });
  const all = findings.map((f) => ({ ...f, line: f.seq + 1 }));
  if (log.problem !== null)
    all.push({ code: 'DEVIATION_LOG_INVALID', seq: log.entries.length, line: log.problem.line, message: log.problem.message });
  return { log, checked, findings: all };
}

/** For a command that stands on the log (emit, and `prereg deviation`, which extends it only when an auditor could check it): its first finding, as the refusal. */
export function refuseDeviationFindings(v: VerifiedDeviations): void {
  const first = v.findings[0];
  if (first === undefined) return;
  const more = v.findings.length > 1 ? ` (and ${v.findings.length - 1} more finding(s))` : '';
  throw new PreregError(first.code, `${DEVIATION_LOG}:${first.line}: ${first.message}${more}`, { file: DEVIATION_LOG, line: first.line });
}
