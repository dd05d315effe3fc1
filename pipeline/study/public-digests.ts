// The digests freeze.json records that can be recomputed from the study's files alone (no answer
// key, no secret), each from the read that is then used: the corpus's documents, section 5 and
// study.json are parsed from the bytes hashed (study/loaded-study.ts).
import { PreregError } from '../reasons.ts';
import type { TreeDigest } from './file-tree.ts';
import type { LoadedStudy } from './loaded-study.ts';
import type { Section5 } from './section5.ts';
import type { FreezeRecord, PlanSectionDigest } from './freeze-record.ts';
import type { AnswerKeyCommitment } from './answer-key.ts';
import type { StudyConfig } from './study.ts';
import { TOOL_VERSION } from '../version.ts';
import { sha256Hex } from '../formats/hash.ts';
import { readCorpusHeadings, type DuplicateDeclaration, type UnmatchedHeading, type Vocabulary } from './vocabulary.ts';

export interface PublicDigests {
  corpus: TreeDigest;
  vocabulary: Vocabulary;
  section5_sha256: string;
  /** The section 5 whose digest section5_sha256 is: the analysis that runs is these very bytes. */
  section5: Section5;
  /** Every part of PREREGISTRATION.md, from the read section 5 was taken from. */
  plan_sections: Array<PlanSectionDigest & { line: number }>;
  study_sha256: string;
  trust: TreeDigest;
  /** Headings shaped like identifiers that no heading pattern declares (VOCABULARY_HEADING_UNMATCHED, a warning). */
  unmatched_headings: UnmatchedHeading[];
  /** Identifiers a second heading declares again (VOCABULARY_ID_DUPLICATE, refused by the plan check). */
  duplicate_ids: DuplicateDeclaration[];
}

export function computePublicDigests(loaded: LoadedStudy): PublicDigests {
  const study = loaded.study();
  const corpus = loaded.corpusTree();
  const { vocabulary, unmatched, duplicates } = readCorpusHeadings(
    loaded.documents(),
    study.vocabulary.heading_patterns,
    study.vocabulary.shape_patterns,
  );
  const section5 = loaded.section5();
  if (!section5) {
    throw new PreregError('SECTION5_MISSING', `${loaded.layout.plan} has no level-2 heading starting with "5"`, {
      path: loaded.layout.plan,
    });
  }
  return {
    corpus,
    vocabulary,
    section5_sha256: section5.sha256,
    section5,
    plan_sections: loaded.planSections().map((s) => ({ heading: s.heading, line: s.line, sha256: sha256Hex(s.text) })),
    study_sha256: loaded.studySha256(),
    trust: loaded.trustTree(),
    unmatched_headings: unmatched,
    duplicate_ids: duplicates,
  };
}

export function buildFreezeRecord(
  study: StudyConfig,
  digests: PublicDigests,
  answerKey: AnswerKeyCommitment,
  hypothesisFamily: readonly string[],
  amends?: FreezeRecord['amends'],
): FreezeRecord {
  return {
    format: 'prereg.freeze/1',
    study_id: study.study_id,
    window: { opens_at: study.window.opens_at, closes_at: study.window.closes_at },
    corpus: digests.corpus,
    vocabulary: { sha256: digests.vocabulary.sha256, size: digests.vocabulary.ids.length },
    section5_sha256: digests.section5_sha256,
    plan_sections: digests.plan_sections.map(({ heading, sha256 }) => ({ heading, sha256 })),
    answer_key: answerKey,
    study_sha256: digests.study_sha256,
    trust: digests.trust,
    tool: { name: 'prereg', version: TOOL_VERSION },
    hypothesis_family: [...hypothesisFamily],
    ...(amends ? { amends } : {}),
  };
}
