// freeze.json (SPEC §4.4): what is fixed before submissions open, and the digest anchors witness.
import { readdirSync } from 'node:fs';
import { canonicalJson } from '../formats/canonical-json.ts';
import { sha256Hex } from '../formats/hash.ts';
import { schemaProblems } from '../formats/schemas.ts';
import type { TreeDigest } from './file-tree.ts';
import { readJsonFile } from '../io/json-files.ts';
import { PreregError } from '../reasons.ts';
import type { AnswerKeyCommitment } from './answer-key.ts';
import type { UnmatchedHeading } from './vocabulary.ts';

export interface FreezeRecord {
  format: 'prereg.freeze/1';
  study_id: string;
  window: { opens_at: string; closes_at: string };
  corpus: TreeDigest;
  vocabulary: { sha256: string; size: number };
  section5_sha256: string;
  /** Every part of PREREGISTRATION.md, digested (SPEC §13.3): an edit anywhere after the freeze is drift. */
  plan_sections: PlanSectionDigest[];
  answer_key: AnswerKeyCommitment;
  study_sha256: string;
  trust: TreeDigest;
  tool: { name: 'prereg'; version: string };
  /** The hypotheses section 5's dry run produced: the family Holm corrects across, frozen (SPEC §13.2). */
  hypothesis_family: string[];
  /** An amendment's predecessor (freeze --replace --reason), kept under preregistration/amendments/. */
  amends?: { freeze_digest: string; reason: string };
}

export interface PlanSectionDigest {
  /** The level-2 heading line; "" for the text before the first. */
  heading: string;
  sha256: string;
}

/** The warning freeze and doctor print for a heading the vocabulary leaves out. */
export function unmatchedHeadingWarning(h: UnmatchedHeading): string {
  return `VOCABULARY_HEADING_UNMATCHED: corpus/${h.file}:${h.line}: ${JSON.stringify(h.heading)} has an identifier's shape, but no heading pattern declares it (a citation of it is a PHANTOM)`;
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
