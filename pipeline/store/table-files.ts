// The SQL files that make the base tables, one list per stage that runs them. The section-5 dry
// run makes every one of them (in this order) so that a plan is checked against the tables a real
// run gives; a new base-table file joins its stage's list here and nowhere else.
import { fileURLToPath } from 'node:url';

const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));

/** ingest: records, evidence, receipts, rejects. */
export const INGEST_TABLES_SQL = here('./tables.sql');
/** verify: the check tables its workers fill. */
export const VERIFY_TABLES_SQL = here('./verify-tables.sql');
/** verify, after the checks, in this order: each reads the tables the previous ones made. */
export const VERIFY_DERIVED_SQL = [
  './evidence-links.sql',
  './evidence-ownership.sql',
  './served-passages.sql',
  './seller-inconsistencies.sql',
].map(here);
/** classify: the base tables of section 5 (assertions, served refs and amounts, mentions). */
export const CLASSIFY_TABLES_SQL = here('./classify-tables.sql');
/** classify, once its base tables are filled: coverage and the jobs committed but not submitted. */
export const COVERAGE_SQL = here('./coverage.sql');
/** score, after section 5: the tables of the statistics it adds (intervals, Holm, what a test can detect). */
export const STATISTICS_TABLES_SQL = here('./statistics-tables.sql');
/** score, once STATISTICS_TABLES_SQL made its table: each flip over attempts, attributed to retrieval or writing. */
export const CONSTANCY_FLIPS_SQL = here('./constancy-flips.sql');

/** freeze's dry run, before COVERAGE_SQL: base-table rows covering every combination of the flags a class is computed from. */
export const CLASS_FIXTURE_SQL = here('./class-fixture.sql');

/** Every base table's file, in the order the stages run them. */
export const BASE_TABLE_SQL = [INGEST_TABLES_SQL, VERIFY_TABLES_SQL, ...VERIFY_DERIVED_SQL, CLASSIFY_TABLES_SQL, COVERAGE_SQL];
