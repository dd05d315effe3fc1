// ArkForge's published key history (`published_keys.json`) turned into trust-policy entries
// (SPEC §5.4; docs/trust.md, "import-arkforge"). Pure: the stage reads the files and writes the
// plan; nothing here touches the file system.
//
//   {keys: [{kid, type: "Ed25519", public: "ed25519:…", valid_from, retired_at}],
//    rekor_keys: [{kid, type: "ECDSA-P256-SHA256", public_pem, valid_from, retired_at}]}
//
// Other members (`_doc`, `node`, …) are ignored. `retired_at` is the end of the window, exclusive
// ("valid for proofs dated before retired_at"); null is no end and becomes `valid_until: null`.
// Proof keys go to arkforge_keys; rekor keys are the issuer's log-signing keys and go to
// tlog_submitter_keys, each as a PEM file `tlog-submitters/<kid>.pub.pem` of the trust directory.
import type { KeyObject } from 'node:crypto';
import { canonicalJson, JsonParseError, parseJson, toPlain, isRecord } from '../formats/canonical-json.ts';
import { isUtcInstantZ, utcMillis } from '../formats/utc-instant.ts';
import { parseSpkiPem } from '../evidence/tlog/index.ts';
import { decodeEd25519PublicKey } from '../evidence/trust/index.ts';
import { TRUST_POLICY_FIELDS, type TrustPolicy, type WindowEnd } from '../formats/trust-policy.ts';
import { PreregError } from '../reasons.ts';
import { shown as displayed } from '../text/display.ts';

export interface PublishedProofKey {
  kid: string;
  /** Canonical ed25519:<base64url of the 32 bytes>. */
  public_key: string;
  valid_from: string;
  valid_until: WindowEnd;
}

export interface PublishedRekorKey {
  kid: string;
  key: KeyObject;
  /** The SubjectPublicKeyInfo PEM as Node writes it (64-column base64, one final newline). */
  pem: string;
  valid_from: string;
  valid_until: WindowEnd;
}

export interface ArkForgeKeyHistory {
  proofKeys: PublishedProofKey[];
  rekorKeys: PublishedRekorKey[];
}

/** Where the rekor keys' PEM files go, inside the trust directory. */
const SUBMITTER_KEY_DIR = 'tlog-submitters';

// A kid names a file: letters, digits, '.', '_', '-', not starting with '.'.
const KID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/**
 * Read a published_keys.json text. Throws PreregError ARKFORGE_KEYS_INVALID (exit 3) naming
 * `file` and the field: bad JSON (with line and column), a missing or mistyped member, an
 * unknown type, a key that does not decode, a date that is not ISO-8601 UTC, an empty window,
 * a kid that is not a safe name or is given twice in its list.
 */
export function parseArkForgeKeyHistory(text: string, file: string): ArkForgeKeyHistory {
  const bad = (field: string | null, problem: string, more: Record<string, unknown> = {}): never => {
    throw new PreregError('ARKFORGE_KEYS_INVALID', `${displayed(file)}${field === null ? '' : `: ${field}`}: ${problem}`, {
      path: file,
      field,
      ...more,
    });
  };
  let doc: unknown;
  try {
    doc = toPlain(parseJson(text));
  } catch (e) {
    if (!(e instanceof JsonParseError)) throw e;
    return bad(null, `${e.code}: ${e.message}`, { line: e.line, column: e.column });
  }
  if (!isRecord(doc)) return bad(null, 'is not a JSON object');
  if (!Array.isArray(doc.keys)) return bad('keys', 'must be an array of Ed25519 proof keys');
  if (doc.rekor_keys !== undefined && !Array.isArray(doc.rekor_keys)) return bad('rekor_keys', 'must be an array of rekor keys');

  const windowOf = (k: Record<string, unknown>, at: string): { valid_from: string; valid_until: WindowEnd } => {
    const from = k.valid_from;
    const until = k.retired_at;
    if (!isUtcInstantZ(from)) bad(`${at}.valid_from`, `${shown(from)} is not an ISO-8601 UTC instant (YYYY-MM-DDTHH:MM:SSZ)`);
    if (until !== null && !isUtcInstantZ(until)) bad(`${at}.retired_at`, `${shown(until)} is neither null nor an ISO-8601 UTC instant`);
    if (typeof until === 'string' && !(utcMillis(from as string)! < utcMillis(until)!))
      bad(`${at}.retired_at`, `the window [valid_from ${String(from)}, retired_at ${until}) is empty`);
    return { valid_from: from as string, valid_until: until as WindowEnd };
  };
  const kidOf = (k: Record<string, unknown>, at: string, seen: Set<string>): string => {
    const kid = k.kid;
    if (typeof kid !== 'string' || !KID.test(kid)) bad(`${at}.kid`, `${shown(kid)} is not a key id (letters, digits, . _ -; at most 64)`);
    if (seen.has(kid as string)) bad(`${at}.kid`, `${shown(kid)} is given twice`);
    seen.add(kid as string);
    return kid as string;
  };

  const seenProof = new Set<string>();
  const proofKeys = (doc.keys as unknown[]).map((k, i): PublishedProofKey => {
    const at = `keys[${i}]`;
    if (!isRecord(k)) return bad(at, 'is not an object');
    const kid = kidOf(k, at, seenProof);
    if (k.type !== 'Ed25519') bad(`${at}.type`, `${shown(k.type)} is not a known proof-key type (Ed25519)`);
    const raw = typeof k.public === 'string' ? decodeEd25519PublicKey(k.public) : undefined;
    if (!raw) bad(`${at}.public`, `${shown(k.public)} is not ed25519:<base64url of a 32-byte Ed25519 public key>`);
    return { kid, public_key: `ed25519:${raw!.toString('base64url')}`, ...windowOf(k, at) };
  });

  const seenRekor = new Set<string>();
  const rekorKeys = ((doc.rekor_keys ?? []) as unknown[]).map((k, i): PublishedRekorKey => {
    const at = `rekor_keys[${i}]`;
    if (!isRecord(k)) return bad(at, 'is not an object');
    const kid = kidOf(k, at, seenRekor);
    if (k.type !== 'ECDSA-P256-SHA256') bad(`${at}.type`, `${shown(k.type)} is not a known rekor-key type (ECDSA-P256-SHA256)`);
    const key = typeof k.public_pem === 'string' ? p256PublicKey(k.public_pem) : undefined;
    if (!key) return bad(`${at}.public_pem`, 'is not one PEM public key (-----BEGIN PUBLIC KEY-----) on the P-256 curve');
    return { kid, key, pem: key.export({ type: 'spki', format: 'pem' }).toString(), ...windowOf(k, at) };
  });
  return { proofKeys, rekorKeys };
}

// --- merging into a policy ---------------------------------------------------------------------

export type ImportAction = 'added' | 'unchanged' | 'updated';

export interface ImportedKey {
  list: 'arkforge_keys' | 'tlog_submitter_keys';
  key_id: string;
  action: ImportAction;
  valid_from: string;
  valid_until: WindowEnd;
  /** The PEM file of a submitter key, relative to the trust directory. */
  file?: string;
}

export interface ImportPlan {
  /** The policy after the import: every member not named here kept as it was, in its order. */
  policy: TrustPolicy;
  /** Whether the policy's content changes (its file is rewritten only then). */
  policyChanged: boolean;
  /** PEM files to write (absent, or present with other bytes is a conflict): path relative to the trust directory. */
  files: Array<{ path: string; text: string }>;
  keys: ImportedKey[];
}

/**
 * The policy with the history's keys pinned. A kid already pinned with the same key keeps its
 * entry (and its file); its window becomes the published one ('updated') only when that narrows
 * it — a key the issuer retired since — never when it would widen what the operator pinned. A
 * kid pinned with another key, the same key pinned under another kid, a published window wider
 * than the pinned one, or a submitter file that exists with other bytes, is ARKFORGE_KEY_CONFLICT
 * (exit 4). `readExisting(path)` is the text of a file of the trust directory, or undefined.
 */
export function planArkForgeImport(
  policy: TrustPolicy,
  history: ArkForgeKeyHistory,
  readExisting: (path: string) => string | undefined,
): ImportPlan {
  const conflict = (field: string, problem: string): never => {
    throw new PreregError('ARKFORGE_KEY_CONFLICT', `policy.json ${field}: ${problem}; nothing was written`, { field });
  };
  const keys: ImportedKey[] = [];
  const merge = mergePinned(keys, conflict);
  const ed25519Identity = (publicKey: string) => decodeEd25519PublicKey(publicKey)?.toString('hex');
  const arkforge = merge('arkforge_keys', policy.arkforge_keys, history.proofKeys, {
    identity: (k) => ed25519Identity(k.public_key),
    publishedIdentity: (p) => ed25519Identity(p.public_key)!,
    shown: (k) => k.public_key,
    add: (p, window) => ({ key_id: p.kid, public_key: p.public_key, ...window }),
  });

  const files: ImportPlan['files'] = [];
  // Each pinned key file read and decoded once, whatever the number of published keys.
  const decoded = new Map<string, KeyObject | undefined>();
  const pinnedKey = (file: string): KeyObject | undefined => {
    if (!decoded.has(file)) {
      const text = readExisting(file);
      decoded.set(file, text === undefined ? undefined : parseSpkiPem(text));
    }
    return decoded.get(file);
  };
  const spkiIdentity = (key: KeyObject) => key.export({ type: 'spki', format: 'der' }).toString('hex');
  const submitters = merge('tlog_submitter_keys', policy.tlog_submitter_keys ?? [], history.rekorKeys, {
    identity: (k) => {
      const key = pinnedKey(k.public_key_file);
      return key === undefined ? undefined : spkiIdentity(key);
    },
    publishedIdentity: (r) => spkiIdentity(r.key),
    shown: (k) => (readExisting(k.public_key_file) === undefined ? `${k.public_key_file}, a file that does not exist` : k.public_key_file),
    file: (k) => k.public_key_file,
    add: (r, window) => {
      const path = `${SUBMITTER_KEY_DIR}/${r.kid}.pub.pem`;
      const existing = readExisting(path);
      if (existing !== undefined && existing !== r.pem)
        conflict(`tlog_submitter_keys (${path})`, `the file exists with other content than rekor key ${r.kid}`);
      if (existing === undefined) files.push({ path, text: r.pem });
      return { key_id: r.kid, public_key_file: path, ...window };
    },
  });

  let next = withMember(policy, 'arkforge_keys', arkforge);
  if (submitters.length > 0 || policy.tlog_submitter_keys !== undefined) next = withMember(next, 'tlog_submitter_keys', submitters);
  return { policy: next, policyChanged: canonicalJson(next) !== canonicalJson(policy), files, keys };
}

/**
 * `policy` with member `name` set to `value`: in its place when present, else after the last
 * member the schema lists before it (TRUST_POLICY_FIELDS), so a rewritten policy keeps its order.
 */
export function withMember<K extends keyof TrustPolicy>(policy: TrustPolicy, name: K, value: TrustPolicy[K]): TrustPolicy {
  const entries = Object.entries(policy);
  if (Object.hasOwn(policy, name))
    return Object.fromEntries(entries.map(([k, v]) => [k, k === name ? value : v])) as unknown as TrustPolicy;
  const rank = (k: string) => TRUST_POLICY_FIELDS.indexOf(k as (typeof TRUST_POLICY_FIELDS)[number]);
  const before = rank(name);
  let at = 0;
  entries.forEach(([k], i) => {
    if (rank(k) >= 0 && rank(k) < before) at = i + 1;
  });
  entries.splice(at, 0, [name, value]);
  return Object.fromEntries(entries) as unknown as TrustPolicy;
}

/** How one list of pinned keys meets the published keys of its kind. */
interface MergeRules<E extends { key_id: string } & Window, P extends { kid: string } & Window> {
  /** The key a pinned entry holds, as text equal for equal keys (undefined: it holds none readable). */
  identity(entry: E): string | undefined;
  /** The same for a published key. */
  publishedIdentity(published: P): string;
  /** The pinned entry's key, for messages. */
  shown(entry: E): string;
  /** The entry's key file, reported with it (submitter keys). */
  file?(entry: E): string;
  /** The entry pinning a key not pinned yet. */
  add(published: P, window: Window): E;
}

/**
 * The one merge both lists follow: a key pinned under another key_id, a key_id pinned with
 * another key, or a published window wider than the pinned one is a conflict; a new key is
 * added; a pinned one takes the published window ('updated' when it narrows, else 'unchanged').
 */
function mergePinned(keys: ImportedKey[], conflict: (field: string, problem: string) => never) {
  return <E extends { key_id: string } & Window, P extends { kid: string } & Window>(
    list: ImportedKey['list'],
    pinnedList: readonly E[],
    publishedList: readonly P[],
    rules: MergeRules<E, P>,
  ): E[] => {
    const entries = pinnedList.map((k) => ({ ...k }));
    // Indexes by key id and by key, so each published key costs one look-up, not a scan of the
    // list (a scan per key made 20,000 keys take minutes). A hand-written policy may pin one key
    // twice: every position is kept, in order.
    const byId = new Map<string, number>();
    const byKey = new Map<string, number[]>();
    const index = (k: E, i: number, key = rules.identity(k)) => {
      if (!byId.has(k.key_id)) byId.set(k.key_id, i);
      if (key !== undefined) byKey.set(key, [...(byKey.get(key) ?? []), i]);
    };
    entries.forEach((k, i) => {
      index(k, i);
    });
    for (const p of publishedList) {
      const window: Window = { valid_from: p.valid_from, valid_until: p.valid_until };
      const key = rules.publishedIdentity(p);
      const twin = (byKey.get(key) ?? []).find((j) => entries[j]!.key_id !== p.kid);
      if (twin !== undefined)
        conflict(
          `${list}[${twin}]`,
          `the published key ${p.kid} is already pinned as ${entries[twin]!.key_id} (${rules.shown(entries[twin]!)})`,
        );
      const i = byId.get(p.kid);
      if (i === undefined) {
        const added = rules.add(p, window);
        entries.push(added);
        index(added, entries.length - 1, key);
        keys.push({ list, key_id: p.kid, action: 'added', ...(rules.file ? { file: rules.file(added) } : {}), ...window });
        continue;
      }
      const pinned = entries[i]!;
      if (rules.identity(pinned) !== key) conflict(`${list}[${i}]`, `key_id ${p.kid} is pinned with another key (${rules.shown(pinned)})`);
      if (widens(pinned, window)) conflict(`${list}[${i}]`, widening(p.kid, pinned, window));
      const action = sameWindow(pinned, window) ? 'unchanged' : 'updated';
      entries[i] = { ...pinned, ...window };
      keys.push({ list, key_id: p.kid, action, ...(rules.file ? { file: rules.file(pinned) } : {}), ...window });
    }
    return entries;
  };
}

// --- helpers -----------------------------------------------------------------------------------

type Window = { valid_from: string; valid_until: WindowEnd };

function sameWindow(a: Window, b: Window): boolean {
  return a.valid_from === b.valid_from && a.valid_until === b.valid_until;
}

/** Whether `published` holds an instant `pinned` does not: it starts earlier or ends later. */
function widens(pinned: Window, published: Window): boolean {
  const end = (w: Window) => (w.valid_until === null ? Infinity : utcMillis(w.valid_until)!);
  return utcMillis(published.valid_from)! < utcMillis(pinned.valid_from)! || end(published) > end(pinned);
}

function widening(kid: string, pinned: Window, published: Window): string {
  const text = (w: Window) => `[${w.valid_from}, ${w.valid_until ?? 'no end'})`;
  return `key_id ${kid} is pinned for ${text(pinned)}; the published window ${text(published)} would widen it (an import only narrows a pinned window, e.g. to a retirement; widen it by hand if that is meant)`;
}

function p256PublicKey(pem: string): KeyObject | undefined {
  const key = parseSpkiPem(pem);
  return key?.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1' ? key : undefined;
}

function shown(v: unknown): string {
  if (v === undefined) return 'absent';
  const text = JSON.stringify(v);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}
