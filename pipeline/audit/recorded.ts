// The audited directory as recorded: its files, manifest.json, SHA256SUMS and results.json, read
// once and parsed with the canonical parser (duplicate keys refused, number lexemes kept).
import { isHex64 } from '../formats/hash.ts';
import { existsSync, lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import {
  CMS_FILE,
  DATA_FILES,
  MANIFEST_FILE,
  MANIFEST_FORMAT,
  RESULTS_FORMAT,
  SIGNATURE_FILE,
  SUMS_FILE,
  type Manifest,
} from '../emit/manifest.ts';
import { RESULT_NAMES, RESULT_TABLES } from '../emit/tables.ts';
import { JsonNumber, JsonParseError, parseJson, toPlain, type JsonObject, type JsonValue, isRecord } from '../formats/canonical-json.ts';
import type { Difference } from './rails.ts';
import { readRegularFile } from '../io/regular-file.ts';

/** Every file an output directory holds, in the order emit writes them. */
export const OUTPUT_FILES = [...DATA_FILES, MANIFEST_FILE, SUMS_FILE, SIGNATURE_FILE, CMS_FILE] as const;
/** The files a rerun reproduces: all but the two signatures (an audit holds no operator key). */
export const REPRODUCIBLE_FILES = [...DATA_FILES, MANIFEST_FILE, SUMS_FILE] as const;

export interface ParsedFile {
  bytes: Buffer;
  value: JsonObject | null;
  /** Why value is null: not UTF-8, not JSON, or not an object. */
  error: Difference | null;
}

export interface AuditedDir {
  dir: string;
  /** Every entry of the directory, sorted by name. */
  entries: Array<{ name: string; file: boolean }>;
  manifest: ParsedFile | null;
  /** The parsed manifest when it has every required field (see manifestProblems), else null. */
  fields: Manifest | null;
  results: ParsedFile | null;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

export function parseJsonObject(file: string, bytes: Buffer): ParsedFile {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    return { bytes, value: null, error: { file, message: 'is not valid UTF-8' } };
  }
  try {
    const value = parseJson(text);
    if (!isRecord(value)) return { bytes, value: null, error: { file, message: 'is JSON but not an object' } };
    return { bytes, value, error: null };
  } catch (err) {
    if (err instanceof JsonParseError)
      return { bytes, value: null, error: { file, row: err.line, message: `${err.code}: ${err.message}` } };
    throw err;
  }
}

function readParsed(dir: string, file: string): ParsedFile | null {
  const path = join(dir, file);
  if (!existsSync(path) || !lstatSync(path).isFile()) return null;
  return parseJsonObject(file, readRegularFile(path));
}

export function readAudited(dir: string): AuditedDir {
  const entries = readdirSync(dir)
    .sort()
    .map((name) => ({ name, file: lstatSync(join(dir, name)).isFile() }));
  const manifest = readParsed(dir, MANIFEST_FILE);
  const fields = manifest?.value && manifestProblems(manifest.value).length === 0 ? (toPlain(manifest.value) as Manifest) : null;
  return { dir, entries, manifest, fields, results: readParsed(dir, 'results.json') };
}

// ------------------------------------------------------------------------------------------
// The required fields of manifest.json (docs/outputs.md) and of results.json

const isString = (v: JsonValue | undefined): v is string => typeof v === 'string';
const isHex = (v: JsonValue | undefined): boolean => isHex64(v);
const isCount = (v: JsonValue | undefined): boolean => v instanceof JsonNumber && /^(0|[1-9][0-9]*)$/.test(v.lexeme);

function listProblems(where: string, v: JsonValue | undefined, item: (x: JsonObject) => boolean): string[] {
  if (!Array.isArray(v)) return [`${where} is not an array`];
  return v.flatMap((x, i) => (isRecord(x) && item(x) ? [] : [`${where}[${i}] lacks a field or has a wrong type`]));
}

/** The problems of a parsed manifest: every field docs/outputs.md lists, with its type. */
export function manifestProblems(m: JsonObject): string[] {
  const problems: string[] = [];
  if (m.format !== MANIFEST_FORMAT) problems.push(`format is not "${MANIFEST_FORMAT}"`);
  for (const key of ['study_id', 'as_of', 'duckdb_version'] as const)
    if (!isString(m[key])) problems.push(`${key} is missing or not a string`);
  if (!isString(m.run_id) || !/^[0-9a-f]{16}$/.test(m.run_id)) problems.push('run_id is not 16 hex digits');
  for (const key of ['decision_digest', 'artifact_digest'] as const) if (!isHex(m[key])) problems.push(`${key} is not 64 hex digits`);
  const tool = m.tool;
  if (!isRecord(tool) || tool.name !== 'prereg' || !isString(tool.version)) problems.push('tool is not {name: "prereg", version}');
  const inputs = m.inputs;
  if (!isRecord(inputs)) {
    problems.push('inputs is missing');
  } else {
    for (const key of ['corpus_root', 'section5_sha256', 'answer_key_root', 'trust_root', 'freeze_digest'] as const) {
      if (!isHex(inputs[key])) problems.push(`inputs.${key} is not 64 hex digits`);
    }
    for (const key of ['commitments_sha256', 'deviations_sha256'] as const) {
      if (inputs[key] !== null && !isHex(inputs[key])) problems.push(`inputs.${key} is neither null nor 64 hex digits`);
    }
    problems.push(
      ...listProblems('inputs.submissions', inputs.submissions, (x) => isString(x.file) && isHex(x.sha256) && isCount(x.bytes)),
    );
    problems.push(...listProblems('inputs.anchors', inputs.anchors, (x) => isString(x.file) && isHex(x.sha256)));
    problems.push(...listProblems('inputs.intake_files', inputs.intake_files, (x) => isString(x.file) && isHex(x.sha256)));
  }
  const outputs = m.outputs;
  const listed = listProblems('outputs', outputs, (x) => isString(x.file) && isHex(x.sha256) && isCount(x.bytes));
  problems.push(...listed);
  if (listed.length === 0) {
    const names = (outputs as JsonObject[]).map((o) => o.file as string);
    const expected = [...DATA_FILES].sort();
    if (names.join('\n') !== expected.join('\n'))
      problems.push(`outputs lists ${names.join(', ')}; the format has ${expected.join(', ')} (sorted)`);
  }
  return problems;
}

/** The problems of a parsed results.json: its format, the result tables as arrays of rows, and evidence.seller_inconsistencies. */
export function resultsProblems(r: JsonObject): string[] {
  const problems: string[] = [];
  if (r.format !== RESULTS_FORMAT) problems.push(`format is not "${RESULTS_FORMAT}"`);
  for (const name of RESULT_NAMES) {
    const rows = r[name];
    if (!Array.isArray(rows) || !rows.every((row) => isRecord(row))) problems.push(`${name} is not an array of rows`);
  }
  // A hypothesis without its test (SPEC §13.2) would read as a point estimate: every documented column is there.
  const hypotheses = r.hypotheses;
  if (Array.isArray(hypotheses)) {
    const lacking = RESULT_TABLES.hypotheses.columns.filter((c) => !hypotheses.every((row) => isRecord(row) && c in row));
    if (lacking.length > 0) problems.push(`hypotheses rows lack ${lacking.join(', ')}`);
  }
  // Requests a pinned seller served two ways (SPEC §13.1): dropped, they would read as none.
  const inconsistencies = isRecord(r.evidence) ? r.evidence.seller_inconsistencies : undefined;
  problems.push(
    ...listProblems(
      'evidence.seller_inconsistencies',
      inconsistencies,
      (x) =>
        x.reason_code === 'SELLER_INCONSISTENT' &&
        isString(x.item_id) &&
        isHex(x.request_hash) &&
        isString(x.seller) &&
        Array.isArray(x.served),
    ),
  );
  return problems;
}

// ------------------------------------------------------------------------------------------
// SHA256SUMS

export interface SumsEntry {
  sha256: string;
  /** 1-based line number. */
  line: number;
}

/** Parses `sha256sum` lines ("<hex>␠␠<name>\n"); malformed and duplicate lines are problems. */
export function parseSums(text: string): { entries: Map<string, SumsEntry>; problems: Difference[] } {
  const entries = new Map<string, SumsEntry>();
  const problems: Difference[] = [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] !== '') problems.push({ file: SUMS_FILE, row: lines.length, message: 'the last line has no final newline' });
  lines.slice(0, -1).forEach((line, i) => {
    const m = /^([0-9a-f]{64}) {2}(\S.*)$/.exec(line);
    if (!m) {
      problems.push({ file: SUMS_FILE, row: i + 1, message: 'is not a `<sha256>  <name>` line' });
    } else if (entries.has(m[2]!)) {
      problems.push({ file: SUMS_FILE, row: i + 1, message: `lists ${m[2]} a second time` });
    } else {
      entries.set(m[2]!, { sha256: m[1]!, line: i + 1 });
    }
  });
  return { entries, problems };
}
