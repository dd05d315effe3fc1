// The study's files as one stage reads them: each read at most once, on first use, and each digest
// taken from the same read as the value parsed from it (study.json, the trust directory, the
// corpus's documents), so that what is compared with the freeze is what is then used.
//
// When it is read again (the invalidation rule, README.md, "The loaded study"): a
// LoadedStudy belongs to one stage's run. A stage makes one when it starts and hands it to what it
// calls; it is never kept across stages (each stage of `prereg run`, and a stage another stage runs
// through run/runner.ts, loads its own), nor past a write to one of its files (freeze writes freeze.json
// and reads nothing back through it). A file that changes while a stage runs is then either seen
// as the stage first read it, everywhere in the stage, or caught by the check of the stage that
// reads it next. A refusal is kept too: asked again, a file that could not be read gives the same error.
import { sha256Hex } from '../formats/hash.ts';
import type { TrustPolicy } from '../formats/trust-policy.ts';
import { readRegularFile } from '../io/regular-file.ts';
import type { StudyLayout } from '../layout.ts';
import { readTree, type ReadTree, type TreeDigest } from './file-tree.ts';
import { freezeDigest, loadFreezeRecord, type FreezeRecord } from './freeze-record.ts';
import { planSections, section5Of, type PlanSection, type Section5 } from './section5.ts';
import { readText } from '../io/json-files.ts';
import { itemsLeaf, studyFromBytes, type StudyConfig } from './study.ts';
import { treeText, trustFromInputs, trustInputsFromTree, trustPolicyFromTree, type LoadedTrust } from './trust.ts';
import type { TrustMaterialInputs } from '../formats/trust-policy.ts';
import { pinnedIntakeKey, pinnedOperatorKey, type PinnedOperatorKey } from './operator-key.ts';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { PreregError } from '../reasons.ts';

/** A corpus document whose headings declare the vocabulary (a file ending in corpus.documents_suffix). */
export interface CorpusDocument {
  path: string;
  text: string;
}

export interface LoadedStudy {
  readonly layout: StudyLayout;
  /** preregistration/study.json, parsed from the bytes `studySha256` is the digest of. */
  study(): StudyConfig;
  studySha256(): string;
  /** preregistration/freeze.json (FREEZE_MISSING before the freeze), and its freeze_digest. */
  frozen(): FreezeRecord;
  freezeDigest(): string;
  /** The trust directory's digest; `policy` and `trust` are decoded from the bytes it hashed. */
  trustTree(): TreeDigest;
  policy(): TrustPolicy;
  /** The texts of the files the policy names, read but not decoded (the audit names a broken one in its rails). */
  trustInputs(): TrustMaterialInputs;
  trust(): LoadedTrust;
  /** The pinned operator key and intake key, read from the same read. */
  operatorKey(): PinnedOperatorKey;
  intakeKey(): PinnedOperatorKey & { where: string; certificate?: unknown };
  /** The corpus's digest; `documents` are the texts of the bytes it hashed (reading study.json first, for the suffix). */
  corpusTree(): TreeDigest;
  documents(): CorpusDocument[];
  /** The bytes of the corpus's items file (study.json corpus.items) from the same read; FILE_NOT_FOUND when the corpus has none. */
  itemsFile(): Buffer;
  /** Section 5 of the plan, or null when it has no such section. */
  section5(): Section5 | null;
  /** Every section of the plan (PREREGISTRATION.md), from the read section 5 is taken from. */
  planSections(): PlanSection[];
}

/** The value or the error of the first call, for every call. */
function once<T>(read: () => T): () => T {
  let done: { value: T } | { error: unknown } | undefined;
  return () => {
    if (done === undefined) {
      try {
        done = { value: read() };
      } catch (error) {
        done = { error };
      }
    }
    if ('error' in done) throw done.error;
    return done.value;
  };
}

/** What every stage that stands on the freeze says before it. */
export function freezeMissing(layout: StudyLayout): PreregError {
  return new PreregError('FREEZE_MISSING', `${layout.freeze} does not exist; run \`prereg freeze\``);
}

export function loadStudyFiles(layout: StudyLayout): LoadedStudy {
  const studyBytes = once(() => {
    const bytes = readRegularFile(layout.study);
    return { bytes, sha256: sha256Hex(bytes) };
  });
  // Parsed only when asked: a drifted study.json is refused as drifted before it is judged invalid.
  const study = once(() => studyFromBytes(studyBytes().bytes, layout.study));
  const frozen = once(() => {
    // As doctor and run's preflight judge it (existsSync): a dangling symlink is no freeze either.
    if (!existsSync(layout.freeze)) throw freezeMissing(layout);
    return loadFreezeRecord(layout.freeze);
  });
  const digest = once(() => freezeDigest(frozen()));
  const trustRead = once((): ReadTree => readTree(layout.trust, () => true));
  const policy = once(() => trustPolicyFromTree(layout.trust, trustRead()));
  const trustInputs = once(() => trustInputsFromTree(layout.trust, trustRead(), policy()));
  const trust = once(() => trustFromInputs(layout.trust, trustInputs()));
  const trustText = (named: string) => treeText(layout.trust, trustRead(), named);
  const operatorKey = once(() => pinnedOperatorKey(layout.trust, policy(), trustText));
  const intakeKey = once(() => pinnedIntakeKey(layout.trust, policy(), trustText));
  const itemsPath = () => itemsLeaf(study());
  const corpusRead = once((): ReadTree => {
    const suffix = study().corpus.documents_suffix;
    const items = itemsPath();
    return readTree(layout.corpus, (path) => path.endsWith(suffix) || path === items);
  });
  const itemsFile = once(() => {
    const items = study().corpus.items;
    const data = corpusRead().kept.get(itemsPath());
    if (data === undefined)
      throw new PreregError('FILE_NOT_FOUND', `${join(layout.corpus, items)} does not exist`, { path: join(layout.corpus, items) });
    return data;
  });
  const documents = once(() => {
    const { digest: tree, kept } = corpusRead();
    // In the tree's order (by UTF-8 bytes), as the vocabulary has always been read.
    return tree.files
      .filter((f) => f.path.endsWith(study().corpus.documents_suffix))
      .map((f) => ({ path: f.path, text: kept.get(f.path)!.toString('utf8') }));
  });
  const sections = once(() => planSections(readText(layout.plan)));
  const section5 = once(() => section5Of(sections()));
  return {
    layout,
    study,
    studySha256: () => studyBytes().sha256,
    frozen,
    freezeDigest: digest,
    trustTree: () => trustRead().digest,
    policy,
    trustInputs,
    trust,
    operatorKey,
    intakeKey,
    corpusTree: () => corpusRead().digest,
    documents,
    itemsFile,
    section5,
    planSections: sections,
  };
}
