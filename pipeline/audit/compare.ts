// The reproduced and decisions rails: the audited directory against the rerun's, byte for byte,
// naming the first differing file and, where the format has them, its first differing line or row.
import { existsSync, lstatSync } from 'node:fs';
import { join } from 'node:path';
import { openMemoryDatabase } from '../store/db.ts';
import { READ_PARQUET } from '../store/statements.ts';
import { readJsonRows } from '../store/query.ts';
import { CMS_FILE, SIGNATURE_FILE, SUMS_FILE } from '../emit/manifest.ts';
import { DECISION_RESULTS } from '../emit/tables.ts';
import { canonicalJson, type JsonObject, type JsonValue } from '../formats/canonical-json.ts';
import { firstDifferingLine } from './integrity.ts';
import { failed, railOf, type Difference, type Rail } from './rails.ts';
import { parseJsonObject, REPRODUCIBLE_FILES, resultsProblems, type AuditedDir } from './recorded.ts';
import type { RerunOutcome } from './rerun.ts';
import { readRegularFile } from '../io/regular-file.ts';

const TEXT_EXTENSIONS = ['.json', '.csv', '.md', '.html'];
const MAX_EXCERPT = 160;

function isText(file: string): boolean {
  return file === SUMS_FILE || TEXT_EXTENSIONS.some((ext) => file.endsWith(ext));
}

function excerpt(text: string): string {
  return text.length > MAX_EXCERPT ? `${text.slice(0, MAX_EXCERPT)}…` : text;
}

/**
 * The line holding byte `offset`, cut to MAX_EXCERPT characters centred on that byte (… where it
 * is cut), so that the two versions shown always include where they differ: a long line cut at
 * its start would show two identical excerpts.
 */
function lineAround(bytes: Buffer, offset: number): string {
  const start = bytes.lastIndexOf(0x0a, offset - 1) + 1;
  const found = bytes.indexOf(0x0a, offset);
  const end = found === -1 ? bytes.length : found;
  // Back to the first byte of a UTF-8 character, so neither half decodes a broken one.
  let at = Math.min(offset, end);
  while (at > start && (bytes[at]! & 0xc0) === 0x80) at--;
  const before = bytes.subarray(start, at).toString('utf8');
  const after = bytes.subarray(at, end).toString('utf8');
  const half = MAX_EXCERPT / 2;
  return `${before.length > half ? `…${before.slice(-half)}` : before}${after.length > half ? `${after.slice(0, half)}…` : after}`;
}

/** Where two text files first differ: the 1-based line, with both versions of it around the first differing byte. */
export function textDifference(file: string, recorded: Buffer, rerun: Buffer): Difference {
  const at = firstDifferingLine(recorded, rerun);
  return {
    file,
    row: at.line,
    message: `line ${at.line} differs (byte ${at.offset}): recorded ${JSON.stringify(lineAround(recorded, at.offset))}, rerun ${JSON.stringify(lineAround(rerun, at.offset))}`,
  };
}

/** A Parquet file read back with DuckDB, rows in file order. */
async function readParquet(path: string): Promise<{ columns: string[]; rows: string[][] }> {
  const db = await openMemoryDatabase();
  try {
    const read = await readJsonRows(db.connection, READ_PARQUET, [path]);
    return {
      columns: read.columns.map((c) => `${c.name} ${c.type}`),
      rows: read.rows.map((row) => row.map((cell) => JSON.stringify(cell))),
    };
  } finally {
    db.close();
  }
}

/** Where two Parquet files first differ: the 1-based row (file order) read back with DuckDB. */
export async function parquetDifference(file: string, recordedPath: string, rerunPath: string): Promise<Difference> {
  const recordedBytes = readRegularFile(recordedPath);
  const offset = firstDifferingLine(recordedBytes, readRegularFile(rerunPath)).offset;
  let recorded: Awaited<ReturnType<typeof readParquet>>;
  try {
    recorded = await readParquet(recordedPath);
  } catch (err) {
    return {
      file,
      message: `bytes differ from byte ${offset}, and it cannot be read back as Parquet: ${(err as Error).message.split('\n')[0]}`,
    };
  }
  const rerun = await readParquet(rerunPath);
  if (recorded.columns.join('\n') !== rerun.columns.join('\n')) {
    const i = recorded.columns.findIndex((c, k) => c !== rerun.columns[k]);
    const at = i === -1 ? recorded.columns.length : i;
    return {
      file,
      message: `its columns differ from column ${at + 1} (of ${recorded.columns.length} recorded, ${rerun.columns.length} rerun): recorded ${recorded.columns[at] ?? '(none)'}, rerun ${rerun.columns[at] ?? '(none)'}`,
    };
  }
  const n = Math.max(recorded.rows.length, rerun.rows.length);
  for (let i = 0; i < n; i++) {
    const a = recorded.rows[i];
    const b = rerun.rows[i];
    if (!a || !b)
      return {
        file,
        row: i + 1,
        message: `row ${i + 1} is ${a ? 'not in the rerun' : 'missing'} (${recorded.rows.length} rows recorded, ${rerun.rows.length} rerun)`,
      };
    const c = a.findIndex((cell, k) => cell !== b[k]);
    if (c !== -1) {
      const column = recorded.columns[c]!.split(' ')[0];
      return { file, row: i + 1, message: `row ${i + 1}, column ${column} differs: recorded ${excerpt(a[c]!)}, rerun ${excerpt(b[c]!)}` };
    }
  }
  return { file, message: `bytes differ from byte ${offset}, but all ${n} rows read back equal (encoding, statistics or metadata differ)` };
}

/** The refusal of the rerun as a difference naming the input it concerns. */
function refusalDifference(outcome: Extract<RerunOutcome, { ok: false }>): Difference {
  const r = outcome.refusal;
  return {
    file: r.file ?? '(study inputs)',
    ...(r.row !== undefined ? { row: r.row } : {}),
    message: `the rerun refused at ${r.stage}: ${r.code}: ${r.message}`,
  };
}

export async function reproducedRail(audited: AuditedDir, outcome: RerunOutcome): Promise<Rail> {
  if (!outcome.ok) {
    const diff = refusalDifference(outcome);
    return failed(
      'reproduced',
      `the rerun refused at ${outcome.refusal.stage}: ${outcome.refusal.code} (${diff.file}${diff.row !== undefined ? `, row ${diff.row}` : ''})`,
      [diff],
      [outcome.refusal.code],
    );
  }
  const d: Difference[] = [];
  const present = (dir: string, file: string) => existsSync(join(dir, file)) && lstatSync(join(dir, file)).isFile();
  const extras = audited.entries
    .map((e) => e.name)
    .filter((f) => !(REPRODUCIBLE_FILES as readonly string[]).includes(f) && f !== SIGNATURE_FILE && f !== CMS_FILE);
  for (const file of [...REPRODUCIBLE_FILES, ...extras]) {
    const inAudited = present(audited.dir, file);
    const inRerun = present(outcome.dir, file);
    if (!inAudited && !inRerun) continue;
    if (!inAudited) {
      d.push({ file, message: 'is produced by the rerun but missing here' });
      continue;
    }
    if (!inRerun) {
      d.push({ file, message: 'is not produced by the rerun' });
      continue;
    }
    const a = readRegularFile(join(audited.dir, file));
    const b = readRegularFile(join(outcome.dir, file));
    if (a.equals(b)) continue;
    if (file.endsWith('.parquet')) d.push(await parquetDifference(file, join(audited.dir, file), join(outcome.dir, file)));
    else if (isText(file)) d.push(textDifference(file, a, b));
    else d.push({ file, message: `differs from byte ${firstDifferingLine(a, b).offset}` });
  }
  const rail = railOf(
    'reproduced',
    `a rerun from the study's inputs gave every file but the signatures byte for byte (run_id ${outcome.manifest.run_id})`,
    d,
  );
  // Byte-identical outputs are promised for the same tool and DuckDB versions: say when they differ.
  const recorded = audited.fields;
  const rerun = outcome.manifest;
  if (!rail.ok && recorded && (recorded.tool.version !== rerun.tool.version || recorded.duckdb_version !== rerun.duckdb_version)) {
    rail.detail += `; note: the outputs were written by prereg ${recorded.tool.version} with DuckDB ${recorded.duckdb_version}, the rerun used prereg ${rerun.tool.version} with DuckDB ${rerun.duckdb_version}`;
  }
  return rail;
}

export function decisionsRail(audited: AuditedDir, outcome: RerunOutcome): Rail {
  const recorded = audited.results?.value;
  if (!recorded || resultsProblems(recorded).length > 0) {
    return railOf('decisions', '', [{ file: 'results.json', message: 'is missing or unreadable: there are no recorded decision rows' }]);
  }
  if (!outcome.ok) {
    const diff = refusalDifference(outcome);
    return failed(
      'decisions',
      `the decisions cannot be recomputed: the rerun refused (${outcome.refusal.code})`,
      [diff],
      [outcome.refusal.code],
    );
  }
  const rerun = parseJsonObject('results.json', readRegularFile(join(outcome.dir, 'results.json'))).value!;
  const d: Difference[] = [];
  for (const table of DECISION_RESULTS) {
    const a = recorded[table] as JsonValue[];
    const b = (rerun as JsonObject)[table] as JsonValue[];
    const n = Math.max(a.length, b.length);
    for (let i = 0; i < n; i++) {
      const x = a[i];
      const y = b[i];
      if (x === undefined || y === undefined) {
        d.push({
          file: 'results.json',
          table,
          row: i + 1,
          message: `${table} row ${i + 1} is ${x ? 'not recomputed' : 'missing'} (${a.length} rows recorded, ${b.length} recomputed)`,
        });
        break;
      }
      if (canonicalJson(x) !== canonicalJson(y)) {
        const rowX = x as JsonObject;
        const rowY = y as JsonObject;
        const keys = [...new Set([...Object.keys(rowX), ...Object.keys(rowY)])];
        const key =
          keys.find((k) => canonicalJson(rowX[k] ?? null) !== canonicalJson(rowY[k] ?? null) || !(k in rowX) || !(k in rowY)) ?? keys[0]!;
        const cell = (r: JsonObject) => (key in r ? excerpt(canonicalJson(r[key])) : '(absent)');
        d.push({
          file: 'results.json',
          table,
          row: i + 1,
          message: `${table} row ${i + 1}, ${key} differs: recorded ${cell(rowX)}, recomputed ${cell(rowY)} (row ${excerpt(canonicalJson(x))})`,
        });
        break;
      }
    }
  }
  return railOf('decisions', `the rerun's assertion_classes, scores and hypotheses equal the rows recorded in results.json`, d);
}
