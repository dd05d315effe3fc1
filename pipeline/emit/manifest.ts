// manifest.json, its digests, run_id and SHA256SUMS (SPEC §7). Pure: values in, values out.
import { canonicalFrame, canonicalJson, STREAMED_ARRAY } from '../formats/canonical-json.ts';
import { sha256Hex } from '../formats/hash.ts';
import type { EmitInputs } from '../results/shapes.ts';

export const MANIFEST_FORMAT = 'prereg.manifest/1';
export const RESULTS_FORMAT = 'prereg.results/1';

/** Files of an output directory that the manifest does not list (they are made from it). */
export const MANIFEST_FILE = 'manifest.json';
export const SUMS_FILE = 'SHA256SUMS';
export const SIGNATURE_FILE = 'manifest.sig';
export const CMS_FILE = 'manifest.p7s';

/** The data files, in the order they are written (the manifest lists them sorted). */
export const DATA_FILES = [
  'results.json',
  'scores.csv',
  'assertions.parquet',
  'proof_checks.parquet',
  'chain_checks.parquet',
  'rejects.csv',
  'report.md',
  'report.html',
] as const;

export interface OutputFile {
  file: string;
  bytes: number;
  sha256: string;
}

export interface Manifest {
  format: typeof MANIFEST_FORMAT;
  study_id: string;
  as_of: string;
  run_id: string;
  inputs: EmitInputs;
  tool: { name: 'prereg'; version: string };
  duckdb_version: string;
  outputs: OutputFile[];
  decision_digest: string;
  artifact_digest: string;
}

/** run_id: the first 16 hex digits of SHA-256(canonical JSON of the inputs object). */
export function runIdOf(inputs: EmitInputs): string {
  return sha256Hex(canonicalJson(inputs)).slice(0, 16);
}

/**
 * decision_digest: SHA-256 of the canonical JSON of
 * {assertion_classes: [...], hypotheses: [...], scores: [...]}, each the rows of its result table
 * in their total order — the rows a decision rests on, and nothing else.
 */
export function decisionDigest(rows: { assertion_classes: unknown[]; scores: unknown[]; hypotheses: unknown[] }): string {
  return sha256Hex(canonicalJson(decisionObject(rows)));
}

function decisionObject(rows: { assertion_classes: unknown; scores: unknown[]; hypotheses: unknown[] }) {
  return { assertion_classes: rows.assertion_classes, scores: rows.scores, hypotheses: rows.hypotheses };
}

/**
 * decisionDigest's text around its assertion_classes rows (canonicalFrame), for a writer that
 * streams those rows: the same digest without holding them.
 */
export function decisionFrame(rows: { scores: unknown[]; hypotheses: unknown[] }): [string, string] {
  return canonicalFrame(decisionObject({ ...rows, assertion_classes: STREAMED_ARRAY }));
}

/** Completes a manifest with artifact_digest = SHA-256(canonical JSON of every other field). */
export function sealManifest(fields: Omit<Manifest, 'artifact_digest'>): Manifest {
  // A stale artifact_digest passed in (a spread manifest) must not enter its own digest.
  const { artifact_digest: _stale, ...rest } = fields as Omit<Manifest, 'artifact_digest'> & { artifact_digest?: unknown };
  const outputs = [...rest.outputs].sort((a, b) => compareNames(a.file, b.file));
  const body = { ...rest, outputs };
  return { ...body, artifact_digest: sha256Hex(canonicalJson(body)) };
}

/** The artifact digest a reader recomputes from a parsed manifest. */
export function artifactDigestOf(manifest: Record<string, unknown>): string {
  const { artifact_digest: _ignored, ...rest } = manifest;
  return sha256Hex(canonicalJson(rest));
}

/** The exact bytes of manifest.json: canonical JSON and a newline (ASCII). */
export function manifestBytes(manifest: Manifest): Buffer {
  return Buffer.from(`${canonicalJson(manifest)}\n`, 'latin1');
}

/** Names compare by their UTF-8 bytes (all of ours are ASCII). */
export function compareNames(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

/** SHA256SUMS in `sha256sum -c` form: "<hex>  <name>\n" per file, sorted by name. */
export function sha256sums(files: readonly OutputFile[]): string {
  return [...files]
    .sort((a, b) => compareNames(a.file, b.file))
    .map((f) => `${f.sha256}  ${f.file}\n`)
    .join('');
}
