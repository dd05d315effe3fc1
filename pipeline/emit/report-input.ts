// What the report is written from: the study's words, the run, the freeze's witnesses as the
// study's own roots verify them, and the store's results and facts. The report decides nothing.
import { countIndependentWitnesses, verifyAnchors } from '../freeze/anchors.ts';
import type { StudyLayout } from '../layout.ts';
import { PreregError } from '../reasons.ts';
import type { ReportInput } from '../report/render.ts';
import type { FreezeRecord } from '../study/freeze-record.ts';
import { readFreezeChain } from '../study/freeze-chain.ts';
import type { StudyConfig } from '../study/study.ts';
import { studyClassesOf } from '../study/classes.ts';
import type { LoadedTrust } from '../study/trust.ts';
import type { EmitInputs } from '../results/shapes.ts';
import type { CheckedDeviation } from '../evidence/deviations/check.ts';
import type { Row } from './tables.ts';
import type { HeldResultName, StoreFacts } from '../results/shapes.ts';

export async function reportInput(
  layout: StudyLayout,
  s: { study: StudyConfig; frozen: FreezeRecord; trust: LoadedTrust },
  run: {
    run_id: string;
    inputs: EmitInputs;
    results: Record<HeldResultName, Row[]>;
    class_counts: Row[];
    facts: StoreFacts;
    deviations: CheckedDeviation[];
  },
): Promise<ReportInput> {
  const { study } = s;
  const primary = study.report?.primary_metric ?? null;
  if (primary !== null && !run.results.scores.some((row) => row.metric === primary)) {
    throw new PreregError(
      'REPORT_METRIC_UNKNOWN',
      `preregistration/study.json report.primary_metric ${JSON.stringify(primary)} is not a metric of section 5's scores`,
      {
        metric: primary,
      },
    );
  }
  // The chain of freezes, for the report to name every amendment; anchors judged by its earliest opens_at, as check-anchors judges them.
  const chain = readFreezeChain(layout, s.frozen, run.inputs.freeze_digest);
  const witnesses = await verifyAnchors(layout.anchors, run.inputs.freeze_digest, { study: s.trust.tsa, auditor: null }, chain.opensAt);
  return {
    title: study.title,
    study_id: study.study_id,
    as_of: study.as_of,
    run_id: run.run_id,
    inputs: run.inputs,
    witnesses: witnesses.map((w) => ({ witness: w.witness, ok: w.ok, reason_codes: [...w.reason_codes], signer: w.signer })),
    independent_witnesses: countIndependentWitnesses(witnesses),
    min_witnesses: study.anchors.min_witnesses,
    amendments: chain.links
      .filter((l) => l.record.amends !== undefined)
      .reverse()
      .map((l) => ({ freeze_digest: l.freeze_digest, amends: l.record.amends!.freeze_digest, reason: l.record.amends!.reason })),
    primary_metric: primary,
    metric_labels: study.report?.metrics ?? {},
    classes: studyClassesOf(study),
    results: run.results,
    class_counts: run.class_counts,
    facts: run.facts,
    deviations: run.deviations,
  };
}
