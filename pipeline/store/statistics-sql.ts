// The exact statistics section 5 decides its hypotheses with (SPEC §13.2), registered as SQL
// functions on the locked section-5 connection: the TypeScript functions the score stage already
// uses, called by DuckDB, not a second copy in SQL. Counts are DOUBLE parameters so that any
// integer type (BIGINT, HUGEINT from sum()) casts implicitly; a count that is not a whole number
// is refused by the function.
import { DOUBLE, DuckDBListValue, LIST, type DuckDBConnection, type DuckDBValue } from '@duckdb/node-api';
import { binomialAtLeast, binomialAtMost } from '../statistics/binomial-test.ts';
import { clopperPearson } from '../statistics/clopper-pearson.ts';
import { holmWithin } from '../statistics/holm.ts';
import { registerSqlFunction, type SqlFunction } from './sql-functions.ts';

const numbers = (args: readonly DuckDBValue[]): number[] => args.slice(0, 3).map(Number);

function pValues(list: DuckDBValue): number[] {
  const items = list instanceof DuckDBListValue ? list.items : [];
  if (items.some((x) => x === null))
    throw new RangeError('a p-value of the family is NULL: an undecidable hypothesis stays in the family with p = 1');
  return items.map(Number);
}

/** Name, arguments and meaning of each function, as docs/tables.md lists them. */
export const STATISTICS_SQL_FUNCTIONS: readonly SqlFunction[] = [
  {
    name: 'prereg_binomial_at_least',
    parameterTypes: [DOUBLE, DOUBLE, DOUBLE],
    returnType: DOUBLE,
    rule: (a) => binomialAtLeast(...(numbers(a) as [number, number, number])),
  },
  {
    name: 'prereg_binomial_at_most',
    parameterTypes: [DOUBLE, DOUBLE, DOUBLE],
    returnType: DOUBLE,
    rule: (a) => binomialAtMost(...(numbers(a) as [number, number, number])),
  },
  {
    name: 'prereg_clopper_pearson_lower',
    parameterTypes: [DOUBLE, DOUBLE, DOUBLE],
    returnType: DOUBLE,
    rule: (a) => clopperPearson(...(numbers(a) as [number, number, number]))?.lower ?? null,
  },
  {
    name: 'prereg_clopper_pearson_upper',
    parameterTypes: [DOUBLE, DOUBLE, DOUBLE],
    returnType: DOUBLE,
    rule: (a) => clopperPearson(...(numbers(a) as [number, number, number]))?.upper ?? null,
  },
  {
    name: 'prereg_holm',
    parameterTypes: [DOUBLE, LIST(DOUBLE)],
    returnType: DOUBLE,
    rule: ([p, family]) => holmWithin(Number(p), pValues(family!)),
  },
];

/** Registers the statistics functions on a section-5 connection. */
export function registerStatisticsFunctions(connection: DuckDBConnection): void {
  for (const f of STATISTICS_SQL_FUNCTIONS) registerSqlFunction(connection, f);
}
