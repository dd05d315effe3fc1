// The classify stage's base tables for section 5: the pipeline extracts assertions from every
// answer and the references and amounts of every served passage; section 5 only classifies.
import type { DuckDBConnection } from '@duckdb/node-api';
import type { AnswerKeyItem } from '../study/answer-key.ts';
import { expectedToolsOf, lineProtocolOf, refusalRuleOf, type StudyConfig } from '../study/study.ts';
import { runSqlFile, TableAppender } from '../store/db.ts';
import { execute, readObjects } from '../store/query.ts';
import { CLASSIFY_TABLES_SQL, COVERAGE_SQL } from '../store/table-files.ts';
import {
  ANSWERS_TO_CLASSIFY,
  PASSAGES_TO_SCAN,
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
  connection: DuckDBConnection,
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
  const refusalRule = refusalRuleOf(study);
  // What the refusal judgement reads of each record; judged once what was served is known.
  const refusalFacts: Array<{ key: RecordKey; facts: RefusalFacts }> = [];
  // The identifiers each record's answer cites (stubs excluded), for passage_mentions.
  const cited = new Map<number, Set<string>>();
  const assertions = await TableAppender.declared(connection, 'assertions');
  for (const r of await readObjects(connection, ANSWERS_TO_CLASSIFY)) {
    counts.records++;
    const id = `${String(r.system_id)}/${String(r.item_id)}/${String(r.attempt)}`;
    const key = { record_id: Number(r.record_id), system_id: String(r.system_id), item_id: String(r.item_id), attempt: Number(r.attempt) };
    const text = String(r.answer_text);
    const truncated = r.truncated === true;
    const extracted = extractor.extract(text, { truncated });
    for (const a of extracted) {
      assertions.appendNamed({
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
    // The pattern's verdict now, so the texts are not held until what was served is known.
    const facts: RefusalFacts = {
      byText: refusalByText(text, refusalRule),
      flag: r.refused === true,
      truncated,
      ...assertionFacts(extracted),
    };
    if (facts.cited.length > 0) cited.set(key.record_id, new Set(facts.cited));
    refusalFacts.push({ key, facts });
  }
  assertions.close();
  const servedRef = await servedFacts(connection, extractor, counts);
  await recordRefusals(connection, refusalFacts, servedRef, counts);
  await passageMentions(connection, cited, counts);
  await execute(connection, SET_ATTEMPTS_PER_ITEM, [lineProtocolOf(study).attemptsPerItem]);
  await execute(connection, SET_EXPECTED_TOOLS_DECLARED, [expectedToolsOf(study) !== null]);
  await runSqlFile(connection, COVERAGE_SQL);
  return counts;
}

/**
 * What each record was served (SPEC §12.4): a passage serves exactly its own `ref` — identifiers
 * its text mentions are mentions (passage_mentions), never served refs — and the amounts its text
 * contains. Declared if any passage serves it (amounts read from the served text), proven if a
 * proven passage does (amounts read from the matched corpus span, served_passages.corpus_text,
 * never from the served bytes), proven_owned if a proven passage whose evidence belongs to the
 * record does (SPEC §6.2).
 */
async function servedFacts(connection: DuckDBConnection, extractor: Extractor, counts: BaseTableCounts): Promise<ServedRef> {
  type Flags = { declared: boolean; proven: boolean; proven_owned: boolean };
  const refs = new Map<string, { record: number; ref: string } & Flags>();
  const amounts = new Map<string, { record: number; value: string; unit: string } & Flags>();
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
  for (const p of await readObjects(connection, SERVED_PASSAGES_TO_CLASSIFY)) {
    const record = Number(p.record_id);
    const declared = p.declared === true;
    // served_passages.proven holds only for a passage matched in the corpus (corpus_text set).
    const proven = p.proven === true;
    const flags = { declared, proven, proven_owned: proven && p.owned === true };
    if (typeof p.ref === 'string' && p.ref !== '') merge(refs, `${record}\u0000${p.ref}`, { record, ref: p.ref, ...flags });
    if (declared)
      for (const a of amountsOf(p.text))
        merge(amounts, `${record}\u0000${a.value}`, {
          record,
          value: a.value,
          unit: a.unit ?? '',
          declared: true,
          proven: false,
          proven_owned: false,
        });
    if (proven)
      for (const a of amountsOf(p.corpus_text))
        merge(amounts, `${record}\u0000${a.value}`, {
          record,
          value: a.value,
          unit: a.unit ?? '',
          declared: false,
          proven: true,
          proven_owned: flags.proven_owned,
        });
  }
  const refTable = await TableAppender.declared(connection, 'served_refs');
  for (const r of [...refs.values()].sort((a, b) => a.record - b.record || (a.ref < b.ref ? -1 : a.ref > b.ref ? 1 : 0))) {
    refTable.appendNamed({ record_id: r.record, ref: r.ref, declared: r.declared, proven: r.proven, proven_owned: r.proven_owned });
    counts.served_refs++;
  }
  refTable.close();
  const amountTable = await TableAppender.declared(connection, 'served_amounts');
  for (const a of [...amounts.values()].sort((x, y) => x.record - y.record || (x.value < y.value ? -1 : x.value > y.value ? 1 : 0))) {
    amountTable.appendNamed({
      record_id: a.record,
      value: a.value,
      unit: a.unit,
      declared: a.declared,
      proven: a.proven,
      proven_owned: a.proven_owned,
    });
    counts.served_amounts++;
  }
  amountTable.close();
  return (record, ref) => {
    const r = refs.get(`${record}\u0000${ref}`);
    return { declared: r?.declared === true, proven: r?.proven_owned === true };
  };
}

type RecordKey = { record_id: number; system_id: string; item_id: string; attempt: number };

/** Whether a reference was served to a record: declared, and proven as section 5 counts it (proven and owned). */
type ServedRef = (record: number, ref: string) => { declared: boolean; proven: boolean };

/**
 * Each record's refusal (SPEC §13.1): the flag as the system declares it, the pattern's verdict on
 * the text, and the judgement in each column — the same rule, "served" read as declared or as
 * proven. A flag the declared judgement contradicts is REFUSAL_FLAG_DISAGREES (with a pattern only).
 */
async function recordRefusals(
  connection: DuckDBConnection,
  records: ReadonlyArray<{ key: RecordKey; facts: RefusalFacts }>,
  served: ServedRef,
  counts: BaseTableCounts,
): Promise<void> {
  const table = await TableAppender.declared(connection, 'record_refusals');
  for (const { key, facts } of records) {
    const declared = judgeRefusal(facts, (ref) => served(key.record_id, ref).declared);
    const proven = judgeRefusal(facts, (ref) => served(key.record_id, ref).proven);
    if (facts.byText !== null && declared !== facts.flag) counts.refusal_flags_disagreeing++;
    table.appendNamed({ ...key, flag: facts.flag, by_text: facts.byText, declared, proven });
  }
  table.close();
}

/**
 * Where served passages write what the answers cite: one row per passage and identifier cited by
 * that record's answer (in the vocabulary or not) that the passage's served text (declared) or its
 * matched corpus span (proven, SPEC §12.4) contains, found by the vocabulary's literal bounded
 * matching (a trie of the record's citations, one pass per text). Section 5 reads it to tell a
 * reference relayed from a served passage from an invented one, and a mention from a served ref.
 */
async function passageMentions(
  connection: DuckDBConnection,
  cited: ReadonlyMap<number, ReadonlySet<string>>,
  counts: BaseTableCounts,
): Promise<void> {
  const table = await TableAppender.declared(connection, 'passage_mentions');
  // One matcher per record, over that record's own citations only: another record's identifier can
  // never shadow one of them (leftmost-longest), and passages come grouped by record.
  let matcherRecord: number | null = null;
  let match = compileLiteralMatcher([]);
  for (const p of await readObjects(connection, PASSAGES_TO_SCAN)) {
    const record = Number(p.record_id);
    const own = cited.get(record);
    if (own === undefined) continue;
    if (matcherRecord !== record) {
      matcherRecord = record;
      match = compileLiteralMatcher(own);
    }
    const inServed = new Set(p.declared === true && typeof p.text === 'string' ? match(p.text).map((m) => m.ref) : []);
    const inCorpus = new Set(p.proven === true && typeof p.corpus_text === 'string' ? match(p.corpus_text).map((m) => m.ref) : []);
    for (const ref of [...new Set([...inServed, ...inCorpus])].sort()) {
      table.appendNamed({
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
  table.close();
}
