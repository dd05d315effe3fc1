// The input files sealed intake governs (SPEC §12.2): inputs/submissions/*.jsonl,
// inputs/commitments/*.jsonl (each system's own commitments, received through intake) and the
// operator-collected inputs/commitments.jsonl. After the seal, a stage reads exactly the sealed
// ones: requireSealedInputs refuses a file changed, added or removed (INTAKE_DRIFT), and a seal
// over another freeze (SEAL_FREEZE_MISMATCH).
import { existsSync, lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { sealProblems, type SealedFile, type SealRecord } from '../evidence/intake/records.ts';
import { sha256Hex } from '../formats/hash.ts';
import { listSubmissionFiles } from '../ingest/submission-files.ts';
import { readJsonFile } from '../io/json-files.ts';
import { readRegularFile } from '../io/regular-file.ts';
import { studyRelative, type StudyLayout } from '../layout.ts';
import { PreregError } from '../reasons.ts';
import { intakeOf } from '../study/study.ts';
import { utcMillis } from '../formats/utc-instant.ts';
import type { LoadedStudy } from '../study/loaded-study.ts';

/** A commitments file and whose it is: a system's own (through intake) or the operator's. */
export interface CommitmentsFile {
  path: string;
  /** From the study root. */
  file: string;
  /** The system whose key signed its intake request; null for the operator-collected file. */
  owner: string | null;
  /** Submitted by its owner through intake (SPEC §12.3: such a commitment may cause COMMITMENT_CONFLICT). */
  submitted_through_intake: boolean;
}

/** inputs/commitments.jsonl (when present) then inputs/commitments/*.jsonl, sorted by name. */
export function listCommitmentsFiles(layout: StudyLayout): CommitmentsFile[] {
  const out: CommitmentsFile[] = [];
  if (lstatSync(layout.commitments, { throwIfNoEntry: false })) {
    out.push({ path: layout.commitments, file: studyRelative(layout, layout.commitments), owner: null, submitted_through_intake: false });
  }
  const dir = layout.participantCommitments;
  if (existsSync(dir)) {
    for (const name of readdirSync(dir).sort()) {
      if (!name.endsWith('.jsonl')) continue;
      const path = join(dir, name);
      out.push({ path, file: studyRelative(layout, path), owner: name.slice(0, -'.jsonl'.length), submitted_through_intake: true });
    }
  }
  return out;
}

/** Every governed input file now, `{path, bytes, sha256}`, sorted by path; a non-regular file is refused. */
export function currentInputFiles(layout: StudyLayout): SealedFile[] {
  const paths = [
    ...(existsSync(layout.submissions) ? listSubmissionFiles(layout).files.map((f) => f.path) : []),
    ...listCommitmentsFiles(layout).map((f) => f.path),
  ];
  return paths
    .map((path) => {
      const data = readRegularFile(path);
      return { path: studyRelative(layout, path), bytes: data.length, sha256: sha256Hex(data) };
    })
    .sort((a, b) => Buffer.compare(Buffer.from(a.path), Buffer.from(b.path)));
}

/** How the files now differ from the sealed ones: one message per file changed, added or removed. */
export function fileDrift(
  sealed: readonly SealedFile[],
  current: readonly SealedFile[],
  recorded: 'sealed' | 'received through intake' = 'sealed',
): Array<{ file: string; message: string }> {
  const now = new Map(current.map((f) => [f.path, f]));
  const drift: Array<{ file: string; message: string }> = [];
  for (const s of sealed) {
    const c = now.get(s.path);
    if (c === undefined)
      drift.push({ file: s.path, message: `${s.path} is ${recorded} (${s.bytes} bytes, SHA-256 ${s.sha256}) but no longer exists` });
    else if (c.sha256 !== s.sha256 || c.bytes !== s.bytes)
      drift.push({
        file: s.path,
        message: `${s.path} changed: ${recorded} ${s.bytes} bytes, SHA-256 ${s.sha256}; now ${c.bytes} bytes, SHA-256 ${c.sha256}`,
      });
    now.delete(s.path);
  }
  for (const c of now.values())
    drift.push({
      file: c.path,
      message:
        recorded === 'sealed'
          ? `${c.path} is not sealed (added after the seal, or never received through intake)`
          : `${c.path} was never received through intake`,
    });
  return drift;
}

/**
 * The intake's own files, as the manifest records them (SPEC §12.2): inputs/intake.jsonl,
 * inputs/seal.json, every file of inputs/anchors/ and the systems' commitments files, those that
 * exist, study-relative and sorted; a non-regular one is refused.
 */
export function intakeRecordFiles(layout: StudyLayout): Array<{ file: string; sha256: string }> {
  const anchors = existsSync(layout.sealAnchors) ? readdirSync(layout.sealAnchors).map((n) => join(layout.sealAnchors, n)) : [];
  const paths = [
    layout.intakeLog,
    layout.seal,
    ...anchors,
    ...listCommitmentsFiles(layout)
      .filter((f) => f.submitted_through_intake)
      .map((f) => f.path),
  ];
  return paths
    .filter((p) => lstatSync(p, { throwIfNoEntry: false }) !== undefined)
    .map((p) => ({ file: studyRelative(layout, p), sha256: sha256Hex(readRegularFile(p)) }))
    .sort((a, b) => Buffer.compare(Buffer.from(a.file), Buffer.from(b.file)));
}

export function loadSeal(layout: StudyLayout): SealRecord {
  const value = readJsonFile(layout.seal);
  const problems = sealProblems(value);
  if (problems.length > 0) throw new PreregError('SEAL_INVALID', `${layout.seal}: ${problems.join('; ')}`, { problems });
  return value as SealRecord;
}

/**
 * When inputs/seal.json exists: the seal names `freezeDigest` and every governed file is its
 * sealed leaf, else SEAL_FREEZE_MISMATCH / INTAKE_DRIFT naming the first file. Returns the seal,
 * or null when there is none.
 */
export function requireSealedInputs(layout: StudyLayout, freezeDigest: string): SealRecord | null {
  if (!lstatSync(layout.seal, { throwIfNoEntry: false })) return null;
  const seal = loadSeal(layout);
  if (seal.freeze_digest !== freezeDigest) {
    throw new PreregError(
      'SEAL_FREEZE_MISMATCH',
      `inputs/seal.json seals the inputs of freeze ${seal.freeze_digest}; preregistration/freeze.json is ${freezeDigest}`,
    );
  }
  const drift = fileDrift(seal.files, currentInputFiles(layout));
  if (drift.length > 0) {
    throw new PreregError('INTAKE_DRIFT', drift.map((d) => d.message).join('; '), {
      file: drift[0]!.file,
      files: drift.map((d) => d.file),
    });
  }
  return seal;
}

/**
 * What `run` and `emit` require (SPEC §12.2; docs/operating.md, "The window"): the inputs closed
 * before anything is scored. A sealed-intake study is read only once sealed (SEAL_MISSING,
 * whatever the time: before the seal the operator could score what it took in, then choose what
 * to seal); an unsealed study (every study/1) only once closes_at has passed by `nowMs`, this
 * machine's clock (WINDOW_OPEN) — the weaker guarantee: the operator's own clock. Then the inputs
 * must be the sealed ones. `beforeReveal` (reveal-check): the seal is required, the clock is not
 * consulted (the answer key is revealed only after submissions are sealed).
 */
export function requireSealedIntake(loaded: LoadedStudy, nowMs: number, beforeReveal = false): SealRecord | null {
  const { layout } = loaded;
  const { closes_at } = loaded.frozen().window;
  const settings = intakeOf(loaded.study());
  const sealed = lstatSync(layout.seal, { throwIfNoEntry: false }) !== undefined;
  const open = nowMs < utcMillis(closes_at)!;
  if (settings.mode === 'sealed' && !sealed) {
    const why = beforeReveal
      ? 'the answer key is revealed only after the intake is sealed'
      : `nothing is scored before the seal (closes_at ${closes_at} ${open ? 'has not passed: the window is still open' : 'has passed'})`;
    throw new PreregError(
      'SEAL_MISSING',
      `the study declares sealed intake and inputs/seal.json does not exist: ${why}; run \`prereg seal\` after closes_at`,
    );
  }
  if (settings.mode === 'unsealed' && !beforeReveal && open) {
    throw new PreregError(
      'WINDOW_OPEN',
      `the study's window is open until closes_at ${closes_at} by this machine's clock (now ${new Date(nowMs).toISOString()}): an unsealed study is scored only after it closes`,
      { closes_at },
    );
  }
  return requireSealedInputs(layout, loaded.freezeDigest());
}
