// Transparency-log checkpoints: the signed note of a Merkle tree head (transparency-dev/formats
// log/README.md, C2SP signed-note), as Sigstore Rekor serves it with an inclusion proof:
//
//   <origin>\n<tree size>\n<base64 root hash>\n[<other line>\n…]\n— <name> <base64(hint ‖ sig)>\n…
//
// The signed text is the note: every line up to and including the newline before the blank
// line. Each signature line starts with an em dash (U+2014); its base64 holds a 4-byte key hint
// and the signature. Parsing only: which key must sign, and how, is the caller's (evidence/tlog/rekor-entry.ts).

export interface NoteSignature {
  /** The signer's name as the line gives it. */
  name: string;
  /** The first 4 bytes: which key signed (Rekor: the first 4 bytes of the log id). */
  hint: Buffer;
  signature: Buffer;
}

export interface Checkpoint {
  /** The signed text, UTF-8. */
  note: string;
  origin: string;
  size: number;
  root: Buffer;
  /** Lines of the note after the root hash (extensions), without their newlines. */
  rest: string[];
  signatures: NoteSignature[];
}

/** Standard base64 with padding (RFC 4648 §4), as signed notes and Rekor write binary values. */
export const BASE64_STD = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const SIGNATURE_LINE = /^\u2014 (\S+) (\S+)$/;

/** The checkpoint, or why the text is not one (never throws). */
export function parseCheckpoint(text: string): Checkpoint | string {
  const split = text.indexOf('\n\n');
  if (split < 0) return 'no blank line separates the note from its signatures';
  const note = text.slice(0, split + 1);
  const [origin, sizeText, rootText, ...rest] = note.slice(0, -1).split('\n');
  if (!origin || sizeText === undefined || rootText === undefined)
    return 'the note has fewer than three lines (origin, tree size, root hash)';
  if (!/^(0|[1-9][0-9]*)$/.test(sizeText) || !Number.isSafeInteger(Number(sizeText)))
    return `the tree size line ${JSON.stringify(sizeText)} is not a decimal integer`;
  const root = BASE64_STD.test(rootText) ? Buffer.from(rootText, 'base64') : undefined;
  if (root?.length !== 32) return `the root hash line ${JSON.stringify(rootText)} is not the base64 of 32 bytes`;
  const block = text.slice(split + 2);
  if (block === '') return 'the note carries no signature line';
  if (!block.endsWith('\n')) return 'the signature block does not end with a newline';
  const signatures: NoteSignature[] = [];
  for (const [i, line] of block.slice(0, -1).split('\n').entries()) {
    const m = SIGNATURE_LINE.exec(line);
    const bytes = m && BASE64_STD.test(m[2]!) ? Buffer.from(m[2]!, 'base64') : undefined;
    if (!m || !bytes || bytes.length < 5) return `signature line ${i + 1} is not "— <name> <base64 of key hint and signature>"`;
    signatures.push({ name: m[1]!, hint: bytes.subarray(0, 4), signature: bytes.subarray(4) });
  }
  return { note, origin, size: Number(sizeText), root, rest, signatures };
}
