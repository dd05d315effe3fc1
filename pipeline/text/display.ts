// The display rule (SPEC §12.8) for a string someone else controls (a TSA's names in a token, a
// file name) shown in a terminal: C0 and C1 controls, DEL, the line and paragraph separators and
// the bidi controls are written as \uXXXX escapes, and the backslash as \\, so an escaped byte and
// a literal "\u001b" typed by someone never look alike. Everything else is shown as it is.
const UNSAFE = /[\\\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

export function displayText(text: string): string {
  return text.replace(UNSAFE, (c) => (c === '\\' ? '\\\\' : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`));
}
