// Before anything is scored: every pre-registered input must be exactly what was frozen
// (SPEC §4.2, §4.3). Any drift blocks (exit 3) with the code of the first finding.
import type { LoadedStudy } from '../study/loaded-study.ts';
import type { AnswerKeyItem } from '../study/answer-key.ts';
import { compareDigests, refuseDrift, requireFrozenTool } from '../study/drift.ts';
import type { FreezeRecord } from '../study/freeze-record.ts';
import { computePublicDigests, type PublicDigests } from '../study/public-digests.ts';
import { PreregError } from '../reasons.ts';
import { duplicateMessage } from '../study/vocabulary.ts';
import type { Section5 } from '../study/section5.ts';
import type { StudyConfig } from '../study/study.ts';
import { requireRevealedKey } from './reveal.ts';
import { readItems, type CorpusItem } from './answer-key-file.ts';

export interface FrozenInputs {
  frozen: FreezeRecord;
  study: StudyConfig;
  digests: PublicDigests;
  section5: Section5;
  answerKey: AnswerKeyItem[];
  /** The public items, parsed (when asked: only classify needs them) from the bytes the corpus root was just compared with. */
  items: () => CorpusItem[];
}

export function requireFrozenInputs(loaded: LoadedStudy, env: NodeJS.ProcessEnv, secretFile?: string): FrozenInputs {
  const { layout } = loaded;
  const frozen = loaded.frozen();
  requireFrozenTool(frozen);
  const study = loaded.study();
  const digests = computePublicDigests(loaded);
  const { findings } = compareDigests(frozen, digests, study);
  // SECTION5_DRIFT first: it is the one that decides whether this analysis may run at all.
  refuseDrift(findings, 'scoring runs only on the frozen inputs', findings.find((f) => f.code === 'SECTION5_DRIFT') ?? findings[0]);
  // freeze refuses such a corpus; one frozen without the rule (another tool) is not scored either.
  const duplicate = digests.duplicate_ids[0];
  if (duplicate) {
    throw new PreregError(
      'VOCABULARY_ID_DUPLICATE',
      `${digests.duplicate_ids.map(duplicateMessage).join('\n')}; scoring refuses a corpus in which one identifier names two articles`,
      { file: `corpus/${duplicate.again.file}`, line: duplicate.again.line },
    );
  }
  // The section whose digest was just compared with the freeze: no second read between check and use.
  const section5 = digests.section5;
  const { items } = requireRevealedKey(loaded, layout.answerKey, secretFile, env);
  return { frozen, study, digests, section5, answerKey: items, items: () => readItems(layout, study, loaded.itemsFile()) };
}
