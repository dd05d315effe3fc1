// Reading the answer key, its secret and the public items, with every problem located.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { schemaProblems, type SchemaName } from '../formats/schemas.ts';
import { decodeText, jsonLinesOf, readJsonLines } from '../io/json-files.ts';
import type { StudyLayout } from '../layout.ts';
import { PreregError, type ReasonCode } from '../reasons.ts';
import type { AnswerKeyItem } from '../study/answer-key.ts';
import type { StudyConfig } from '../study/study.ts';
import { readRegularFile } from '../io/regular-file.ts';
import { normaliseAmount } from '../classify/extract.ts';

export const SECRET_ENV = 'PREREG_ANSWER_KEY_SECRET';
const MIN_SECRET_BYTES = 16;

function readValidatedLines<T extends { item_id: string }>(path: string, schema: SchemaName, code: ReasonCode, bytes?: Uint8Array): T[] {
  return readLocatedLines<T>(path, schema, code, bytes).map((l) => l.value);
}

/** The lines of a JSON-lines file, each validated and with its 1-based line number. */
function readLocatedLines<T extends { item_id: string }>(
  path: string,
  schema: SchemaName,
  code: ReasonCode,
  bytes?: Uint8Array,
): Array<{ line: number; value: T }> {
  const problems: string[] = [];
  const seen = new Set<string>();
  const rows = (bytes === undefined ? readJsonLines(path) : jsonLinesOf(decodeText(bytes, path), path)).map(({ line, value }) => {
    for (const p of schemaProblems(schema, value)) problems.push(`${path}:${line}: ${p}`);
    const id = (value as T).item_id;
    if (typeof id === 'string') {
      if (seen.has(id)) problems.push(`${path}:${line}: item_id ${id} appears twice`);
      seen.add(id);
    }
    return { line, value: value as T };
  });
  if (problems.length > 0) throw new PreregError(code, problems.join('\n'), { path, problems });
  return rows;
}

/** One line of corpus/items.jsonl (schemas/items.schema.json). */
export interface CorpusItem {
  item_id: string;
  question: string;
}

export function readItems(layout: StudyLayout, study: StudyConfig, bytes?: Uint8Array): CorpusItem[] {
  return readValidatedLines<CorpusItem>(join(layout.corpus, study.corpus.items), 'items', 'ITEMS_INVALID', bytes);
}

export function readAnswerKey(path: string): AnswerKeyItem[] {
  return readValidatedLines<AnswerKeyItem>(path, 'answer-key', 'ANSWER_KEY_INVALID');
}

/** The answer key with the line of each item, so that a problem of an item names its line. */
export function readAnswerKeyLines(path: string): Array<{ line: number; value: AnswerKeyItem }> {
  return readLocatedLines<AnswerKeyItem>(path, 'answer-key', 'ANSWER_KEY_INVALID');
}

/**
 * The secret comes from --secret-file, else $PREREG_ANSWER_KEY_SECRET, else the revealed
 * inputs/answer-key.secret. Never from the repository, except the example study's test secret.
 */
export function resolveSecret(layout: StudyLayout, secretFile: string | undefined, env: NodeJS.ProcessEnv): Buffer | null {
  let secret: Buffer;
  if (secretFile !== undefined) {
    if (!existsSync(secretFile)) throw new PreregError('FILE_NOT_FOUND', `secret file ${secretFile} does not exist`);
    secret = readRegularFile(secretFile);
  } else if (env[SECRET_ENV]) {
    secret = Buffer.from(env[SECRET_ENV]!, 'utf8');
  } else if (existsSync(layout.answerKeySecret)) {
    secret = readRegularFile(layout.answerKeySecret);
  } else {
    return null;
  }
  // A trailing newline left by an editor is not part of the secret.
  const text = secret.toString('utf8').replace(/\r?\n$/, '');
  if (Buffer.byteLength(text) < MIN_SECRET_BYTES) {
    throw new PreregError('ANSWER_KEY_SECRET_WEAK', `the answer-key secret must have at least ${MIN_SECRET_BYTES} bytes`);
  }
  return Buffer.from(text, 'utf8');
}

/** The key must cover exactly the public items, each once. */
export function checkKeyCoversItems(key: readonly AnswerKeyItem[], items: ReadonlyArray<{ item_id: string }>): string[] {
  const itemIds = new Set(items.map((i) => i.item_id));
  const keyIds = new Set(key.map((k) => k.item_id));
  const problems: string[] = [];
  for (const id of itemIds) if (!keyIds.has(id)) problems.push(`item ${id} has no answer-key entry`);
  for (const id of keyIds) if (!itemIds.has(id)) problems.push(`answer-key entry ${id} is not a frozen item`);
  return problems;
}

export interface GoldSetProblem {
  code: 'ANSWER_KEY_REF_UNKNOWN' | 'ANSWER_KEY_NEGATIVE_EXPECTS' | 'ANSWER_KEY_AMOUNT_NOT_IN_CORPUS';
  /** The item whose key line is wrong. */
  item_id: string;
  message: string;
}

/**
 * The gold set against the corpus (SPEC §12.5, §13.1): every ref a positive item expects (its
 * citations and its amounts' refs) is an identifier of the frozen vocabulary — an expected
 * `R9999-9` could never be grounded, so every system would fail it —; every expected amount not
 * marked `derived` is one the frozen text of its ref contains (`amountsUnder(ref)`: the canonical
 * values the classify stage's extractor finds there), else every system that writes the article's
 * real amount fails the item; and a negative item, which expects a refusal, expects no ref and no
 * amount.
 */
export function goldSetProblems(
  key: readonly AnswerKeyItem[],
  vocabulary: ReadonlySet<string>,
  amountsUnder: (ref: string) => ReadonlySet<string>,
): GoldSetProblem[] {
  const problems: GoldSetProblem[] = [];
  for (const k of key) {
    const refs = [...k.expected_refs, ...k.expected_amounts.map((a) => a.ref)];
    if (k.kind === 'negative') {
      if (refs.length > 0)
        problems.push({
          code: 'ANSWER_KEY_NEGATIVE_EXPECTS',
          item_id: k.item_id,
          message: `item ${k.item_id} is a negative (it expects a refusal) but expects ${[...new Set(refs)].join(', ')}`,
        });
      continue;
    }
    for (const ref of new Set(refs)) {
      if (!vocabulary.has(ref))
        problems.push({
          code: 'ANSWER_KEY_REF_UNKNOWN',
          item_id: k.item_id,
          message: `item ${k.item_id} expects ${JSON.stringify(ref)}, which no corpus heading declares (it is not in the frozen vocabulary)`,
        });
    }
    for (const a of k.expected_amounts) {
      if (a.derived !== undefined || !vocabulary.has(a.ref)) continue;
      // The key writes `.` as its decimal separator (schemas/answer-key.schema.json).
      const value = normaliseAmount(String(a.value), [], '.');
      const found = amountsUnder(a.ref);
      if (!found.has(value)) {
        problems.push({
          code: 'ANSWER_KEY_AMOUNT_NOT_IN_CORPUS',
          item_id: k.item_id,
          message: `item ${k.item_id} expects ${value} ${a.unit} under ${a.ref}, whose frozen text ${found.size === 0 ? 'holds no amount' : `holds ${[...found].join(', ')}`} (read with the study's amount pattern and separators); correct the amount or the ref, or mark it "derived" with its derivation in words`,
        });
      }
    }
  }
  return problems;
}
