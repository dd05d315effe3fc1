// The one place the product registers a SQL function with DuckDB (test/house/sql-functions.test.ts).
// DuckDB calls a function on whole chunks (up to 2,048 rows) where NULL and other rows mix, and on
// the dictionary of a compressed column, which may hold a NULL no row uses: a row with a NULL
// argument is answered NULL here, never handed to the rule. A rule's RangeError (an argument it
// refuses) becomes the statement's error, so a plan that calls it wrongly fails where it runs.
import { DuckDBScalarFunction, type DuckDBConnection, type DuckDBType, type DuckDBValue } from '@duckdb/node-api';

export interface SqlFunction {
  name: string;
  parameterTypes: readonly DuckDBType[];
  returnType: DuckDBType;
  /** Called with non-NULL arguments only; returns the row's value (NULL allowed). */
  rule: (args: readonly DuckDBValue[]) => DuckDBValue;
}

export function registerSqlFunction(connection: DuckDBConnection, f: SqlFunction): void {
  connection.registerScalarFunction(
    DuckDBScalarFunction.create({
      name: f.name,
      returnType: f.returnType,
      parameterTypes: f.parameterTypes,
      mainFunction: (info, input, output) => {
        const columns = f.parameterTypes.map((_, i) => input.getColumnVector(i));
        for (let row = 0; row < input.rowCount; row++) {
          const args = columns.map((c) => c.getItem(row));
          if (args.some((a) => a === null)) {
            output.setItem(row, null);
            continue;
          }
          try {
            output.setItem(row, f.rule(args));
          } catch (err) {
            info.setError(`${f.name}: ${(err as Error).message}`);
            return;
          }
        }
        output.flush();
      },
    }),
  );
}
