// `prereg doctor`: whether each stage's inputs are present, valid and consistent with the freeze,
// without running any stage and without writing anything (section 5 is dry-run in memory, as
// freeze does). A stage is `ready`, `done` (freeze, once freeze.json exists and the files agree with
// it), `blocked` (something is missing, invalid or differs from what was frozen: exit 3) or in
// `conflict` (a problem whose code exits 4, such as an unsafe path). docs/operating.md.
import { existsSync } from 'node:fs';
import { countIndependentWitnesses, requiredWitnesses, verifyChainAnchors } from '../freeze/anchors.ts';
import { readFreezeChain } from '../study/freeze-chain.ts';
import { compareDigests } from '../study/drift.ts';
import { unmatchedHeadingWarning, type FreezeRecord } from '../study/freeze-record.ts';
import { computePublicDigests, type PublicDigests } from '../study/public-digests.ts';
import { loadStudyFiles } from '../study/loaded-study.ts';
import { planProblems } from '../freeze/plan-check.ts';
import { unregisteredSystemsWarning, type StudyConfig } from '../study/study.ts';
import { systemsNamedBySection5, type Section5 } from '../study/section5.ts';
import type { StudyLayout } from '../layout.ts';
import { EXIT, exitCodeOf, type ExitCode } from '../reasons.ts';
import { runProblems } from '../run/preflight.ts';
import { windowState, type WindowState } from '../study/window.ts';
import { preconditionOf, type Precondition } from '../study/preconditions.ts';
import type { StageContext } from '../command.ts';

export type Readiness = 'ready' | 'done' | 'blocked' | 'conflict';

/** A refusal doctor reports; its exit code, when given, says whether it is a conflict (4) or missing (3). */
export type DoctorProblem = Omit<Precondition, 'exitCode'> & { exitCode?: ExitCode };

export interface StageReadiness {
  stage: 'freeze' | 'anchor' | 'check-anchors' | 'run';
  status: Readiness;
  problems: DoctorProblem[];
  /** What to do next for this stage, when it is not ready. */
  next: string | null;
}

/**
 * A stage is in conflict when one of its problems stops a command with exit 4 (an output that
 * exists, an unsafe path), blocked otherwise: the exit each code has in the catalogue
 * (pipeline/reasons.ts), the same in doctor as in every command. A drift from the freeze is
 * blocked (exit 3), as freeze, run and check-anchors' preflight refuse it.
 */
function stage(name: StageReadiness['stage'], problems: DoctorProblem[], next: string): StageReadiness {
  const status: Readiness =
    problems.length === 0 ? 'ready' : problems.some((p) => (p.exitCode ?? exitCodeOf(p.code)) === EXIT.conflict) ? 'conflict' : 'blocked';
  return { stage: name, status, problems, next: status === 'ready' ? null : next };
}

export interface DoctorReport {
  ok: boolean;
  status: Readiness;
  /** The window's phase by this machine's clock, its times and the phase's next step; null when study.json cannot be read. */
  window: WindowState | null;
  stages: StageReadiness[];
  /** The first stage that is not ready, and what to do about it. */
  next: string | null;
  warnings: string[];
}

/** Section 5 naming a system study.json does not register (SECTION5_SYSTEM_UNKNOWN): its hypothesis could never bear on anyone. */
function unknownSystemsInPlan(section5: Section5, study: StudyConfig): string[] {
  const registered = new Set((study.systems ?? []).map((s) => s.system_id));
  return systemsNamedBySection5(section5)
    .filter((n) => !registered.has(n.system_id))
    .map(
      (n) =>
        `SECTION5_SYSTEM_UNKNOWN: preregistration/PREREGISTRATION.md:${n.line}: section 5 names the system ${JSON.stringify(n.system_id)}, which study.json does not register (write the plan over registered_systems)`,
    );
}

/** A finding as doctor shows it: its file (or field) first, unless its message names it already. */
function where(f: { file?: string | undefined; field: string; message: string }): string {
  const at = f.file ?? f.field;
  return f.message.startsWith(at) ? f.message : `${at}: ${f.message}`;
}

export async function diagnose(layout: StudyLayout, values: StageContext['values'], env: NodeJS.ProcessEnv): Promise<DoctorReport> {
  const stages: StageReadiness[] = [];
  const warnings: string[] = [];
  let study: StudyConfig | undefined;
  let digests: PublicDigests | undefined;
  const beforeFreeze: DoctorProblem[] = [];
  // Every file read once for the whole diagnosis: each stage's line judges the same bytes.
  const loaded = loadStudyFiles(layout);
  try {
    study = loaded.study();
    const systems = unregisteredSystemsWarning(study);
    if (systems) warnings.push(`${systems.code}: ${systems.message}`);
    digests = computePublicDigests(loaded);
    warnings.push(...digests.unmatched_headings.map(unmatchedHeadingWarning));
    warnings.push(...unknownSystemsInPlan(digests.section5, study));
    beforeFreeze.push(
      ...(await planProblems(loaded, digests)).map((p) => ({
        code: p.code,
        message: `${p.file}${p.line !== undefined ? `:${p.line}` : ''}: ${p.field}: ${p.message}`,
      })),
    );
  } catch (err) {
    beforeFreeze.push(preconditionOf(err));
  }
  let frozen: FreezeRecord | undefined;
  const consistency: DoctorProblem[] = [];
  if (!existsSync(layout.freeze)) {
    consistency.push({ code: 'FREEZE_MISSING', message: 'preregistration/freeze.json does not exist' });
  } else {
    try {
      frozen = loaded.frozen();
      if (study && digests)
        consistency.push(...compareDigests(frozen, digests, study).findings.map((f) => ({ code: f.code, message: where(f) })));
    } catch (err) {
      consistency.push(preconditionOf(err));
    }
  }
  // Once frozen, freeze is done (freeze again would refuse: FREEZE_EXISTS), or in conflict with a
  // file that changed since — which anchoring does not fix: revert the file, or, before opens_at
  // only, amend the freeze. Once the window has opened the plan stands: no replacement is offered.
  const window = windowState(loaded, Date.now());
  const replaceable = window === null || window.phase === 'before';
  const DRIFT_NEXT = replaceable
    ? 'revert the changed files to what was frozen, or — before opens_at only — `prereg freeze --replace --reason TEXT` (an amendment) and anchor the new freeze_digest'
    : `revert the changed files to what was frozen: the window opened at ${window.opens_at}, so the freeze can no longer be replaced`;
  const PLAN_NEXT = replaceable
    ? 'fix the files named, then `prereg freeze --replace --reason TEXT` (an amendment, before opens_at only)'
    : `the window opened at ${window.opens_at}: the freeze stands as it is and can no longer be replaced`;
  if (frozen === undefined)
    stages.push(
      stage('freeze', beforeFreeze, 'fix the files named, then `prereg freeze` (docs/preregistration.md, "What freeze refuses")'),
    );
  else if (consistency.length > 0 || beforeFreeze.length > 0)
    stages.push(stage('freeze', [...beforeFreeze, ...consistency], consistency.length > 0 ? DRIFT_NEXT : PLAN_NEXT));
  else stages.push({ stage: 'freeze', status: 'done', problems: [], next: null });

  const anchors: DoctorProblem[] = [...consistency];
  if (frozen && study && consistency.length === 0) {
    try {
      const trust = loaded.trust();
      // Every freeze of the chain, against its earliest opens_at, as check-anchors judges them.
      const freezes = readFreezeChain(layout, frozen, loaded.freezeDigest());
      anchors.push(...freezes.findings.map((f) => ({ code: f.code, message: where({ ...f, field: 'amends' }) })));
      const chain = await verifyChainAnchors(freezes, { study: trust.tsa, auditor: null });
      for (const { code, anchor: w } of chain.failing) anchors.push({ code, message: `${w.file}: ${w.reason_codes.join(', ')}` });
      const independent = countIndependentWitnesses(chain.links[0]!.witnesses);
      // As check-anchors judges it: at least one witness, whatever anchors.min_witnesses says.
      const required = requiredWitnesses(undefined, study.anchors.min_witnesses);
      if (independent < required) {
        anchors.push({
          code: 'ANCHOR_INSUFFICIENT',
          message: `${independent} independent witness(es) by distinct root, ${required} required (check-anchors fails without one)`,
        });
      }
    } catch (err) {
      anchors.push(preconditionOf(err));
    }
  }
  stages.push(
    stage(
      'anchor',
      anchors,
      !frozen
        ? 'freeze first'
        : consistency.length > 0
          ? DRIFT_NEXT
          : '`prereg anchor` (or `prereg anchor --import FILE.tsr --witness NAME`: docs/operating.md)',
    ),
  );
  stages.push(stage('check-anchors', [...anchors], '`prereg check-anchors` names every drifted file and field'));

  // After the deadline: exactly what `prereg run` checks before any work.
  const run: DoctorProblem[] = frozen
    ? runProblems(loaded, values, env)
    : [{ code: 'FREEZE_MISSING', message: 'nothing can run before the freeze', exitCode: EXIT.blocked }];
  stages.push(
    stage(
      'run',
      [...consistency, ...run],
      'after the deadline: reveal the answer key and secret under inputs/, collect submissions and commitments, pass the operator keys (docs/outputs.md, "What run checks first")',
    ),
  );

  const status: Readiness = stages.some((s) => s.status === 'conflict')
    ? 'conflict'
    : stages.some((s) => s.status === 'blocked')
      ? 'blocked'
      : 'ready';
  const first = stages.find((s) => s.status !== 'ready' && s.status !== 'done');
  return { ok: status === 'ready', status, window, stages, next: first ? `${first.stage}: ${first.next}` : null, warnings };
}
