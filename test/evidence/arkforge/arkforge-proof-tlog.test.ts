// Transparency-log entries carried with ArkForge evidence items (SPEC §6.1, last paragraph): the
// orchestrator verifies the entry over the proof's witnessed hash — the chain hash, or the batch
// root when batch-anchored — as its own `tlog` check, and counts it as an independent witness
// next to the RFC 3161 token. One row per rule, on proofs minted as the reference service mints
// them (test/support/arkforge-issuer*.ts), logged in the in-test log (test/support/tlog/) whose
// SETs and checkpoints the TEST-ONLY ECDSA P-256 log key signs; real tokens from the TEST-ONLY TSA.
// Then: trust material rebuilt from plain inputs, and `prereg verify FILE` against the pipeline's
// path (runVerifyTask) with a trust directory that pins the test log key.
import { createPrivateKey, generateKeyPairSync } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  PROOF_CHECKS,
  PROOF_CODES,
  verifyEvidenceItem,
  type CheckOutcome,
  type ProofCode,
  type ProofStatus,
  type ProofVerification,
} from '../../../pipeline/evidence/arkforge/index.ts';
import {
  TLOG_CHECKS,
  TLOG_CODES,
  type TlogCheck,
  type CheckOutcome as TlogCheckOutcome,
  type TlogEntry,
} from '../../../pipeline/evidence/tlog/index.ts';
import {
  buildTrustMaterial,
  buildTrustMaterialFrom,
  trustMaterialInputs,
  type TrustMaterial,
} from '../../../pipeline/evidence/trust/index.ts';
import { buildVerifyContext, runVerifyTask } from '../../../pipeline/evidence/task/index.ts';
import { canonicalJson, parseJson, toPlain, type JsonObject, type JsonValue } from '../../../pipeline/formats/canonical-json.ts';
import { sha256Hex } from '../../../pipeline/formats/hash.ts';
import type { TrustPolicy } from '../../../pipeline/formats/trust-policy.ts';
import { PreregError, REASONS } from '../../../pipeline/reasons.ts';
import { UNBOUNDED_WINDOW, verifyContextInputs } from '../../../pipeline/verify/inputs.ts';
import { issueProof } from '../../support/arkforge-issuer.ts';
import {
  anchorBatch,
  issueProofV3,
  logWitnessedHash,
  markPending,
  ownerDisclosure,
  witnessedHash,
  type IssueProofV3Options,
  type IssuedProofV3,
} from '../../support/arkforge-issuer-v3.ts';
import { PROJECT_ROOT, runCli } from '../../support/cli.ts';
import { hashedRekordBody, testKeyPem, TestLog } from '../../support/tlog/test-log.ts';
import { TEST_LOG_KEY_FILE, TEST_LOG_WINDOW, testSubmitterKeyPolicy, trustDirPinningTestLog } from '../../support/tlog/trust-dir.ts';
import { at, KEY_2026, TS, TSA_ROOT, testTrustPolicy, v3MintOptions, WINDOW } from '../../support/proof-fixtures.ts';
import { loadTestSigner, type TsaSigner } from '../../support/tsa/pkijs-tsa.ts';

const TLOG_PUB = testKeyPem('TEST-ONLY-tlog.pub.pem');
/** The test issuer's key, pinned as its log-signing key (tlog_submitter_keys) as well as its proof key. */
const SUBMITTER_PUB = testKeyPem('TEST-ONLY-arkforge-2026.pub.pem');
/** Submits to the log, but is no pinned submitter key. */
const STRANGER_PEM = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();

const seconds = (iso: string) => Date.parse(iso) / 1000;
/** When the log integrated the entries: a few seconds after the token. */
const INTEGRATED = seconds('2026-03-10T12:00:09Z');

// The log: a few entries of other proofs first, so that inclusion proofs have real paths.
const log = TestLog.withTestKey();
for (let i = 0; i < 5; i++)
  log.append(hashedRekordBody({ witnessedHashHex: sha256Hex(`filler ${i}`), submitter: createPrivateKey(STRANGER_PEM) }));
/** A log nobody pinned. */
const rogue = new TestLog(generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey);
rogue.append(hashedRekordBody({ witnessedHashHex: sha256Hex('rogue filler'), submitter: createPrivateKey(STRANGER_PEM) }));

function policy(over: Partial<TrustPolicy> = {}): TrustPolicy {
  return testTrustPolicy({
    tlog_keys: [{ log_id: log.logId, public_key_file: TEST_LOG_KEY_FILE, ...TEST_LOG_WINDOW }],
    tlog_submitter_keys: [testSubmitterKeyPolicy()],
    ...over,
  });
}

/** The material of `p`: the test TSA root, the log key when pinned, the submitter key when pinned. */
function material(p: TrustPolicy): TrustMaterial {
  const submitters = (p.tlog_submitter_keys ?? []).map(() => SUBMITTER_PUB);
  return buildTrustMaterial(
    p,
    [TSA_ROOT],
    (p.tlog_keys ?? []).map(() => TLOG_PUB),
    { tlogSubmitterKeyPems: submitters },
  );
}

let tsa: TsaSigner;
let trust: TrustMaterial;
let trustNoToken: TrustMaterial;
let trustNoLog: TrustMaterial;
let trustLateLog: TrustMaterial;
let trustNoSubmitter: TrustMaterial;
let trustLateSubmitter: TrustMaterial;

beforeAll(async () => {
  tsa = await loadTestSigner('tsa');
  trust = material(policy());
  trustNoToken = material(policy({ require_tsa_token: false }));
  trustNoLog = material(policy({ tlog_keys: [] }));
  // The log key is pinned only from after the entries were integrated.
  trustLateLog = material(
    policy({ tlog_keys: [{ log_id: log.logId, public_key_file: TEST_LOG_KEY_FILE, valid_from: '2026-03-11T00:00:00Z' }] }),
  );
  // The issuer's key pinned as a proof key only (arkforge_keys), not as a log-signing key.
  trustNoSubmitter = material(policy({ tlog_submitter_keys: [] }));
  // The submitter key pinned only from after the entries were integrated.
  trustLateSubmitter = material(
    policy({ tlog_submitter_keys: [{ ...testSubmitterKeyPolicy(), valid_from: '2026-03-11T00:00:00Z', valid_until: null }] }),
  );
});

// --- minting ---------------------------------------------------------------------------------

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- free-form mutations of parsed items
type Plain = Record<string, any>;
type Item = { proof: unknown; request?: unknown; response?: unknown; disclosure?: unknown; transparency_log_entry?: unknown };
type Issued = { proof: Record<string, unknown>; request: unknown; response: unknown };

const v3Options = (over: Partial<IssueProofV3Options> = {}, n = 0): IssueProofV3Options => v3MintOptions(tsa, over, n);

/** The entry of this proof's witnessed hash, logged with the issuer's pinned submitter key, integrated at INTEGRATED. */
const entryFor = (issued: Issued, o: { log?: TestLog; signingKeyPem?: string; hashHex?: string } = {}): TlogEntry =>
  logWitnessedHash(o.log ?? log, issued.proof, {
    signingKeyPem: o.signingKeyPem ?? KEY_2026,
    integratedTime: INTEGRATED,
    ...(o.hashHex ? { hashHex: o.hashHex } : {}),
  });

/**
 * The evidence item as a file would give it (JsonValue with number lexemes): proof, bodies, the
 * owner's disclosure of both body hashes (3.x), and `entry` as its transparency_log_entry
 * (undefined: none); then mutated.
 */
function asItem(issued: Issued, entry: unknown, mutate?: (item: Plain) => void): Item {
  const item: Plain = { proof: issued.proof, request: issued.request, response: issued.response };
  if ('openings' in issued) item.disclosure = ownerDisclosure(issued as IssuedProofV3);
  if (entry !== undefined) item.transparency_log_entry = entry;
  const parsed = parseJson(canonicalJson(item)) as Plain;
  mutate?.(parsed);
  return parsed as Item;
}

/** A 3.1 proof anchored on its own (token over the chain hash). */
const single = (n = 0, over: Partial<IssueProofV3Options> = {}) => issueProofV3(v3Options(over, n));

/** Proof `index` of a batch of `size` closed at TS + 420 s (token over the root). */
async function batched(size: number, index: number): Promise<IssuedProofV3> {
  const issued = await Promise.all(Array.from({ length: size }, (_, n) => issueProofV3(v3Options({ tsa: undefined }, 100 + n))));
  await anchorBatch(issued, { signer: tsa, genTime: at(TS, 420), batchId: 'batch_20260310_120700_001' });
  return issued[index]!;
}

// --- one row per rule --------------------------------------------------------------------------

interface Row {
  name: string;
  item: () => Promise<Item>;
  trust?: () => TrustMaterial;
  status: ProofStatus;
  reason_codes: ProofCode[];
  informational?: ProofCode[];
  tlog: CheckOutcome;
  witnesses: number;
  /** The entry's own checks: 'pass' unless named; null when the tlog check did not run. */
  tlogChecks?: Partial<Record<TlogCheck, TlogCheckOutcome>> | null;
  also?: (r: ProofVerification) => void;
}

const allPass = (o: Partial<Record<TlogCheck, TlogCheckOutcome>> = {}) => Object.fromEntries(TLOG_CHECKS.map((c) => [c, o[c] ?? 'pass']));

const rows: Row[] = [
  // --- a good entry: a second independent witness ---
  {
    name: '3.1 proof, token and log entry over the chain hash → VERIFIED, 2 independent witnesses (TSA + log)',
    item: async () => {
      const issued = await single();
      return asItem(issued, entryFor(issued));
    },
    status: 'VERIFIED',
    reason_codes: [],
    tlog: 'pass',
    witnesses: 2,
    tlogChecks: {},
    also: (r) => {
      expect([r.checks.tsa, r.checks.batch, r.witnessed_hash]).toEqual(['pass', 'skipped', r.declared_chain_hash]);
      expect(r.tlog).toMatchObject({ reason_codes: [], log_id: log.logId, integrated_time: '2026-03-10T12:00:09Z' });
      expect(r.tlog!.log_index).toBeGreaterThanOrEqual(5);
      expect(r.problems).toEqual([]);
    },
  },
  {
    name: 'batch-anchored proof, token and log entry over the batch root → VERIFIED, 2 witnesses',
    item: async () => {
      const issued = await batched(3, 1);
      return asItem(issued, entryFor(issued));
    },
    status: 'VERIFIED',
    reason_codes: [],
    tlog: 'pass',
    witnesses: 2,
    tlogChecks: {},
    also: (r) => expect([r.checks.batch, r.witnessed_hash]).toEqual(['pass', r.batch?.root]),
  },
  {
    name: 'a 2.1 proof with a log entry over its chain hash → VERIFIED, 2 witnesses (the log is version-independent)',
    item: async () => {
      const issued = await issueProof({ ...v3Options(), specVersion: '2.1', transactionId: 'crd_20260310_120000_a1b2c3' });
      return asItem(issued, entryFor(issued));
    },
    status: 'VERIFIED',
    reason_codes: [],
    tlog: 'pass',
    witnesses: 2,
    tlogChecks: {},
  },
  {
    name: 'no token (the policy does not require one), a log entry → VERIFIED, 1 witness: the log alone',
    item: async () => {
      const issued = await single(0, { tsa: undefined });
      return asItem(issued, entryFor(issued));
    },
    trust: () => trustNoToken,
    status: 'VERIFIED',
    reason_codes: [],
    tlog: 'pass',
    witnesses: 1,
    tlogChecks: {},
    also: (r) => expect(r.checks.tsa).toBe('skipped'),
  },
  {
    name: 'token required and missing, a good log entry → PROOF_TSA_MISSING, the log still counts (1 witness)',
    item: async () => {
      const issued = await single(0, { tsa: undefined });
      return asItem(issued, entryFor(issued));
    },
    status: 'UNTRUSTED',
    reason_codes: ['PROOF_TSA_MISSING'],
    tlog: 'pass',
    witnesses: 1,
    tlogChecks: {},
  },

  // --- no entry: nothing to check, and the proof's own word is never counted ---
  {
    name: "no entry, the proof's own transparency_log field claims a verified entry → tlog skipped, 1 witness (TSA)",
    item: async () => {
      const issued = await single();
      return asItem(issued, undefined, (item) => {
        item.proof.transparency_log = {
          status: 'verified',
          provider: 'sigstore-rekor',
          uuid: 'ab'.repeat(40),
          log_index: 123456789,
          verify_url: 'https://search.sigstore.dev/?uuid=x',
        };
      });
    },
    status: 'VERIFIED',
    reason_codes: [],
    tlog: 'skipped',
    witnesses: 1,
    tlogChecks: null,
  },
  {
    name: 'transparency_log_entry given as null counts as none → tlog skipped, no code',
    item: async () => asItem(await single(), null),
    status: 'VERIFIED',
    reason_codes: [],
    tlog: 'skipped',
    witnesses: 1,
    tlogChecks: null,
  },
  {
    name: 'a pending batch carrying an entry: nothing is witnessed yet → tlog skipped, no code (PROOF_BATCH_PENDING only)',
    item: async () => {
      const issued = await single(0, { tsa: undefined });
      const entry = entryFor(issued); // over the chain hash, logged before the batch closed
      markPending(issued, 'batch_20260310_120700_002');
      return asItem(issued, entry);
    },
    status: 'UNTRUSTED',
    reason_codes: ['PROOF_BATCH_PENDING'],
    tlog: 'skipped',
    witnesses: 0,
    tlogChecks: null,
    also: (r) => expect([r.witnessed_hash, r.checks.tsa]).toEqual([null, 'skipped']),
  },
  {
    name: 'a pending batch carrying an entry, no token required → VERIFIED with PROOF_BATCH_PENDING informational, tlog skipped',
    item: async () => {
      const issued = await single(0, { tsa: undefined });
      const entry = entryFor(issued);
      markPending(issued, 'batch_20260310_120700_002');
      return asItem(issued, entry);
    },
    trust: () => trustNoToken,
    status: 'VERIFIED',
    reason_codes: ['PROOF_BATCH_PENDING'],
    informational: ['PROOF_BATCH_PENDING'],
    tlog: 'skipped',
    witnesses: 0,
    tlogChecks: null,
  },

  // --- each PROOF_TLOG_* failure: UNTRUSTED, the exact code, the token still counts ---
  {
    name: "a log entry for another artifact (another proof's chain hash) → PROOF_TLOG_ARTIFACT",
    item: async () => {
      const [issued, other] = await Promise.all([single(0), single(1)]);
      return asItem(issued, entryFor(other));
    },
    status: 'UNTRUSTED',
    reason_codes: ['PROOF_TLOG_ARTIFACT'],
    tlog: 'fail',
    witnesses: 1,
    tlogChecks: { artifact: 'fail', entry_signature: 'skipped' },
    also: (r) => expect(r.problems.join('\n')).toMatch(/^transparency log \(over the chain hash\): the entry logs sha256:/m),
  },
  {
    name: 'a SET over a changed integrated time → PROOF_TLOG_SET',
    item: async () => {
      const issued = await single();
      return asItem(issued, entryFor(issued), (item) => {
        item.transparency_log_entry.integratedTime = parseJson(String(INTEGRATED - 3600));
      });
    },
    status: 'UNTRUSTED',
    reason_codes: ['PROOF_TLOG_SET'],
    tlog: 'fail',
    witnesses: 1,
    tlogChecks: { set: 'fail' },
    also: (r) => expect(r.tlog?.integrated_time).toBe('2026-03-10T11:00:09Z'),
  },
  {
    name: 'an inclusion proof for another tree size (the path of an earlier head, the checkpoint of the later one) → PROOF_TLOG_INCLUSION',
    item: async () => {
      const issued = await single();
      const first = entryFor(issued);
      const index = first.verification.inclusionProof.logIndex;
      for (let i = 0; i < 4; i++)
        log.append(hashedRekordBody({ witnessedHashHex: sha256Hex(`later ${i}`), submitter: createPrivateKey(STRANGER_PEM) }));
      const later = log.entry(index, { integratedTime: INTEGRATED, treeSize: index + 5 });
      later.verification.inclusionProof.hashes = log.auditPath(index, index + 1);
      return asItem(issued, later);
    },
    status: 'UNTRUSTED',
    reason_codes: ['PROOF_TLOG_INCLUSION'],
    tlog: 'fail',
    witnesses: 1,
    tlogChecks: { inclusion: 'fail' },
  },
  {
    name: 'an entry of a log whose key is not pinned → PROOF_TLOG_KEY_UNPINNED',
    item: async () => {
      const issued = await single();
      return asItem(issued, entryFor(issued, { log: rogue }));
    },
    status: 'UNTRUSTED',
    reason_codes: ['PROOF_TLOG_KEY_UNPINNED'],
    tlog: 'fail',
    witnesses: 1,
    tlogChecks: { log_key: 'fail', set: 'skipped', checkpoint: 'skipped' },
  },
  {
    name: 'a good entry, but the policy pins no log key → PROOF_TLOG_KEY_UNPINNED',
    item: async () => {
      const issued = await single();
      return asItem(issued, entryFor(issued));
    },
    trust: () => trustNoLog,
    status: 'UNTRUSTED',
    reason_codes: ['PROOF_TLOG_KEY_UNPINNED'],
    tlog: 'fail',
    witnesses: 1,
    tlogChecks: { log_key: 'fail', set: 'skipped', checkpoint: 'skipped' },
  },
  {
    name: 'the log key pinned only from after the integrated time → PROOF_TLOG_KEY_UNPINNED',
    item: async () => {
      const issued = await single();
      return asItem(issued, entryFor(issued));
    },
    trust: () => trustLateLog,
    status: 'UNTRUSTED',
    reason_codes: ['PROOF_TLOG_KEY_UNPINNED'],
    tlog: 'fail',
    witnesses: 1,
    tlogChecks: { log_key: 'fail' },
  },
  {
    name: 'an entry over the chain hash when the batch root was anchored → PROOF_TLOG_ARTIFACT',
    item: async () => {
      const issued = await batched(3, 2);
      return asItem(issued, entryFor(issued, { hashHex: issued.chainHash }));
    },
    status: 'UNTRUSTED',
    reason_codes: ['PROOF_TLOG_ARTIFACT'],
    tlog: 'fail',
    witnesses: 1,
    tlogChecks: { artifact: 'fail', entry_signature: 'skipped' },
    also: (r) => {
      expect([r.checks.batch, r.checks.tsa]).toEqual(['pass', 'pass']);
      expect(r.problems.join('\n')).toMatch(/transparency log \(over the batch root\)/);
    },
  },
  {
    name: 'the hash logged by someone else (an unpinned submitter key) → PROOF_TLOG_SUBMITTER_UNPINNED',
    item: async () => {
      const issued = await single();
      return asItem(issued, entryFor(issued, { signingKeyPem: STRANGER_PEM }));
    },
    status: 'UNTRUSTED',
    reason_codes: ['PROOF_TLOG_SUBMITTER_UNPINNED'],
    tlog: 'fail',
    witnesses: 1,
    tlogChecks: { entry_signature: 'fail' },
  },
  {
    name: 'the issuer’s proof key pinned, but not as a submitter key (tlog_submitter_keys empty) → PROOF_TLOG_SUBMITTER_UNPINNED',
    item: async () => {
      const issued = await single();
      return asItem(issued, entryFor(issued));
    },
    trust: () => trustNoSubmitter,
    status: 'UNTRUSTED',
    reason_codes: ['PROOF_TLOG_SUBMITTER_UNPINNED'],
    tlog: 'fail',
    witnesses: 1,
    tlogChecks: { entry_signature: 'fail' },
  },
  {
    name: 'the submitter key’s window does not hold integratedTime → PROOF_TLOG_SUBMITTER_UNPINNED',
    item: async () => {
      const issued = await single();
      return asItem(issued, entryFor(issued));
    },
    trust: () => trustLateSubmitter,
    status: 'UNTRUSTED',
    reason_codes: ['PROOF_TLOG_SUBMITTER_UNPINNED'],
    tlog: 'fail',
    witnesses: 1,
    tlogChecks: { entry_signature: 'fail' },
  },
  {
    name: 'an entry of another kind → PROOF_TLOG_KIND',
    item: async () => {
      const issued = await single();
      const index = log.append(
        Buffer.from(
          canonicalJson({
            apiVersion: '0.0.1',
            kind: 'intoto',
            spec: { content: { hash: { algorithm: 'sha256', value: sha256Hex(witnessedHash(issued.proof)!) } } },
          }),
          'latin1',
        ),
      );
      return asItem(issued, log.entry(index, { integratedTime: INTEGRATED }));
    },
    status: 'UNTRUSTED',
    reason_codes: ['PROOF_TLOG_KIND'],
    tlog: 'fail',
    witnesses: 1,
    tlogChecks: { kind: 'fail', artifact: 'skipped', entry_signature: 'skipped' },
  },
  {
    name: 'a checkpoint of another tree head → PROOF_TLOG_CHECKPOINT',
    item: async () => {
      const issued = await single();
      return asItem(issued, entryFor(issued), (item) => {
        item.transparency_log_entry.verification.inclusionProof.checkpoint = log.checkpoint(3);
      });
    },
    status: 'UNTRUSTED',
    reason_codes: ['PROOF_TLOG_CHECKPOINT'],
    tlog: 'fail',
    witnesses: 1,
    tlogChecks: { checkpoint: 'fail' },
  },
  {
    name: 'an entry that does not follow the schema (verification missing) → PROOF_TLOG_MALFORMED, never PROOF_MALFORMED',
    item: async () => {
      const issued = await single();
      return asItem(issued, entryFor(issued), (item) => {
        delete item.transparency_log_entry.verification;
      });
    },
    status: 'UNTRUSTED',
    reason_codes: ['PROOF_TLOG_MALFORMED'],
    tlog: 'fail',
    witnesses: 1,
    tlogChecks: Object.fromEntries(TLOG_CHECKS.map((c) => [c, 'skipped'])),
    also: (r) => expect([r.checks.structure, r.tlog?.log_id, r.tlog?.log_index]).toEqual(['pass', null, null]),
  },
  {
    name: 'an entry that is not an object → PROOF_TLOG_MALFORMED',
    item: async () => asItem(await single(), 'x'),
    status: 'UNTRUSTED',
    reason_codes: ['PROOF_TLOG_MALFORMED'],
    tlog: 'fail',
    witnesses: 1,
    tlogChecks: Object.fromEntries(TLOG_CHECKS.map((c) => [c, 'skipped'])),
  },
  {
    name: 'several failures at once: another artifact and a changed integrated time → both codes',
    item: async () => {
      const [issued, other] = await Promise.all([single(0), single(1)]);
      return asItem(issued, entryFor(other), (item) => {
        item.transparency_log_entry.integratedTime = parseJson(String(INTEGRATED + 60));
      });
    },
    status: 'UNTRUSTED',
    reason_codes: ['PROOF_TLOG_ARTIFACT', 'PROOF_TLOG_SET'],
    tlog: 'fail',
    witnesses: 1,
    tlogChecks: { artifact: 'fail', entry_signature: 'skipped', set: 'fail' },
  },

  // --- with the issuer's own failures ---
  {
    name: 'a batch path that misses the root: token and log entry over that root verify, but witness nothing for this proof → 0 witnesses',
    item: async () => {
      const issued = await batched(5, 2);
      return asItem(issued, entryFor(issued), (item) => {
        item.proof.batch_anchor.audit_path[1] = sha256Hex('another node');
      });
    },
    status: 'TAMPERED',
    reason_codes: ['PROOF_BATCH_PATH_INVALID'],
    tlog: 'pass',
    witnesses: 0,
    tlogChecks: {},
    also: (r) => expect([r.checks.batch, r.checks.tsa]).toEqual(['fail', 'pass']),
  },
  {
    name: 'a malformed proof carrying a good entry → PROOF_MALFORMED, nothing else runs (tlog skipped)',
    item: async () => {
      const issued = await single();
      return asItem(issued, entryFor(issued), (item) => {
        delete item.proof.hashes;
      });
    },
    status: 'MALFORMED',
    reason_codes: ['PROOF_MALFORMED'],
    tlog: 'skipped',
    witnesses: 0,
    tlogChecks: null,
  },
];

describe('verifyEvidenceItem with a transparency-log entry: one row per rule (SPEC §6.1)', () => {
  it.each(rows.map((r) => [r.name, r] as const))('%s', async (_name, row) => {
    const item = await row.item();
    const result = await verifyEvidenceItem(item, row.trust ? row.trust() : trust, WINDOW);
    expect({
      status: result.status,
      reason_codes: result.reason_codes,
      informational: result.informational_codes,
      tlog: result.checks.tlog,
      witnesses: result.independent_witnesses,
    }).toEqual({
      status: row.status,
      reason_codes: row.reason_codes,
      informational: row.informational ?? [],
      tlog: row.tlog,
      witnesses: row.witnesses,
    });
    expect(result.tlog === null ? null : result.tlog.checks).toEqual(
      row.tlogChecks === null || row.tlogChecks === undefined ? null : { ...allPass(), ...row.tlogChecks },
    );
    // Every counting code belongs to a failed check, every failed check has one.
    const counting = result.reason_codes.filter((c) => !result.informational_codes.includes(c as ProofCode));
    const failed = PROOF_CHECKS.filter((c) => result.checks[c] === 'fail');
    expect([...new Set(counting.map((c) => PROOF_CODES[c as ProofCode].check))].sort()).toEqual([...failed].sort());
    expect(result.tlog?.reason_codes ?? []).toEqual(result.reason_codes.filter((c) => c.startsWith('PROOF_TLOG_')));
    expect(result.problems.length).toBeGreaterThanOrEqual(result.reason_codes.length);
    expect(structuredClone(result)).toEqual(result); // plain data: it crosses worker threads
    row.also?.(result);
  });
});

describe('the tlog check among the proof checks', () => {
  it('every PROOF_TLOG_* code is a code of the tlog check, UNTRUSTED, in the reason catalogue', () => {
    expect(PROOF_CHECKS).toContain('tlog');
    expect(PROOF_CHECKS.indexOf('tlog')).toBe(PROOF_CHECKS.indexOf('tsa') + 1);
    for (const code of Object.keys(TLOG_CODES)) {
      expect(PROOF_CODES[code as ProofCode], code).toEqual({ check: 'tlog', status: 'UNTRUSTED' });
      const entry = (REASONS as Record<string, { meaning: string; next: string } | undefined>)[code];
      expect(entry?.meaning && entry.next, code).toBeTruthy();
    }
    expect(
      Object.keys(PROOF_CODES)
        .filter((c) => c.startsWith('PROOF_TLOG_'))
        .sort(),
    ).toEqual(Object.keys(TLOG_CODES).sort());
  });

  it('trust material rebuilt from its plain inputs (a worker thread) verifies the same entry the same way', async () => {
    const issued = await single(7);
    const item = asItem(issued, entryFor(issued));
    const inputs = structuredClone(trustMaterialInputs(trust));
    expect(inputs).toEqual({ policy: policy(), tsaRootPems: [TSA_ROOT], tlogKeyPems: [TLOG_PUB], tlogSubmitterKeyPems: [SUBMITTER_PUB] });
    const rebuilt = buildTrustMaterialFrom(inputs);
    expect(rebuilt.tlog.logKeys.map((k) => k.log_id)).toEqual([log.logId]);
    expect(rebuilt.tlog.submitterKeys.map((k) => k.key_id)).toEqual(['TEST-ONLY-arkforge-2026']);
    expect(await verifyEvidenceItem(item, rebuilt, WINDOW)).toEqual(await verifyEvidenceItem(item, trust, WINDOW));
  });

  it('refuses a policy whose log key file is not the pinned log id (TRUST_POLICY_INVALID)', () => {
    const other = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ type: 'spki', format: 'pem' }).toString();
    expect(() => buildTrustMaterial(policy(), [TSA_ROOT], [other], { tlogSubmitterKeyPems: [SUBMITTER_PUB] })).toThrow(PreregError);
    try {
      buildTrustMaterial(policy(), [TSA_ROOT], [other], { tlogSubmitterKeyPems: [SUBMITTER_PUB] });
    } catch (e) {
      expect((e as PreregError).code).toBe('TRUST_POLICY_INVALID');
    }
  });
});

// --- `prereg verify FILE` and the pipeline's path ----------------------------------------------

describe('prereg verify FILE with transparency-log entries: the same result as the pipeline (runVerifyTask)', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'prereg-verify-tlog-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('single and batch-anchored evidence items with good and bad entries, a pending one, one without', async () => {
    const trustDir = trustDirPinningTestLog(path.join(PROJECT_ROOT, 'preregistration/trust'), path.join(dir, 'trust'));
    const files = path.join(dir, 'files');
    mkdirSync(files);
    const [a, b, c] = await Promise.all([single(20), single(21), single(22)]);
    const inBatch = await batched(4, 3);
    const pending = await single(23, { tsa: undefined });
    const pendingEntry = entryFor(pending);
    markPending(pending, 'b2');
    const docs: Record<string, Item> = {
      'a-single-good.json': asItem(a, entryFor(a)),
      'b-batch-good.json': asItem(inBatch, entryFor(inBatch)),
      'c-batch-over-chain.json': asItem(inBatch, entryFor(inBatch, { hashHex: inBatch.chainHash })),
      'd-other-artifact.json': asItem(b, entryFor(a)),
      'e-changed-time.json': asItem(b, entryFor(b), (item) => {
        item.transparency_log_entry.integratedTime = parseJson(String(INTEGRATED + 1));
      }),
      'f-rogue-log.json': asItem(c, entryFor(c, { log: rogue })),
      'g-pending.json': asItem(pending, pendingEntry),
      'h-no-entry.json': asItem(c, undefined),
    };
    // Written as a participant would (pretty-printed plain JSON), read back as ingest reads a line.
    for (const [name, doc] of Object.entries(docs))
      writeFileSync(path.join(files, name), JSON.stringify(toPlain(doc as JsonValue), null, 2));

    const cli = await runCli(['verify', files, '--root', files, '--trust', trustDir, '--json']);
    const ctx = buildVerifyContext(verifyContextInputs(trustDir, UNBOUNDED_WINDOW, []));
    const text = (v: JsonValue | undefined) => (v === undefined ? null : canonicalJson(v));
    const pipeline = await Promise.all(
      Object.keys(docs).map(async (name) => {
        const doc = parseJson(readFileSync(path.join(files, name), 'utf8')) as JsonObject;
        const outcome = await runVerifyTask(
          {
            kind: 'evidence',
            key: name,
            proof: text(doc.proof)!,
            request: text(doc.request),
            response: text(doc.response),
            disclosure: text(doc.disclosure),
            transparency_log_entry: text(doc.transparency_log_entry),
          },
          ctx,
        );
        if (outcome.kind !== 'evidence') throw new Error('not evidence');
        const r = outcome.result;
        return {
          status: r.status,
          reason_codes: r.reason_codes,
          informational_codes: r.informational_codes,
          checks: r.checks,
          problems: r.problems,
        };
      }),
    );
    expect(
      cli.jsonLines.map((l) => ({
        status: l.status,
        reason_codes: l.reason_codes,
        informational_codes: l.informational_codes,
        checks: l.checks,
        problems: l.problems,
      })),
    ).toEqual(pipeline);
    expect(cli.jsonLines.map((l) => [path.basename(l.file), l.kind, l.status, l.reason_codes, l.checks.tlog])).toEqual([
      ['a-single-good.json', 'evidence', 'VERIFIED', [], 'pass'],
      ['b-batch-good.json', 'evidence', 'VERIFIED', [], 'pass'],
      ['c-batch-over-chain.json', 'evidence', 'UNTRUSTED', ['PROOF_TLOG_ARTIFACT'], 'fail'],
      ['d-other-artifact.json', 'evidence', 'UNTRUSTED', ['PROOF_TLOG_ARTIFACT'], 'fail'],
      ['e-changed-time.json', 'evidence', 'UNTRUSTED', ['PROOF_TLOG_SET'], 'fail'],
      ['f-rogue-log.json', 'evidence', 'UNTRUSTED', ['PROOF_TLOG_KEY_UNPINNED'], 'fail'],
      ['g-pending.json', 'evidence', 'UNTRUSTED', ['PROOF_BATCH_PENDING'], 'skipped'],
      ['h-no-entry.json', 'evidence', 'VERIFIED', [], 'skipped'],
    ]);
    expect(cli.code).toBe(1);

    // The committed example trust directory pins no log key and no submitter key: the same good entry is then no witness.
    const unpinned = await runCli([
      'verify',
      path.join(files, 'a-single-good.json'),
      '--root',
      files,
      '--trust',
      path.join(PROJECT_ROOT, 'preregistration/trust'),
      '--json',
    ]);
    expect([unpinned.jsonLines[0].status, unpinned.jsonLines[0].reason_codes]).toEqual([
      'UNTRUSTED',
      ['PROOF_TLOG_KEY_UNPINNED', 'PROOF_TLOG_SUBMITTER_UNPINNED'],
    ]);
  });
});
