// Reading our JSON inputs through the canonical parser (duplicate keys refused), with the file,
// line and column in every error; each refusal exits as the reason catalogue says.
import { JsonParseError, parseJson, toPlain, type JsonValue } from '../formats/canonical-json.ts';
import { PreregError } from '../reasons.ts';
import { readRegularFile } from './regular-file.ts';

const utf8 = new TextDecoder('utf-8', { fatal: true });

export function readText(path: string): string {
  return decodeText(readRegularFile(path), path);
}

/** The bytes read from `path` as UTF-8 text (JSON_NOT_UTF8 otherwise). */
export function decodeText(data: Uint8Array, path: string): string {
  try {
    return utf8.decode(data);
  } catch {
    throw new PreregError('JSON_NOT_UTF8', `${path} is not valid UTF-8`, { path });
  }
}

export function parseJsonAt(text: string, where: string, lineOffset = 0): JsonValue {
  try {
    return parseJson(text);
  } catch (err) {
    if (err instanceof JsonParseError) {
      const line = err.line + lineOffset;
      throw new PreregError(err.code, `${where}:${line}:${err.column}: ${err.message}`, {
        file: where,
        line,
        column: err.column,
      });
    }
    throw err;
  }
}

export function readJsonFile(path: string): unknown {
  return parseJsonBytes(readRegularFile(path), path);
}

/** A JSON file's bytes already read (to hash exactly what is parsed), parsed as readJsonFile parses the file; `path` names it in errors. */
export function parseJsonBytes(data: Uint8Array, path: string): unknown {
  return toPlain(parseJsonAt(decodeText(data, path), path, 0));
}

/** JSONL: one value per non-empty line; returns each with its 1-based line number. */
export function readJsonLines(path: string): Array<{ line: number; value: unknown }> {
  return jsonLinesOf(readText(path), path);
}

/** JSONL already read (`path` names it in errors): one value per non-empty line, each with its 1-based line number. */
export function jsonLinesOf(text: string, path: string): Array<{ line: number; value: unknown }> {
  const out: Array<{ line: number; value: unknown }> = [];
  const lines = text.split('\n');
  lines.forEach((text, i) => {
    // Only the empty string after the final newline is skipped; an empty line inside is an error.
    if (text === '' && i === lines.length - 1) return;
    out.push({ line: i + 1, value: toPlain(parseJsonAt(text, path, i)) });
  });
  return out;
}
