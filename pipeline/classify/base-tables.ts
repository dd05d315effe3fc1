// The classify stage's base tables for section 5: the pipeline extracts assertions from every
// answer and the references and amounts of every served passage; section 5 only classifies.
import type { AnswerKeyItem } from '../study/answer-key.ts';
import { expectedToolsOf, lineProtocolOf, refusalRuleOf, type StudyConfig } from '../study/study.ts';
import { runSqlFile, TableAppender, type Store } from '../store/db.ts';
import { execute, streamObjects } from '../store/query.ts';
import type { TableRow } from '../store/table-declarations.ts';
import { CLASSIFY_TABLES_SQL, COVERAGE_SQL } from '../store/table-files.ts';
import {
  ANSWERS_TO_CLASSIFY,
  SERVED_PASSAGES_TO_CLASSIFY,
  SET_ATTEMPTS_PER_ITEM,
  SET_EXPECTED_TOOLS_DECLARED,
} from '../store/statements.ts';
import { amountsIn, compileExtractor, extractorConfigFromStudy, type Extractor } from './extract.ts';
import { assertionFacts, judgeRefusal, refusalByText, type RefusalFacts } from './refusal.ts';
import { compileLiteralMatcher } from './vocabulary-trie.ts';

export interface BaseTableCounts {
  records: number;
  assertions: number;
  served_refs: number;
  served_amounts: number;
  passage_mentions: number;
  /** Records whose `refused` flag the refusal judgement (served as declared) contradicts (REFUSAL_FLAG_DISAGREES). */
  refusal_flags_disagreeing: number;
}

export async function buildBaseTables(
  { instance, connection }: Store,
  study: StudyConfig,
  vocabulary: readonly string[],
  answerKey: readonly AnswerKeyItem[],
  items: ReadonlyArray<{ item_id: string; question: string }>,
): Promise<BaseTableCounts> {
  await runSqlFile(connection, CLASSIFY_TABLES_SQL);
  const extractor = compileExtractor(extractorConfigFromStudy(study, vocabulary));

  const key = await TableAppender.declared(connection, 'answer_key');
  const amounts = await TableAppender.declared(connection, 'answer_key_amounts');
  for (const k of answerKey) {
    key.appendNamed({ item_id: k.item_id, kind: k.kind, expected_refs: k.expected_refs });
    for (const a of k.expected_amounts)
      amounts.appendNamed({ item_id: k.item_id, ref: a.ref, value: String(a.value), unit: a.unit, derived: a.derived ?? null });
  }
  key.close();
  amounts.close();
  const vocab = await TableAppender.declared(connection, 'vocabulary');
  for (const ref of vocabulary) vocab.appendNamed({ ref });
  vocab.close();
  const itemTable = await TableAppender.declared(connection, 'items');
  for (const i of items) itemTable.appendNamed({ item_id: i.item_id, question: i.question });
  itemTable.close();

  const counts: BaseTableCounts = {
    records: 0,
    assertions: 0,
    served_refs: 0,
    served_amounts: 0,
    passage_mentions: 0,
    refusal_flags_disagreeing: 0,
  };
  const tables: RecordTables = {
    assertions: await TableAppender.declared(connection, 'assertions'),
    served_refs: await TableAppender.declared(connection, 'served_refs'),
    served_amounts: await TableAppender.declared(connection, 'served_amounts'),
    record_refusals: await TableAppender.declared(connection, 'record_refusals'),
    passage_mentions: await TableAppender.declared(connection, 'passage_mentions'),
  };
  const refusalRule = refusalRuleOf(study);
  // Record by record, the answer beside the passages served to it, each read a chunk at a time on
  // its own connection (the appenders write on `connection`): nothing per record is kept once that
  // record's rows are appended, so the stage's memory does not grow with the study.
  const answerReader = await instance.connect();
  const passageReader = await instance.connect();
  try {
    const answers = byRecord(streamObjects(answerReader, ANSWERS_TO_CLASSIFY));
    const passages = byRecord(streamObjects(passageReader, SERVED_PASSAGES_TO_CLASSIFY));
    let answer = await answers.next();
    let served = await passages.next();
    while (!answer.done || !served.done) {
      const record = Math.min(answer.done ? Infinity : answer.value.record, served.done ? Infinity : served.value.record);
      const answerRow = !answer.done && answer.value.record === record ? answer.value.rows[0]! : null;
      const passageRows = !served.done && served.value.record === record ? served.value.rows : [];
      classifyRecord(tables, extractor, refusalRule, record, answerRow, passageRows, counts);
      if (answerRow !== null) answer = await answers.next();
      if (passageRows.length > 0) served = await passages.next();
    }
  } finally {
    answerReader.closeSync();
    passageReader.closeSync();
  }
  for (const table of Object.values(tables)) table.close();
  await execute(connection, SET_ATTEMPTS_PER_ITEM, [lineProtocolOf(study).attemptsPerItem]);
  await execute(connection, SET_EXPECTED_TOOLS_DECLARED, [expectedToolsOf(study) !== null]);
  await runSqlFile(connection, COVERAGE_SQL);
  return counts;
}

/** The appenders of the tables classify fills record by record. */
interface RecordTables {
  assertions: TableAppender<TableRow<'assertions'>>;
  served_refs: TableAppender<TableRow<'served_refs'>>;
  served_amounts: TableAppender<TableRow<'served_amounts'>>;
  record_refusals: TableAppender<TableRow<'record_refusals'>>;
  passage_mentions: TableAppender<TableRow<'passage_mentions'>>;
}

type Rows = Array<Record<string, unknown>>;

/** A stream of rows ordered by record_id, as one group of rows per record. */
async function* byRecord(chunks: AsyncGenerator<Rows>): AsyncGenerator<{ record: number; rows: Rows }> {
  let group: { record: number; rows: Rows } | null = null;
  for await (const chunk of chunks) {
    for (const row of chunk) {
      const record = Number(row.record_id);
      if (group !== null && group.record === record) {
        group.rows.push(row);
        continue;
      }
      if (group !== null) yield group;
      group = { record, rows: [row] };
    }
  }
  if (group !== null) yield group;
}

/**
 * One record's rows of every table classify fills: its answer's assertions (none without an
 * answer), what it was served, its refusal, and where its served passages write what it cites.
 */
function classifyRecord(
  tables: RecordTables,
  extractor: Extractor,
  refusalRule: ReturnType<typeof refusalRuleOf>,
  record: number,
  answer: Record<string, unknown> | null,
  passages: Rows,
  counts: BaseTableCounts,
): void {
  let judged: { key: RecordKey; facts: RefusalFacts } | null = null;
  if (answer !== null) {
    counts.records++;
    const r = answer;
    const id = `${String(r.system_id)}/${String(r.item_id)}/${String(r.attempt)}`;
    const key = { record_id: record, system_id: String(r.system_id), item_id: String(r.item_id), attempt: Number(r.attempt) };
    const text = String(r.answer_text);
    const truncated = r.truncated === true;
    const extracted = extractor.extract(text, { truncated });
    for (const a of extracted) {
      tables.assertions.appendNamed({
        ...key,
        assertion_id: `${id}/${a.assertion_index}`,
        assertion_index: a.assertion_index,
        kind: a.kind,
        ref: a.ref,
        in_vocabulary: a.in_vocabulary,
        value: a.value,
        unit: a.unit,
        start_offset: a.start,
        end_offset: a.end,
        text: a.text,
        stub: a.stub,
      });
      counts.assertions++;
    }
    judged = {
      key,
      facts: { byText: refusalByText(text, refusalRule), flag: r.refused === true, truncated, ...assertionFacts(extracted) },
    };
  }
  const served = servedFacts(tables, extractor, record, passages, counts);
  if (judged !== null) {
    recordRefusal(tables, judged.key, judged.facts, served, counts);
    if (judged.facts.cited.length > 0) passageMentions(tables, record, new Set(judged.facts.cited), passages, counts);
  }
}

/**
 * What a record was served (SPEC §12.4): a passage serves exactly its own `ref` — identifiers
 * its text mentions are mentions (passage_mentions), never served refs — and the amounts its text
 * contains. Declared if any passage serves it (amounts read from the served text), proven if a
 * proven passage does (amounts read from the matched corpus span, served_passages.corpus_text,
 * never from the served bytes), proven_owned if a proven passage whose evidence belongs to the
 * record does (SPEC §6.2).
 */
function servedFacts(tables: RecordTables, extractor: Extractor, record: number, passages: Rows, counts: BaseTableCounts): ServedRef {
  type Flags = { declared: boolean; proven: boolean; proven_owned: boolean };
  const refs = new Map<string, { ref: string } & Flags>();
  const amounts = new Map<string, { value: string; unit: string } & Flags>();
  const merge = <T extends Flags>(map: Map<string, T>, k: string, fresh: T) => {
    const seen = map.get(k);
    if (!seen) map.set(k, fresh);
    else {
      seen.declared ||= fresh.declared;
      seen.proven ||= fresh.proven;
      seen.proven_owned ||= fresh.proven_owned;
    }
  };
  const amountsOf = (text: unknown) => amountsIn(extractor, typeof text === 'string' ? text : '');
  for (const p of passages) {
    const declared = p.declared === true;
    // served_passages.proven holds only for a passage matched in the corpus (corpus_text set).
    const proven = p.proven === true;
    const flags = { declared, proven, proven_owned: proven && p.owned === true };
    if (typeof p.ref === 'string' && p.ref !== '') merge(refs, p.ref, { ref: p.ref, ...flags });
    if (declared)
      for (const a of amountsOf(p.text))
        merge(amounts, a.value, { value: a.value, unit: a.unit ?? '', declared: true, proven: false, proven_owned: false });
    if (proven)
      for (const a of amountsOf(p.corpus_text))
        merge(amounts, a.value, { value: a.value, unit: a.unit ?? '', declared: false, proven: true, proven_owned: flags.proven_owned });
  }
  for (const r of [...refs.values()].sort((a, b) => (a.ref < b.ref ? -1 : a.ref > b.ref ? 1 : 0))) {
    tables.served_refs.appendNamed({ record_id: record, ref: r.ref, declared: r.declared, proven: r.proven, proven_owned: r.proven_owned });
    counts.served_refs++;
  }
  for (const a of [...amounts.values()].sort((x, y) => (x.value < y.value ? -1 : x.value > y.value ? 1 : 0))) {
    tables.served_amounts.appendNamed({
      record_id: record,
      value: a.value,
      unit: a.unit,
      declared: a.declared,
      proven: a.proven,
      proven_owned: a.proven_owned,
    });
    counts.served_amounts++;
  }
  return (ref) => {
    const r = refs.get(ref);
    return { declared: r?.declared === true, proven: r?.proven_owned === true };
  };
}

type RecordKey = { record_id: number; system_id: string; item_id: string; attempt: number };

/** Whether a reference was served to the record: declared, and proven as section 5 counts it (proven and owned). */
type ServedRef = (ref: string) => { declared: boolean; proven: boolean };

/**
 * A record's refusal (SPEC §13.1): the flag as the system declares it, the pattern's verdict on
 * the text, and the judgement in each column — the same rule, "served" read as declared or as
 * proven. A flag the declared judgement contradicts is REFUSAL_FLAG_DISAGREES (with a pattern only).
 */
function recordRefusal(tables: RecordTables, key: RecordKey, facts: RefusalFacts, served: ServedRef, counts: BaseTableCounts): void {
  const declared = judgeRefusal(facts, (ref) => served(ref).declared);
  const proven = judgeRefusal(facts, (ref) => served(ref).proven);
  if (facts.byText !== null && declared !== facts.flag) counts.refusal_flags_disagreeing++;
  tables.record_refusals.appendNamed({ ...key, flag: facts.flag, by_text: facts.byText, declared, proven });
}

/**
 * Where served passages write what the answer cites: one row per passage and identifier cited by
 * the record's answer (in the vocabulary or not) that the passage's served text (declared) or its
 * matched corpus span (proven, SPEC §12.4) contains, found by the vocabulary's literal bounded
 * matching (a trie of the record's citations, one pass per text). Section 5 reads it to tell a
 * reference relayed from a served passage from an invented one, and a mention from a served ref.
 * The matcher holds the record's own citations only: another record's identifier can never shadow
 * one of them (leftmost-longest).
 */
function passageMentions(tables: RecordTables, record: number, cited: ReadonlySet<string>, passages: Rows, counts: BaseTableCounts): void {
  if (passages.length === 0) return;
  const match = compileLiteralMatcher(cited);
  for (const p of passages) {
    const inServed = new Set(p.declared === true && typeof p.text === 'string' ? match(p.text).map((m) => m.ref) : []);
    const inCorpus = new Set(p.proven === true && typeof p.corpus_text === 'string' ? match(p.corpus_text).map((m) => m.ref) : []);
    for (const ref of [...new Set([...inServed, ...inCorpus])].sort()) {
      tables.passage_mentions.appendNamed({
        record_id: record,
        evidence_index: Number(p.evidence_index),
        passage_index: Number(p.passage_index),
        ref,
        declared: inServed.has(ref),
        proven: inCorpus.has(ref),
        owned: p.owned === true,
      });
      counts.passage_mentions++;
    }
  }
}
