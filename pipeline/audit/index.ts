// `prereg audit` (SPEC §8) as one function: every rail, in order, over an output directory and the
// study whose published inputs are rerun. The rails are independent: one failing never hides
// another, and every rail runs whatever the others found.
import { existsSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { studyLayout } from '../layout.ts';
import { weakenedModes } from '../study/study.ts';
import { loadStudyFiles, type LoadedStudy } from '../study/loaded-study.ts';
import { requireFrozenTool } from '../study/drift.ts';
import { PreregError } from '../reasons.ts';
import { anchorsRail } from './anchors.ts';
import { decisionsRail, reproducedRail } from './compare.ts';
import { completeRail, digestsRail, schemaRail } from './integrity.ts';
import { inputsRail } from './inputs.ts';
import { auditDeviations } from './deviations.ts';
import { assembleReport, type AuditReport, type Rail } from './rails.ts';
import { parseJsonObject, readAudited } from './recorded.ts';
import { STUDY_INPUT_DIRS, withRerun, type AuditStages } from './rerun.ts';
import { pinnedOperatorKeyOf, signaturesRail } from './signatures.ts';
import { trustRail, type AuditorTrust } from './trust.ts';
import { intakeRail, readReceipts } from './intake.ts';
import { readDatedRequests, type DatedRequest } from '../intake/dated-requests.ts';
import { loadAuditorIssuerKeys, loadAuditorOperatorKey, loadAuditorRoots } from '../auditor/trust.ts';
import type { TrustMaterialInputs } from '../formats/trust-policy.ts';
import { trustWeakenedModes } from '../formats/trust-policy.ts';
import { expectedFreeze, requiredWitnesses } from '../freeze/anchors.ts';

export interface AuditOptions {
  /** The study root whose inputs are rerun. */
  root: string;
  env: NodeJS.ProcessEnv;
  progress?: (message: string) => void;
  /** The stage commands the audit reruns (stages/audit.ts gives them). */
  stages: AuditStages;
  /** What the auditor supplies (SPEC §12.1): its TSA roots, the issuer's keys, the freeze digest it saw, the witnesses it requires. */
  auditor?: AuditorFlags;
}

/** The audit's own trust, as given on the command line (file paths and texts, not yet read). */
export interface AuditorFlags {
  tsaRoots?: string[];
  issuerKeys?: string;
  expectFreeze?: string;
  minWitnesses?: string;
  /** Participants' intake receipts the auditor obtained from them. */
  receipts?: string[];
  /** Participants' signed requests, each with its token beside it (REQUEST.tsr). */
  requests?: string[];
  /** The operator's identity key (PEM public key) as the operator published it. */
  operatorKey?: string;
}

/** The auditor's files, read; a flag naming a file that is missing or invalid stops the audit (exit 3). */
function loadAuditorTrust(
  flags: AuditorFlags,
  loaded: LoadedStudy,
): { trust: AuditorTrust; study: TrustMaterialInputs | null; receipts: ReturnType<typeof readReceipts>; requests: DatedRequest[] } {
  let study: TrustMaterialInputs | null = null;
  try {
    study = loaded.trustInputs();
  } catch (err) {
    if (!(err instanceof PreregError)) throw err;
    // A broken trust directory is the inputs and anchors rails' finding; the auditor's own roots still load.
  }
  const roots = loadAuditorRoots(flags.tsaRoots, study);
  requiredWitnesses(flags.minWitnesses, 0); // USAGE now, not a rail that cannot run
  const trust = {
    roots,
    issuerKeys: loadAuditorIssuerKeys(flags.issuerKeys),
    expectFreeze: expectedFreeze(flags.expectFreeze),
    operatorKey: loadAuditorOperatorKey(flags.operatorKey),
  };
  return { trust, study, receipts: readReceipts(flags.receipts ?? []), requests: readDatedRequests(flags.requests ?? []) };
}

export type { AuditStages };

function isDirectory(path: string): boolean {
  return existsSync(path) && statSync(path).isDirectory();
}

/**
 * The weaker choices the verdict names: those the frozen study and its trust policy declare (or
 * inherit as a study/1: unsealed intake, binding none; sellers "any"), and commitments the operator collected itself (inputs/commitments.jsonl, which no
 * participant signed). A study.json that cannot be read names none: the rails say why.
 */
function studyWeakenedModes(loaded: LoadedStudy): string[] {
  const { layout } = loaded;
  // Each named even when the other file cannot be read.
  const declared: string[] = [];
  for (const modes of [() => weakenedModes(loaded.study()), () => trustWeakenedModes(loaded.policy())]) {
    try {
      declared.push(...modes());
    } catch (err) {
      if (!(err instanceof PreregError)) throw err;
    }
  }
  const collected = existsSync(layout.commitments) && statSync(layout.commitments).size > 0;
  return [...declared, ...(collected ? ['operator-collected commitments'] : [])];
}

/** Throws (exit 3) only when the audit cannot run at all; every finding is a failed rail. */
export async function auditOutputs(outputsDir: string, options: AuditOptions): Promise<AuditReport> {
  const dir = resolve(outputsDir);
  const progress = options.progress ?? (() => {});
  if (!isDirectory(dir)) throw new PreregError('FILE_NOT_FOUND', `${dir} is not a directory: there is nothing to audit`, { path: dir });
  const layout = studyLayout(options.root);
  for (const sub of STUDY_INPUT_DIRS) {
    const path = join(layout.root, sub);
    if (!isDirectory(path)) {
      throw new PreregError(
        'AUDIT_STUDY_UNREADABLE',
        `${path} is not a directory: the study's inputs (corpus/, preregistration/, inputs/) must be under --root`,
        { path },
      );
    }
  }

  // The study's files as the audit found them, read once for the rails that judge them in place
  // (signatures, inputs, the weakened modes); the anchors and the rerun run commands, which read their own.
  const loaded = loadStudyFiles(layout);
  // Only the version that froze the study reproduces it: another one cannot audit it (TOOL_DRIFT, exit 3).
  if (existsSync(layout.freeze)) requireFrozenTool(loaded.frozen());
  const flags = options.auditor ?? {};
  const auditor = loadAuditorTrust(flags, loaded);
  progress('audit: reading the output directory…');
  let audited = readAudited(dir);
  const rails: Rail[] = [completeRail(audited)];
  const schema = schemaRail(audited);
  rails.push(schema.rail);
  progress('audit: signatures…');
  rails.push(await signaturesRail(dir, loaded, schema.manifestIntact));
  progress('audit: inputs…');
  rails.push(inputsRail(audited.fields, loaded, options.env, await auditDeviations(loaded, auditor.trust.roots)));
  progress('audit: anchors…');
  const anchors = await anchorsRail(layout, options.env, options.stages.checkAnchors, {
    'tsa-root': flags.tsaRoots,
    'expect-freeze': flags.expectFreeze,
    'min-witnesses': flags.minWitnesses,
  });
  rails.push(anchors.rail);
  progress('audit: intake…');
  const intake = await intakeRail(loaded, auditor.trust, auditor.receipts, auditor.requests);
  rails.push(intake.rail);
  rails.push(digestsRail(audited));
  // The rerun runs without results.json's parsed rows (≈ 210 MiB of objects at 100,000 records):
  // V8 sizes its heap by what stays live, and held through the rerun they let its garbage pile up
  // (docs/performance.md). The decisions rail parses the same bytes again.
  const recordedResults = audited.results?.bytes ?? null;
  audited = { ...audited, results: null };
  let rerun: AuditReport['rerun'] = { run_id: null, refused: null };
  await withRerun(layout, { env: options.env, progress, stages: options.stages }, async (outcome) => {
    rerun = outcome.ok
      ? { run_id: outcome.manifest.run_id, refused: null }
      : { run_id: null, refused: { stage: outcome.refusal.stage, code: outcome.refusal.code, message: outcome.refusal.message } };
    progress('audit: comparing with the rerun…');
    rails.push(await reproducedRail(audited, outcome));
    rails.push(decisionsRail({ ...audited, results: recordedResults && parseJsonObject('results.json', recordedResults) }, outcome));
    const studyKey = pinnedOperatorKeyOf(loaded);
    rails.push(await trustRail(auditor.trust, anchors.seen, intake.seen, auditor.study, outcome, 'key' in studyKey ? studyKey : null));
  });
  return assembleReport(rails, {
    dir,
    root: layout.root,
    run_id: audited.fields?.run_id ?? null,
    rerun,
    weakened_modes: studyWeakenedModes(loaded),
  });
}
