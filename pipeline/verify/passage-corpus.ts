// Which served passages are frozen corpus text (SPEC §12.4): every passage of every evidence
// response matched against the section its ref names (study/corpus-sections.ts) by
// text/corpus-text.ts, into passage_corpus, which served-passages.sql reads. Run by the verify
// stage after the proofs, before the derived SQL.
import type { DuckDBConnection } from '@duckdb/node-api';
import type { CorpusSections } from '../study/corpus-sections.ts';
import { foldText, matchPassage, type FoldedText } from '../text/corpus-text.ts';
import { TableAppender } from '../store/db.ts';
import { streamObjects } from '../store/query.ts';

/** What the passages are matched with: the frozen corpus's sections, and study.json passages.min_chars. */
export interface PassageRule {
  sections: CorpusSections;
  min_chars: number;
}

/** Appends a row of passage_corpus per passage the queries give (statements.ts evidencePassages); returns how many. */
export async function matchPassages(
  connection: DuckDBConnection,
  reader: DuckDBConnection,
  rule: PassageRule,
  ranges: Iterable<string>,
): Promise<number> {
  const folded = new Map<string, FoldedText>();
  const sectionOf = (ref: string | null): FoldedText | undefined => {
    if (ref === null) return undefined;
    const known = folded.get(ref);
    if (known) return known;
    const text = rule.sections.get(ref);
    if (text === undefined) return undefined;
    const f = foldText(text);
    folded.set(ref, f);
    return f;
  };
  const table = await TableAppender.declared(connection, 'passage_corpus');
  let rows = 0;
  for (const sql of ranges) {
    for await (const chunk of streamObjects(reader, sql)) {
      for (const row of chunk) {
        const ref = typeof row.ref === 'string' ? row.ref : null;
        const text = typeof row.text === 'string' ? row.text : null;
        const m = matchPassage(text ?? '', sectionOf(ref), rule.min_chars);
        table.appendNamed({
          record_id: Number(row.record_id),
          evidence_index: Number(row.evidence_index),
          passage_index: Number(row.passage_index),
          ref,
          text,
          corpus_match: m.match,
          in_corpus: m.corpus_text !== null,
          corpus_text: m.corpus_text,
        });
        rows++;
      }
    }
  }
  table.close();
  return rows;
}
