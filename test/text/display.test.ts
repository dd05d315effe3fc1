// The display rule (pipeline/text/display.ts), one row per character class: each unsafe class
// escaped, the backslash doubled so that a literal `\u001b` and an escaped ESC differ, ordinary
// text (accents, emoji, tabs of other scripts) untouched.
import { describe, expect, it } from 'vitest';
import { hasUnsafe, shown, shownJson, terminalText } from '../../pipeline/text/display.ts';

describe('shown', () => {
  it.each([
    ['ESC', '\u001b[2J', '\\u001b[2J'],
    ['BEL', 'a\u0007', 'a\\u0007'],
    ['CR LF', 'a\r\nb', 'a\\u000d\\u000ab'],
    ['NUL and TAB', '\u0000\t', '\\u0000\\u0009'],
    ['DEL', '\u007f', '\\u007f'],
    ['C1 NEL and CSI', '\u0085\u009b31m', '\\u0085\\u009b31m'],
    ['line and paragraph separators', '\u2028\u2029', '\\u2028\\u2029'],
    ['bidi embeddings and overrides', '\u202a\u202b\u202c\u202d\u202e', '\\u202a\\u202b\\u202c\\u202d\\u202e'],
    ['bidi isolates', '\u2066\u2067\u2068\u2069', '\\u2066\\u2067\\u2068\\u2069'],
    ['a backslash', 'C:\\x', 'C:\\\\x'],
    ['a literal escape typed as text', '\\u001b', '\\\\u001b'],
  ])('%s', (_what, text, expected) => {
    expect(shown(text)).toBe(expected);
    expect(hasUnsafe(shown(text))).toBe(false);
  });

  it('leaves ordinary text as it is', () => {
    for (const text of ['Article R2122-8', 'marché public à 40 000 €', '日本語 עברית العربية', '😀 ok', '\u00a0\u202f'])
      expect(shown(text)).toBe(text);
  });

  it('an escaped ESC and a literal one never look alike', () => {
    expect(shown('\u001b')).not.toBe(shown('\\u001b'));
  });
});

describe('shownJson and terminalText', () => {
  it('shownJson reads back as the same data, with no unsafe character raw', () => {
    const value = { [`k\u009b\u202e`]: ['\u001b\u0085\u2028\\u001b', 1] };
    const text = shownJson(value);
    expect(hasUnsafe(text)).toBe(false);
    expect(JSON.parse(text)).toEqual(value);
  });

  it('terminalText keeps our line breaks, escapes every other unsafe character, and a break too on one line', () => {
    expect(terminalText('a\u001b\nb\u0085')).toBe('a\\u001b\nb\\u0085');
    expect(terminalText('a\nb', false)).toBe('a\\u000ab');
  });
});
