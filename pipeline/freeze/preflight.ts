// Before anything is scored: every pre-registered input must be exactly what was frozen
// (SPEC §4.2, §4.3). Any drift blocks (exit 3) with the code of the first finding.
import type { StudyLayout } from '../layout.ts';
import type { AnswerKeyItem } from '../study/answer-key.ts';
import { compareDigests, refuseDrift } from '../study/drift.ts';
import { computePublicDigests, loadFreezeRecord, type FreezeRecord, type PublicDigests } from '../study/freeze-record.ts';
import type { Section5 } from '../study/section5.ts';
import { loadStudy, type StudyConfig } from '../study/study.ts';
import { requireRevealedKey } from './reveal.ts';

export interface FrozenInputs {
  frozen: FreezeRecord;
  study: StudyConfig;
  digests: PublicDigests;
  section5: Section5;
  answerKey: AnswerKeyItem[];
}

export function requireFrozenInputs(layout: StudyLayout, env: NodeJS.ProcessEnv, secretFile?: string): FrozenInputs {
  const frozen = loadFreezeRecord(layout.freeze);
  const study = loadStudy(layout.study);
  const digests = computePublicDigests(layout, study);
  const { findings } = compareDigests(frozen, digests, study);
  // SECTION5_DRIFT first: it is the one that decides whether this analysis may run at all.
  refuseDrift(findings, 'scoring runs only on the frozen inputs', findings.find((f) => f.code === 'SECTION5_DRIFT') ?? findings[0]);
  // The section whose digest was just compared with the freeze: no second read between check and use.
  const section5 = digests.section5;
  const { items } = requireRevealedKey(layout, layout.answerKey, secretFile, env);
  return { frozen, study, digests, section5, answerKey: items };
}
