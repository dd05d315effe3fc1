// The only text that enters SQL by concatenation: identifiers, and the few string literals DuckDB
// takes no parameter for (ATTACH and COPY paths). Values go in as parameters.

/** A DuckDB identifier, double-quoted (a '"' doubled). */
export function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** A string literal for the few places DuckDB takes no parameter (ATTACH and COPY paths). */
export function quoteLiteral(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}
