// The deviations log at audit (SPEC §13.3, docs/deviations.md): every entry signed by the pinned
// operator key, under this freeze, dated by a TSA token (under the study's roots and the
// auditor's) not before the freeze's earliest anchor, the chain unbroken, the intake positions
// the intake log's (pipeline/deviations/log.ts decides); the inputs rail reports what is found,
// beside the digest the manifest recorded.
import { DEVIATION_LOG, verifyDeviationLog } from '../deviations/log.ts';
import type { AuditorRoots } from '../auditor/trust.ts';
import { PreregError, type ReasonCode } from '../reasons.ts';
import { loadFrozenStudy } from '../study/frozen-study.ts';
import type { LoadedStudy } from '../study/loaded-study.ts';
import { auditTsaTrust } from './intake.ts';
import type { Difference } from './rails.ts';

export interface DeviationsAudited {
  differences: Difference[];
  codes: ReasonCode[];
  /** How many entries the log holds up to its first bad line. */
  entries: number;
}

export async function auditDeviations(loaded: LoadedStudy, auditor: AuditorRoots | null): Promise<DeviationsAudited> {
  const none: DeviationsAudited = { differences: [], codes: [], entries: 0 };
  let state: ReturnType<typeof loadFrozenStudy>;
  try {
    state = loadFrozenStudy(loaded);
  } catch (err) {
    // A study that cannot be read as frozen is the other rails' finding.
    if (err instanceof PreregError) return none;
    throw err;
  }
  try {
    const v = await verifyDeviationLog(state, auditTsaTrust(state, auditor));
    return {
      differences: v.findings.map((f) => ({ file: DEVIATION_LOG, row: f.line, message: `${f.code}: ${f.message}` })),
      codes: v.findings.map((f) => f.code),
      entries: v.log.entries.length,
    };
  } catch (err) {
    if (!(err instanceof PreregError)) throw err;
    return {
      differences: [{ file: DEVIATION_LOG, message: `cannot be read: ${err.code}: ${err.message}` }],
      codes: [err.code],
      entries: 0,
    };
  }
}
