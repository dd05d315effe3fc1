// The intake rail (SPEC §12.2): the sealed intake holds — the log's chain, each request signed by
// its system's frozen agent key under this freeze, each entry's token, the seal over the log and
// the final files, its anchors inside [closes_at, closes_at + seal_within_s], every input file
// equal to its sealed leaf (pipeline/intake/verify-log.ts decides; this file turns its findings
// into a rail). With the auditor's participants' receipts (`--receipt`), one whose entry the seal
// left out is INTAKE_RECEIPT_NOT_SEALED: the operator signed that it received a file and dropped
// it. With their dated requests (`--request`, pipeline/audit/withheld-requests.ts), one the log
// holds neither as an entry nor through a later version is INTAKE_REQUEST_WITHHELD. Whose roots the tokens chain to is the trust rail's question: here every token is checked
// under the study's roots and the auditor's together.
import { existsSync } from 'node:fs';
import { loadTsaTrust, type TsaTrust } from '../evidence/timestamp/index.ts';
import type { LoadedStudy } from '../study/loaded-study.ts';
import { loadFrozenStudy, type FrozenStudy } from '../study/frozen-study.ts';
import {
  againstOperator,
  checkReceipts,
  failsIntake,
  receiptFailures,
  verifyIntakeLog,
  type ReceiptCheck,
  type TokenRoot,
} from '../intake/verify-log.ts';
import { readJsonFile } from '../io/json-files.ts';
import { PreregError, type ReasonCode } from '../reasons.ts';
import { intakeOf } from '../study/study.ts';
import type { AuditorOperatorKey, AuditorRoots } from '../auditor/trust.ts';
import type { DatedRequest } from '../intake/dated-requests.ts';
import { accountedFreezeDigests } from '../intake/identity.ts';
import { readFreezeChain } from '../study/freeze-chain.ts';
import { railOf, type Difference, type Rail } from './rails.ts';
import { withheldRequests } from './withheld-requests.ts';

/** What the trust rail needs from the intake: the roots its tokens chained to, and the receipts that pin the freeze. */
export interface IntakeSeen {
  tokenRoots: TokenRoot[];
  /** Receipts whose entry is sealed, under the study's freeze: each pins freeze_digest. */
  pinningReceipts: string[];
}

/** A participant's receipt as the auditor obtained it; FILE_NOT_FOUND (exit 3) when it does not exist. */
export function readReceipts(files: readonly string[]): Array<{ file: string; value: unknown }> {
  return files.map((file) => {
    if (!existsSync(file)) throw new PreregError('FILE_NOT_FOUND', `--receipt ${file}: no such file`, { path: file });
    return { file, value: readJsonFile(file) };
  });
}

/** Receipt findings not against the operator (a participant could write them, or informational): listed, never failing. */
function receiptNotes(checks: readonly ReceiptCheck[]): string[] {
  return checks.flatMap((c) =>
    c.findings.filter((f) => !againstOperator(f)).map((f) => `${c.file}: ${f.code} (proves nothing against the operator): ${f.message}`),
  );
}

/** Integrity under every root either party names (the study's and the auditor's); the trust rail asks whose root each token used. */
export function auditTsaTrust(state: FrozenStudy, auditor: AuditorRoots | null): TsaTrust {
  const inputs = state.trust.material.inputs;
  return auditor ? loadTsaTrust([...inputs.tsaRootPems, ...auditor.pems], inputs.tsaCertPems ?? []) : state.trust.tsa;
}

export async function intakeRail(
  loaded: LoadedStudy,
  given: { roots: AuditorRoots | null; operatorKey: AuditorOperatorKey | null },
  receipts: ReadonlyArray<{ file: string; value: unknown }>,
  requests: readonly DatedRequest[] = [],
): Promise<{ rail: Rail; seen: IntakeSeen }> {
  const auditor = given.roots;
  const { layout } = loaded;
  const seen: IntakeSeen = { tokenRoots: [], pinningReceipts: [] };
  let state: ReturnType<typeof loadFrozenStudy>;
  try {
    state = loadFrozenStudy(loaded);
  } catch (err) {
    if (!(err instanceof PreregError)) throw err;
    return {
      rail: railOf(
        'intake',
        '',
        [{ file: 'preregistration/', message: `the frozen study cannot be read: ${err.code}: ${err.message}` }],
        [err.code],
      ),
      seen,
    };
  }
  const settings = intakeOf(state.study);
  const hasLog = existsSync(layout.intakeLog) || existsSync(layout.seal);
  if (settings.mode === 'unsealed' && !hasLog) {
    const d: Difference[] = receipts.map((r) => ({
      file: r.file,
      message: 'INTAKE_RECEIPT_NOT_SEALED: a receipt for a study whose intake was never sealed: nothing shows its file was kept',
    }));
    const unlogged = requests.map((r) => `; ${r.file}: no intake log to hold it (the weakened mode is the finding)`).join('');
    return {
      rail: railOf(
        'intake',
        `unsealed intake, declared in the frozen study.json (a weakened mode the verdict names): no log or seal to check${unlogged}`,
        d,
        d.length > 0 ? ['INTAKE_RECEIPT_NOT_SEALED'] : [],
      ),
      seen,
    };
  }
  const tsaTrust = auditTsaTrust(state, auditor);
  const log = await verifyIntakeLog(layout, {
    tsaTrust,
    agentKeys: { study_id: state.study.study_id, systems: state.study.systems ?? [] },
    study: { window: state.frozen.window, intake: settings },
    freezeDigest: state.freezeDigest,
  });
  seen.tokenRoots = log.tokenRoots;
  const differences: Difference[] = log.findings
    .filter((f) => failsIntake(f.code))
    .map((f) => ({ file: f.file, ...(f.line !== undefined ? { row: f.line } : {}), message: `${f.code}: ${f.message}` }));
  const codes: ReasonCode[] = log.findings.map((f) => f.code);
  const notes: string[] = [];
  if (receipts.length > 0) {
    if (log.seal === null) {
      for (const r of receipts)
        differences.push({ file: r.file, message: 'INTAKE_RECEIPT_NOT_SEALED: there is no seal the receipt could be in' });
      codes.push('INTAKE_RECEIPT_NOT_SEALED');
    } else {
      // The operator's identity: the auditor's --operator-key, else the study's own (the trust rail names it).
      const identity = given.operatorKey?.key ?? state.loaded.operatorKey().key;
      const checks = await checkReceipts(receipts, log.seal, {
        identity,
        accountedFreezes: accountedFreezeDigests(
          state.freezeDigest,
          readFreezeChain(layout, state.frozen, state.freezeDigest).links.map((l) => l.freeze_digest),
        ),
        tsaTrust,
        log: { entries: log.entries, digests: log.digests },
      });
      for (const c of checks) {
        for (const f of c.findings.filter(againstOperator)) {
          differences.push({ file: c.file, message: `${f.code}: ${f.message}` });
          codes.push(f.code);
        }
        if (c.sealed && receiptFailures(c).length === 0) seen.pinningReceipts.push(c.file);
      }
      notes.push(...receiptNotes(checks));
    }
  }
  let held = 0;
  if (requests.length > 0) {
    const w = await withheldRequests(requests, {
      entries: log.entries,
      registry: { study_id: state.study.study_id, systems: state.study.systems ?? [] },
      freezeDigest: state.freezeDigest,
      closesAt: state.frozen.window.closes_at,
      auditorTsa: auditor?.tsa ?? null,
    });
    for (const d of w.withheld) differences.push({ file: d.file, message: `INTAKE_REQUEST_WITHHELD: ${d.message}` });
    if (w.withheld.length > 0) codes.push('INTAKE_REQUEST_WITHHELD');
    notes.push(...w.notes);
    held = w.held;
  }
  const ok = `${log.entries.length} intake entr${log.entries.length === 1 ? 'y' : 'ies'} chained, signed by their systems and dated; the seal closes the log and every input file is its sealed leaf${receipts.length > 0 ? `; ${seen.pinningReceipts.length} of ${receipts.length} receipt(s) sealed` : ''}${requests.length > 0 ? `; ${held} of ${requests.length} dated request(s) held (or superseded) in the log` : ''}`;
  const rail = railOf('intake', [ok, ...notes].join('; '), differences, codes);
  if (!rail.ok && notes.length > 0) rail.detail = `${rail.detail}; ${notes.join('; ')}`;
  if (log.findings_omitted > 0)
    rail.detail = `${rail.detail}; ${log.findings_omitted} more finding(s) of the intake log not listed (its first ${log.findings.length} are)`;
  return { rail, seen };
}
