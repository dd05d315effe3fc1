// The anchors rail: exactly what `prereg check-anchors` decides on the study root (the command
// itself is run, in-process, so the audit never re-implements a check; the caller hands it in).
// ok iff it reports ok.
import type { DriftFinding } from '../study/drift.ts';
import type { StudyLayout } from '../layout.ts';
import { PreregError, type ReasonCode } from '../reasons.ts';
import type { Command } from '../command.ts';
import { studyFileOf } from './rerun.ts';
import { railOf, type Difference, type Rail } from './rails.ts';
import type { AnchorsSeen } from './trust.ts';

/** Findings without a file name the study place their field belongs to. */
function fileOfFinding(f: DriftFinding): string {
  if (f.file) return f.file;
  if (f.field.startsWith('vocabulary') || f.field.startsWith('corpus')) return 'corpus/';
  if (f.field === 'anchors') return 'preregistration/anchors/';
  return 'preregistration/freeze.json';
}

/**
 * The auditor's flags check-anchors takes (`--tsa-root`, `--expect-freeze`, `--min-witnesses`),
 * as its parsed values.
 */
export type CheckAnchorsFlags = Record<string, string | string[] | undefined>;

/** The rail, and what check-anchors saw (null when it could not run), for the trust rail. */
export async function anchorsRail(
  layout: StudyLayout,
  env: NodeJS.ProcessEnv,
  checkAnchors: Pick<Command, 'run'>,
  flags: CheckAnchorsFlags = {},
): Promise<{ rail: Rail; seen: AnchorsSeen | null }> {
  let json: AnchorsSeen & { ok: boolean; findings: DriftFinding[]; reason_codes: ReasonCode[]; freeze_digest: string };
  try {
    const values = Object.fromEntries(Object.entries(flags).filter(([, v]) => v !== undefined)) as Record<string, string | string[]>;
    const result = await checkAnchors.run({ root: layout.root, json: true, values, positionals: [], progress: () => {}, env });
    json = result.json as typeof json;
  } catch (err) {
    if (!(err instanceof PreregError)) throw err;
    const file = studyFileOf(err, layout.root) ?? 'preregistration/freeze.json';
    return {
      rail: railOf('anchors', '', [{ file, message: `check-anchors cannot run: ${err.code}: ${err.message}` }], [err.code]),
      seen: null,
    };
  }
  const differences: Difference[] = json.findings.map((f) => ({ file: fileOfFinding(f), message: `${f.code}: ${f.field}: ${f.message}` }));
  if (!json.ok && differences.length === 0) differences.push({ file: 'preregistration/', message: 'check-anchors reported a failure' });
  const under = json.roots === 'auditor' ? 'under the roots you passed' : "under the study's own roots";
  const rail = railOf(
    'anchors',
    `check-anchors: every frozen digest recomputes and ${json.independent_witnesses} independent witness(es) ${under} (required ${json.min_witnesses}) anchor freeze_digest ${json.freeze_digest} before the study opened`,
    differences,
    json.reason_codes,
  );
  return {
    rail,
    seen: {
      roots: json.roots,
      witnesses: json.witnesses,
      independent_witnesses: json.independent_witnesses,
      min_witnesses: json.min_witnesses,
    },
  };
}
