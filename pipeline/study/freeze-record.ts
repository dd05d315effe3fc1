// freeze.json (SPEC §4.4): what is fixed before submissions open, and the digest anchors witness.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { canonicalJson } from '../formats/canonical-json.ts';
import { sha256Hex } from '../formats/hash.ts';
import { schemaProblems } from '../formats/schemas.ts';
import { readJsonFile } from '../io/json-files.ts';
import type { StudyLayout } from '../layout.ts';
import { PreregError } from '../reasons.ts';
import type { AnswerKeyCommitment } from './answer-key.ts';
import { digestTree, type TreeDigest } from './file-tree.ts';
import { readSection5, type Section5 } from './section5.ts';
import type { StudyConfig } from './study.ts';
import { extractVocabulary, unmatchedHeadings, type UnmatchedHeading, type Vocabulary } from './vocabulary.ts';
import { TOOL_VERSION } from '../version.ts';
import { readRegularFile } from '../io/regular-file.ts';

export interface FreezeRecord {
  format: 'prereg.freeze/1';
  study_id: string;
  window: { opens_at: string; closes_at: string };
  corpus: TreeDigest;
  vocabulary: { sha256: string; size: number };
  section5_sha256: string;
  answer_key: AnswerKeyCommitment;
  study_sha256: string;
  trust: TreeDigest;
  tool: { name: 'prereg'; version: string };
}

/** The digests that can be recomputed from the study's files alone (no answer key, no secret). */
export interface PublicDigests {
  corpus: TreeDigest;
  vocabulary: Vocabulary;
  section5_sha256: string;
  /** The section 5 whose digest section5_sha256 is: the analysis that runs is these very bytes. */
  section5: Section5;
  study_sha256: string;
  trust: TreeDigest;
  /** Headings shaped like identifiers that no heading pattern declares (VOCABULARY_HEADING_UNMATCHED, a warning). */
  unmatched_headings: UnmatchedHeading[];
}

/** The corpus documents whose headings declare the vocabulary (files ending in documents_suffix). */
export function readDocuments(layout: StudyLayout, study: StudyConfig, corpus: TreeDigest): Array<{ path: string; text: string }> {
  return corpus.files
    .filter((f) => f.path.endsWith(study.corpus.documents_suffix))
    .map((f) => ({ path: f.path, text: readRegularFile(join(layout.corpus, f.path)).toString('utf8') }));
}

export function computePublicDigests(layout: StudyLayout, study: StudyConfig): PublicDigests {
  const corpus = digestTree(layout.corpus);
  const documents = readDocuments(layout, study, corpus);
  const vocabulary = extractVocabulary(documents, study.vocabulary.heading_patterns);
  const section5 = readSection5(layout);
  if (!section5) {
    throw new PreregError('SECTION5_MISSING', `${layout.plan} has no level-2 heading starting with "5"`, {
      path: layout.plan,
    });
  }
  return {
    corpus,
    vocabulary,
    section5_sha256: section5.sha256,
    section5,
    study_sha256: sha256Hex(readRegularFile(layout.study)),
    trust: digestTree(layout.trust),
    unmatched_headings: unmatchedHeadings(documents, study.vocabulary.heading_patterns, study.vocabulary.shape_patterns),
  };
}

/** The warning freeze and doctor print for a heading the vocabulary leaves out. */
export function unmatchedHeadingWarning(h: UnmatchedHeading): string {
  return `VOCABULARY_HEADING_UNMATCHED: corpus/${h.file}:${h.line}: ${JSON.stringify(h.heading)} has an identifier's shape, but no heading pattern declares it (a citation of it is a PHANTOM)`;
}

export function buildFreezeRecord(study: StudyConfig, digests: PublicDigests, answerKey: AnswerKeyCommitment): FreezeRecord {
  return {
    format: 'prereg.freeze/1',
    study_id: study.study_id,
    window: { opens_at: study.window.opens_at, closes_at: study.window.closes_at },
    corpus: digests.corpus,
    vocabulary: { sha256: digests.vocabulary.sha256, size: digests.vocabulary.ids.length },
    section5_sha256: digests.section5_sha256,
    answer_key: answerKey,
    study_sha256: digests.study_sha256,
    trust: digests.trust,
    tool: { name: 'prereg', version: TOOL_VERSION },
  };
}

/** freeze_digest = SHA-256(canonical freeze.json). */
export function freezeDigest(record: FreezeRecord): string {
  return sha256Hex(canonicalJson(record));
}

export function loadFreezeRecord(path: string): FreezeRecord {
  const value = readJsonFile(path);
  const problems = schemaProblems('freeze', value);
  if (problems.length > 0) {
    throw new PreregError('FREEZE_INVALID', `${path}: ${problems.join('; ')}`, { path, problems });
  }
  return value as FreezeRecord;
}

/** Human-readable and stable: sorted keys, two-space indent; the digest is over the canonical form. */
export function renderFreezeRecord(record: FreezeRecord): string {
  return `${JSON.stringify(JSON.parse(canonicalJson(record)), null, 2)}\n`;
}

export function listFiles(dir: string, suffix: string): string[] {
  try {
    return readdirSync(dir)
      .filter((f) => f.endsWith(suffix))
      .sort();
  } catch {
    return [];
  }
}
