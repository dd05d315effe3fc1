// A small transparency log for the tests, shaped like Sigstore Rekor v1: entries are appended as
// canonicalized bodies, the tree is RFC 6962 (pipeline/formats/merkle.ts, itself tested against
// Certificate Transparency's vectors), and the log key signs signed entry timestamps (SETs) and
// checkpoints. TEST support: the log key is the TEST-ONLY ECDSA P-256 key minted by
// scripts/make-test-tlog-key.sh (or a key a test generates), and it protects nothing.
//
// What it copies from Rekor (facts, not code):
//  - hashedrekord v0.0.1 body {apiVersion, kind, spec: {data: {hash: {algorithm, value}},
//    signature: {content, publicKey: {content}}}}, canonicalized, base64 in the entry's body;
//    publicKey.content is base64 of the submitter's PEM;
//  - logID = hex SHA-256 of the log key's DER SPKI;
//  - SET = signature over canonical JSON {body, integratedTime, logID, logIndex} (ECDSA: DER);
//  - inclusion proof {logIndex, rootHash, treeSize, hashes (bottom first), checkpoint};
//  - checkpoint = signed note "origin\nsize\nbase64 root\n" + "\n" + "— name base64(hint ‖ sig)\n",
//    hint = first 4 bytes of the log id.
import { createHash, createPrivateKey, createPublicKey, sign, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { canonicalJson } from '../../../pipeline/formats/canonical-json.ts';
import { hashLeaf, inclusionPath, rootFromLeafHashes } from '../../../pipeline/formats/merkle.ts';
import { logIdOf, type TlogEntry } from '../../../pipeline/evidence/tlog/index.ts';

const KEYS = new URL('../../fixtures/keys/', import.meta.url);

/** The TEST-ONLY log key and the issuer's TEST-ONLY Ed25519 key, as PEM files on disk. */
export function testKeyPem(
  name: 'TEST-ONLY-tlog.key.pem' | 'TEST-ONLY-tlog.pub.pem' | 'TEST-ONLY-arkforge-2026.key.pem' | 'TEST-ONLY-arkforge-2026.pub.pem',
): string {
  return readFileSync(new URL(name, KEYS), 'utf8');
}

/** Signs as Rekor's signers do: Ed25519 over the bytes, ECDSA / RSA over their SHA-256 (DER). */
export function signBytes(key: KeyObject, data: Uint8Array): Buffer {
  return sign(key.asymmetricKeyType === 'ed25519' ? null : 'sha256', data, key);
}

/** The SPKI PEM of a key pair's public half (given either half). */
export function publicPem(key: KeyObject): string {
  return (key.type === 'public' ? key : createPublicKey(key)).export({ type: 'spki', format: 'pem' }).toString();
}

export interface HashedRekordOptions {
  /** The witnessed hash, 64 hex: the artifact is its hex string. */
  witnessedHashHex: string;
  /** The submitter's private key (the issuer's Ed25519 key in the good case). */
  submitter: KeyObject;
  /** Override the logged digest (default SHA-256 of the hex string, as the reference service logs). */
  loggedDigestHex?: string;
  /** Override the signed bytes (default the hex string's bytes). */
  signedBytes?: Uint8Array;
  /** Override the kind / apiVersion written in the body. */
  kind?: string;
  apiVersion?: string;
}

/** The canonicalized body of a hashedrekord entry, as the log stores it. */
export function hashedRekordBody(o: HashedRekordOptions): Buffer {
  const artifact = Buffer.from(o.witnessedHashHex, 'latin1');
  const digest = o.loggedDigestHex ?? sha256Hex(artifact);
  const signature = signBytes(o.submitter, o.signedBytes ?? artifact);
  return Buffer.from(
    canonicalJson({
      apiVersion: o.apiVersion ?? '0.0.1',
      kind: o.kind ?? 'hashedrekord',
      spec: {
        data: { hash: { algorithm: 'sha256', value: digest } },
        signature: {
          content: signature.toString('base64'),
          publicKey: { content: Buffer.from(publicPem(o.submitter)).toString('base64') },
        },
      },
    }),
    'latin1',
  );
}

export interface CheckpointOptions {
  /** Default: the log's key. */
  signer?: KeyObject;
  /** Default: the first 4 bytes of the signer's log id. */
  keyHint?: Buffer;
  /** Sign another root for this size (a log that shows two views of one tree). */
  root?: Buffer;
  /** Lines after the root (e.g. Rekor's older "Timestamp: …"). */
  extraLines?: string[];
  /** More signature lines (e.g. a witness cosignature), appended after the log's. */
  cosigners?: Array<{ name: string; key: KeyObject }>;
}

export interface EntryOptions {
  integratedTime: number;
  /** The tree the inclusion proof and checkpoint are for; default the whole log. */
  treeSize?: number;
  /** The entry's logIndex (global in a sharded log); default the leaf index. */
  logIndex?: number;
  checkpoint?: CheckpointOptions;
}

export class TestLog {
  readonly publicKey: KeyObject;
  readonly logId: string;
  private readonly bodies: Buffer[] = [];
  private readonly leaves: Buffer[] = [];

  constructor(
    private readonly key: KeyObject,
    readonly origin = 'test-log.prereg.invalid - 1',
    readonly name = 'test-log.prereg.invalid',
  ) {
    this.publicKey = createPublicKey(key);
    this.logId = logIdOf(this.publicKey);
  }

  /** A log keyed with the TEST-ONLY ECDSA P-256 key of test/fixtures/keys/. */
  static withTestKey(): TestLog {
    return new TestLog(createPrivateKey(testKeyPem('TEST-ONLY-tlog.key.pem')));
  }

  get size(): number {
    return this.leaves.length;
  }

  /** Appends a canonicalized body; returns its leaf index. */
  append(body: Buffer): number {
    this.bodies.push(body);
    this.leaves.push(hashLeaf(body));
    return this.leaves.length - 1;
  }

  /** The signed entry timestamp over canonical {body, integratedTime, logID, logIndex}. */
  signedEntryTimestamp(fields: { body: string; integratedTime: number; logID: string; logIndex: number }, signer = this.key): string {
    return signBytes(signer, Buffer.from(canonicalJson(fields), 'latin1')).toString('base64');
  }

  rootHash(treeSize = this.size): Buffer {
    return rootFromLeafHashes(this.leaves.slice(0, treeSize));
  }

  auditPath(index: number, treeSize = this.size): string[] {
    return inclusionPath(this.leaves.slice(0, treeSize), index).map((h) => h.toString('hex'));
  }

  /** The signed note of the tree head at `treeSize`. */
  checkpoint(treeSize = this.size, o: CheckpointOptions = {}): string {
    const note = [this.origin, String(treeSize), (o.root ?? this.rootHash(treeSize)).toString('base64'), ...(o.extraLines ?? [])]
      .map((l) => `${l}\n`)
      .join('');
    const line = (name: string, key: KeyObject, hint?: Buffer): string => {
      const h = hint ?? Buffer.from(logIdOf(createPublicKey(key)), 'hex').subarray(0, 4);
      return `\u2014 ${name} ${Buffer.concat([h, signBytes(key, Buffer.from(note, 'utf8'))]).toString('base64')}\n`;
    };
    const lines = [line(this.name, o.signer ?? this.key, o.keyHint), ...(o.cosigners ?? []).map((c) => line(c.name, c.key))];
    return `${note}\n${lines.join('')}`;
  }

  /** The entry at leaf `index` as Rekor's API returns it, with its SET, inclusion proof and checkpoint. */
  entry(index: number, o: EntryOptions): TlogEntry {
    const treeSize = o.treeSize ?? this.size;
    const body = this.bodies[index];
    if (!body || index >= treeSize) throw new RangeError(`no leaf ${index} in a tree of ${treeSize}`);
    const fields = { body: body.toString('base64'), integratedTime: o.integratedTime, logID: this.logId, logIndex: o.logIndex ?? index };
    return {
      ...fields,
      verification: {
        signedEntryTimestamp: this.signedEntryTimestamp(fields),
        inclusionProof: {
          logIndex: index,
          rootHash: this.rootHash(treeSize).toString('hex'),
          treeSize,
          hashes: this.auditPath(index, treeSize),
          checkpoint: this.checkpoint(treeSize, o.checkpoint),
        },
      },
    };
  }
}

function sha256Hex(data: Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}
