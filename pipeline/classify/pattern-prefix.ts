// The prefixes of a shape pattern's language, for stub detection in truncated answers, and the
// named groups a pattern declares (classify/extract.ts). Pure.

// --- prefixes of a pattern's language (stub detection) --------------------------------------------
// A stub is "a prefix of something a shape pattern matches". ECMAScript has no partial matching, so
// the pattern is parsed (the whole `u`-mode grammar) and rewritten into a pattern whose language is
// exactly the prefixes of the original's: P(a) = a?, P(xy) = x P(y) | P(x), P(x|y) = P(x) | P(y),
// P(x{n,m}) = x{0,m-1} P(x). Zero-width assertions (^ $ \b lookarounds) are read as always true
// and back-references as any text: this can only make more fragments stubs, never fewer.

type Node =
  | { t: 'atom'; src: string }
  | { t: 'empty' }
  | { t: 'any' }
  | { t: 'seq'; items: Node[] }
  | { t: 'alt'; options: Node[] }
  | { t: 'group'; body: Node; name: string | null }
  | { t: 'quant'; body: Node; min: number; max: number };

function parsePattern(src: string): Node {
  let i = 0;
  const fail = (what: string): never => {
    throw new Error(`cannot parse pattern ${JSON.stringify(src)} at ${i}: ${what}`);
  };
  const alt = (): Node => {
    const options = [seq()];
    while (src[i] === '|') {
      i++;
      options.push(seq());
    }
    return options.length === 1 ? options[0]! : { t: 'alt', options };
  };
  const seq = (): Node => {
    const items: Node[] = [];
    while (i < src.length && src[i] !== '|' && src[i] !== ')') items.push(quantified(atom()));
    return { t: 'seq', items };
  };
  const quantified = (body: Node): Node => {
    const q = /^(?:([*+?])|\{([0-9]+)(,([0-9]*))?\})\??/.exec(src.slice(i));
    if (q === null) return body;
    i += q[0].length;
    if (q[1] !== undefined) return { t: 'quant', body, min: q[1] === '+' ? 1 : 0, max: q[1] === '?' ? 1 : Infinity };
    const min = Number(q[2]);
    return { t: 'quant', body, min, max: q[3] === undefined ? min : q[4] === '' ? Infinity : Number(q[4]) };
  };
  const take = (re: RegExp): string => {
    const m = re.exec(src.slice(i)) ?? fail(`expected ${re.source}`);
    i += m[0].length;
    return m[0];
  };
  const atom = (): Node => {
    const c = src[i]!;
    if (c === '(') {
      const head = take(/^\((?:\?(?::|=|!|<=|<!|<([^>]+)>))?/);
      const body = alt();
      if (src[i++] !== ')') fail('unclosed group');
      if (/^\(\?(?:=|!|<=|<!)/.test(head)) return { t: 'empty' };
      const name = /^\(\?<([^>]+)>/.exec(head)?.[1] ?? null;
      return { t: 'group', body, name };
    }
    if (c === '[') return { t: 'atom', src: take(/^\[(?:\\[\s\S]|[^\\\]])*\]/) };
    if (c === '^' || c === '$') return (i++, { t: 'empty' });
    if (c === '\\') {
      const esc = take(
        /^\\(?:[pP]\{[^}]*\}|u\{[0-9a-fA-F]+\}|u[0-9a-fA-F]{4}(?:\\u[dD][c-fC-F][0-9a-fA-F]{2})?|x[0-9a-fA-F]{2}|c[a-zA-Z]|k<[^>]+>|[1-9][0-9]*|[\s\S])/u,
      );
      if (esc === '\\b' || esc === '\\B') return { t: 'empty' };
      if (/^\\(?:k<|[1-9])/.test(esc)) return { t: 'any' };
      return { t: 'atom', src: esc };
    }
    const cp = String.fromCodePoint(src.codePointAt(i)!);
    i += cp.length;
    return { t: 'atom', src: cp };
  };
  const tree = alt();
  if (i !== src.length) fail('unbalanced )');
  return tree;
}

/** The original language, with groups made non-capturing (copies must not repeat a group name). */
function full(n: Node): string {
  switch (n.t) {
    case 'atom':
      return n.src;
    case 'empty':
      return '';
    case 'any':
      return String.raw`[\s\S]*`;
    case 'seq':
      return n.items.map(full).join('');
    case 'alt':
      return `(?:${n.options.map(full).join('|')})`;
    case 'group':
      return `(?:${full(n.body)})`;
    case 'quant':
      return `(?:${full(n.body)}){${n.min},${n.max === Infinity ? '' : n.max}}`;
  }
}

/** The language of all prefixes (the empty string and complete matches included). */
function prefix(n: Node): string {
  switch (n.t) {
    case 'atom':
      return `(?:${n.src})?`;
    case 'empty':
      return '';
    case 'any':
      return String.raw`[\s\S]*`;
    case 'seq': {
      const [first, ...rest] = n.items;
      if (first === undefined) return '';
      if (rest.length === 0) return prefix(first);
      return `(?:${full(first)}${prefix({ t: 'seq', items: rest })}|${prefix(first)})`;
    }
    case 'alt':
      return `(?:${n.options.map(prefix).join('|')})`;
    case 'group':
      return prefix(n.body);
    case 'quant': {
      if (n.max === 0) return '';
      const upTo = n.max === Infinity ? '' : String(n.max - (n.body.t === 'atom' ? 0 : 1));
      // For a single character, "some, then a prefix of one more" is simply "up to max of them".
      return n.body.t === 'atom' ? `(?:${n.body.src}){0,${upTo}}` : `(?:${full(n.body)}){0,${upTo}}${prefix(n.body)}`;
    }
  }
}

/** Whether text[start..] (to the end) is a non-empty prefix of a string the pattern matches. */
export function compilePrefixMatcher(pattern: string): (text: string, start: number) => boolean {
  const re = new RegExp(`(?:${prefix(parsePattern(pattern))})$`, 'uy');
  return (text, start) => {
    if (start >= text.length) return false;
    re.lastIndex = start;
    return re.test(text);
  };
}

export function namedGroups(pattern: string): Set<string> {
  const names = new Set<string>();
  const walk = (n: Node): void => {
    if (n.t === 'seq') n.items.forEach(walk);
    else if (n.t === 'alt') n.options.forEach(walk);
    else if (n.t === 'quant') walk(n.body);
    else if (n.t === 'group') {
      if (n.name !== null) names.add(n.name);
      walk(n.body);
    }
  };
  walk(parsePattern(pattern));
  return names;
}
