// The one display rule (SPEC §12.8; docs/outputs.md, "Showing what others wrote"): every string
// a participant, a file name or a file's content controls is shown through here wherever it
// meets a reader — a terminal line, report.md, report.html, a CSV file. C0 and C1 controls, DEL,
// the line and paragraph separators (U+2028, U+2029) and the bidirectional overrides and isolates
// (U+202A–U+202E, U+2066–U+2069) become `\uXXXX`, and the backslash itself becomes `\\`, so that
// an escaped byte and a participant's literal text `\u001b` never look alike. A terminal then
// runs no sequence of theirs, a line they forge never starts a line of ours, and text never
// reverses its direction. The rule is a pure function of the text: outputs stay byte-identical
// between a run and its audit. Data (Parquet, the store, results.json values) keeps the text as is.

/** The characters the rule escapes (the backslash is escaped too, by `shown`). */
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/gu;
const UNSAFE_OR_BACKSLASH = /[\\\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/gu;

const escaped = (c: string): string => (c === '\\' ? '\\\\' : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

/** `text` as shown to a reader: the unsafe characters and the backslash escaped. */
export function shown(text: string): string {
  return text.replace(UNSAFE_OR_BACKSLASH, escaped);
}

/** Whether `text` holds a character the rule escapes (the backslash aside). */
export function hasUnsafe(text: string): boolean {
  UNSAFE.lastIndex = 0;
  return UNSAFE.test(text);
}

/**
 * JSON text for a terminal: JSON.stringify, then the unsafe characters it leaves raw (C1, DEL,
 * U+2028/2029, the bidi controls; it already escapes C0 and the backslash) as `\uXXXX` escapes.
 * Those occur only inside strings, where the escape is the same JSON value: a parser reads back
 * exactly the data.
 */
export function shownJson(value: unknown): string {
  return JSON.stringify(value).replace(UNSAFE, escaped);
}

/**
 * The last line of defence of a terminal sink, for text our own code composed: a character the
 * rule escapes that a message let through raw is escaped all the same (the line breaks our code
 * wrote aside). Participant strings go through `shown` where they are put into a message; this
 * only keeps a missed one from reaching the terminal as a control.
 */
export function terminalText(text: string, keepLineBreaks = true): string {
  return text.replace(UNSAFE, (c) => (c === '\n' && keepLineBreaks ? c : escaped(c)));
}
