// A fast path for reading submission lines (SPEC §5.1, §3): JSON.parse is ≈ 4× faster than the
// canonical parser (formats/canonical-json.ts) but keeps the last of duplicate keys and turns
// every number into a double. A line takes it only when its text shows that neither can change
// anything; any doubt sends it to the canonical parser, which gives the line's real verdict and
// codes. Checked against the canonical parser on generated hostile lines
// (test/formats/json-fast-path.test.ts).
//
// The text must show:
// - no duplicate key: the keys in the text (strings followed by ':') are as many as the parsed
//   objects hold (JSON.parse keeps one of two equal keys, also when one is written with escapes);
// - every number a safe lexeme: an integer of at most 16 digits that is a safe integer, or a
//   decimal without exponent, each printing back as the same lexeme (so 1.0, 0.10, -0, 1e5,
//   9007199254740993 go to the canonical parser, which keeps them as written);
// - no surrogate escape (\ud800–\udfff: a lone one is not text) and no "__proto__" key;
// - nesting less deep than maxDepth - 1 (the canonical parser's limit decides the rest).

/**
 * A string token, matched as runs between escapes (the "unrolled" form: the same strings as
 * "(?:[^"\\]|\\.)*", one step per run rather than per character, ≈ 30% faster here). With every
 * string emptied, a key is `""` then ':', and the digits left are the number tokens: counted and
 * listed by native regular expressions, not token by token in JavaScript (code that has not been
 * optimised yet, in a short run, spent more there than JSON.parse).
 */
const STRING_TOKENS = /"[^"\\]*(?:\\.[^"\\]*)*"/g;
const EMPTIED_KEYS = /""\s*:/g;
const NUMBER_TOKENS = /-?\d[\d.eE+-]*/g;
const SAFE_NUMBER = /^-?(?:0|[1-9]\d{0,15})(?:\.\d+)?$/;
/** A \\uD800–\\uDFFF escape in the raw text: only then can a decoded string hold a lone surrogate. */
export const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;

/** The line's value as plain JSON (numbers as doubles), or undefined when the canonical parser must read it. */
export function parsePlainIfSafe(text: string, maxDepth: number): unknown {
  if (SURROGATE_ESCAPE.test(text)) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined; // the canonical parser says what is wrong, with its code and column
  }
  // Only valid JSON gets here, so the tokens outside strings are punctuation, literals and numbers.
  const outside = text.replace(STRING_TOKENS, '""');
  const keysInText = outside.match(EMPTIED_KEYS)?.length ?? 0;
  for (const token of outside.match(NUMBER_TOKENS) ?? []) {
    if (!SAFE_NUMBER.test(token) || String(Number(token)) !== token || (!token.includes('.') && !Number.isSafeInteger(Number(token))))
      return undefined;
  }
  let keysParsed = 0;
  let doubt = false;
  const walk = (v: unknown, depth: number): void => {
    if (doubt || v === null || typeof v !== 'object') return;
    if (depth >= maxDepth - 1) {
      doubt = true;
      return;
    }
    if (Array.isArray(v)) {
      for (const x of v) walk(x, depth + 1);
      return;
    }
    for (const k of Object.keys(v)) {
      if (k === '__proto__') doubt = true;
      keysParsed++;
      walk((v as Record<string, unknown>)[k], depth + 1);
    }
  };
  walk(value, 0);
  return doubt || keysParsed !== keysInText ? undefined : value;
}
