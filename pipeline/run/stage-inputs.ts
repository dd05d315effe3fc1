// The one skip/rerun rule of every cached stage (ingest, verify, classify, score) and of `prereg
// status`: a stage records what it consumed (its inputs object, whose canonical JSON's SHA-256 is
// the inputs digest) in stage_runs; it is current when the digest it would record now is the one
// recorded, and otherwise stale, with the changes named (DVC-style: a file, not a digest).
import type { DuckDBConnection } from '@duckdb/node-api';
import { canonicalJson, isRecord } from '../formats/canonical-json.ts';
import { isHex64, sha256Hex } from '../formats/hash.ts';
import { duckdbVersion, readStageRun, writeStageRun } from '../store/db.ts';
import { TOOL_VERSION } from '../version.ts';
import { shown } from '../text/display.ts';

/** How a key of the inputs object is named in a reason; an object key with a label is reported as a whole. */
export type InputLabels = Readonly<Record<string, string>>;

export interface RecordedRun {
  digest: string;
  inputs: unknown;
  outputs: unknown;
}

export type StageVerdict =
  | { current: true; digest: string; reason: string; outputs: unknown }
  | { current: false; digest: string; reason: string };

export function inputsDigest(inputs: unknown): string {
  return sha256Hex(canonicalJson(inputs));
}

/** The run recorded for `stage`, or null. */
export async function recordedRun(connection: DuckDBConnection, stage: string): Promise<RecordedRun | null> {
  const run = await readStageRun(connection, stage);
  return run
    ? { digest: run.inputs_digest, inputs: JSON.parse(run.inputs_json) as unknown, outputs: JSON.parse(run.outputs_json) as unknown }
    : null;
}

/**
 * Why the stage reruns whatever its inputs are now — no recorded run (`missing` says why), or
 * --force — or null when its inputs decide. A stage may then skip what only the digest needs
 * (ingest leaves the files' hashes to the scan that reads them).
 */
export function rerunRegardless(previous: RecordedRun | null | { missing: string }, force = false): string | null {
  if (previous === null) return 'no recorded run';
  if ('missing' in previous) return previous.missing;
  if (force) return '--force';
  return null;
}

/** Current or stale, and why. `missing` says why there is no recorded run. */
export function judge(
  previous: RecordedRun | null | { missing: string },
  inputs: unknown,
  labels: InputLabels = {},
  force = false,
): StageVerdict {
  const digest = inputsDigest(inputs);
  const regardless = rerunRegardless(previous, force);
  if (regardless !== null) return { current: false, digest, reason: regardless };
  const run = previous as RecordedRun; // rerunRegardless is null only for a recorded run
  if (run.digest === digest) return { current: true, digest, reason: 'inputs unchanged since the last run', outputs: run.outputs };
  const why = describeChanges(run.inputs, inputs, labels);
  return { current: false, digest, reason: why.length > 0 ? `inputs changed: ${why.join('; ')}` : 'the recorded inputs differ' };
}

export async function recordRun(connection: DuckDBConnection, stage: string, inputs: unknown, outputs: unknown): Promise<void> {
  await writeStageRun(connection, {
    stage,
    inputs_digest: inputsDigest(inputs),
    inputs_json: canonicalJson(inputs),
    outputs_json: canonicalJson(outputs),
    tool_version: TOOL_VERSION,
    duckdb_version: duckdbVersion(),
  });
}

type Json = unknown;
const fileOf = (v: Json): string | undefined => (isRecord(v) && typeof v.file === 'string' ? v.file : undefined);

/**
 * What differs between the recorded inputs and the current ones, in the current object's key
 * order: a file entry ({file, …}) by its file name (added / changed / removed), a labelled object
 * as its label, a digest as "changed", any other value as "old → new".
 */
export function describeChanges(before: Json, after: Json, labels: InputLabels = {}, path = ''): string[] {
  if (canonicalJson(before ?? null) === canonicalJson(after ?? null)) return [];
  const label = labels[path] ?? path;
  if (path !== '' && labels[path] !== undefined && (isRecord(after) || Array.isArray(after))) return [label];
  const file = fileOf(after);
  if (file !== undefined && fileOf(before) === file) return [`${shown(file)} changed`];
  if (Array.isArray(after) && after.every((e) => fileOf(e) !== undefined)) {
    const was = new Map((Array.isArray(before) ? before : []).map((e) => [fileOf(e), canonicalJson(e)]));
    const now = new Map(after.map((e) => [fileOf(e), canonicalJson(e)]));
    const why: string[] = [];
    for (const [f, e] of now) {
      if (!was.has(f)) why.push(`${shown(f!)} added`);
      else if (was.get(f) !== e) why.push(`${shown(f!)} changed`);
    }
    for (const f of was.keys()) if (!now.has(f)) why.push(`${shown(f!)} removed`);
    return why;
  }
  if (isRecord(after) && isRecord(before)) {
    const keys = [...Object.keys(after), ...Object.keys(before).filter((k) => !(k in after))];
    return keys.flatMap((k) => describeChanges(before[k], after[k], labels, path === '' ? k : `${path}.${k}`));
  }
  if (isHex64(after) || isRecord(after) || Array.isArray(after)) return [`${label} changed`];
  return [
    `${label} ${before === undefined || before === null ? 'unset' : shown(JSON.stringify(before))} → ${shown(JSON.stringify(after))}`,
  ];
}
