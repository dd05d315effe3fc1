// Rebuilds the example study from scratch, keys aside: the trust directory (pinning the TEST-ONLY
// keys of test/fixtures), the registered systems in study.json (their buyer fingerprints),
// freeze.json with the answer-key commitment, an anchor minted by the local pkijs TSA with a
// genTime before the study opens, then the synthetic systems' submissions and the receipt-chain
// commitments (scripts/generate-example-submissions.ts), and last the published outputs: a run with
// the TEST-ONLY operator keys replaces outputs/<run_id>/ and the audit command docs/audit.md shows
// (scripts/published-example.ts). Run it whenever the corpus, section 5, study.json, the trust
// policy or what the pipeline writes changes: the example is never patched by hand.
//
//   npm run example:rebuild
//   npm run example:rebuild -- --outputs-only   # the inputs kept: only outputs/<run_id>/ and the doc's audit
import { EXAMPLE_OPERATOR_ARGS } from './example-operator-keys.ts';
import { createPrivateKey, createPublicKey } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { agentKeyRegistration } from '../pipeline/participant/agent-key.ts';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { main } from '../pipeline/cli.ts';
import { writeFileAtomic } from '../pipeline/io/atomic.ts';
import { studyLayout } from '../pipeline/layout.ts';
import { freezeDigest, loadFreezeRecord } from '../pipeline/study/freeze-record.ts';
import { startTsaServer } from '../test/support/tsa/http-tsa.ts';
import type { RegisteredSystem } from '../pipeline/study/study.ts';
import { publishExampleOutputs } from './published-example.ts';
import { EXAMPLE_SELLER, exampleSystems, generateExampleSubmissions } from './generate-example-submissions.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const KEYS = join(ROOT, 'test/fixtures/keys');
const PKI = join(ROOT, 'test/fixtures/pki');
/** The example's anchor is dated the day before the study opens (study.json window.opens_at). */
export const EXAMPLE_ANCHOR_GEN_TIME = '2026-11-01T09:00:00Z';

function ed25519Published(pemPath: string): string {
  const jwk = createPublicKey(readFileSync(pemPath)).export({ format: 'jwk' });
  return `ed25519:${jwk.x}`;
}

function writeTrustDirectory(trustDir: string): void {
  rmSync(trustDir, { recursive: true, force: true });
  mkdirSync(join(trustDir, 'tsa-roots'), { recursive: true });
  mkdirSync(join(trustDir, 'tsa-certs'), { recursive: true });
  mkdirSync(join(trustDir, 'operator'), { recursive: true });
  copyFileSync(join(PKI, 'TEST-ONLY-tsa-root.cert.pem'), join(trustDir, 'tsa-roots/TEST-ONLY-tsa-root.cert.pem'));
  // The TSA's signing certificate, for the tokens that carry none (sys-honest's, as FreeTSA's).
  copyFileSync(join(PKI, 'TEST-ONLY-tsa.cert.pem'), join(trustDir, 'tsa-certs/TEST-ONLY-tsa.cert.pem'));
  copyFileSync(join(KEYS, 'TEST-ONLY-operator.pub.pem'), join(trustDir, 'operator/TEST-ONLY-operator.pub.pem'));
  const policy = {
    format: 'prereg.trust/1',
    arkforge_keys: [
      {
        key_id: 'TEST-ONLY-arkforge-2026',
        public_key: ed25519Published(join(KEYS, 'TEST-ONLY-arkforge-2026.pub.pem')),
        valid_from: '2026-01-01T00:00:00Z',
        valid_until: '2027-01-01T00:00:00Z',
      },
      {
        key_id: 'TEST-ONLY-arkforge-2025-expired',
        public_key: ed25519Published(join(KEYS, 'TEST-ONLY-arkforge-2025-expired.pub.pem')),
        valid_from: '2025-01-01T00:00:00Z',
        valid_until: '2026-01-01T00:00:00Z',
      },
    ],
    tsa_roots: ['tsa-roots/TEST-ONLY-tsa-root.cert.pem'],
    tsa_certs: ['tsa-certs/TEST-ONLY-tsa.cert.pem'],
    tlog_keys: [],
    tlog_submitter_keys: [],
    operator_public_key: 'operator/TEST-ONLY-operator.pub.pem',
    require_tsa_token: true,
    max_skew_seconds: 300,
    batch_max_skew_seconds: 900,
    require_receipts: true,
    // The example's retrieval service (scripts/generate-example-submissions.ts EXAMPLE_SELLER): the
    // only seller whose proofs can prove a passage served (SPEC §12.4).
    sellers: [EXAMPLE_SELLER],
  };
  writeFileAtomic(join(trustDir, 'policy.json'), `${JSON.stringify(policy, null, 2)}\n`);
}

/** `block` (members, each line starting with a newline) inserted before study.json's `anchors`, the text kept as written. */
function beforeAnchors(studyText: string, block: string, what: string): string {
  const at = studyText.indexOf('\n  "anchors": {');
  if (at < 0) throw new Error(`study.json: no "anchors" member to place ${what} before`);
  return studyText.slice(0, at) + block + studyText.slice(at);
}

/**
 * study.json with its `systems` member replaced by `systems`, one system per line, before
 * `anchors` (removed when `systems` is empty: a study that registers none); the rest of the text
 * is kept as written (its escapes included).
 */
export function withRegisteredSystems(studyText: string, systems: readonly RegisteredSystem[]): string {
  const start = studyText.indexOf('\n  "systems": [');
  const kept = start < 0 ? studyText : studyText.slice(0, start) + studyText.slice(studyText.indexOf('\n  ],', start) + '\n  ],'.length);
  if (systems.length === 0) return kept;
  return beforeAnchors(kept, `\n  "systems": [\n${systems.map((s) => `    ${JSON.stringify(s)}`).join(',\n')}\n  ],`, '"systems"');
}

/** study.json (a prereg.study/2) declaring `"binding": "none"`, before `anchors`; the rest kept as written. */
export function withBindingNone(studyText: string): string {
  if (studyText.includes('\n  "binding": ')) return studyText;
  return beforeAnchors(studyText, '\n  "binding": "none",', '"binding"');
}

async function prereg(args: string[]): Promise<void> {
  const code = await main(args);
  if (code !== 0) throw new Error(`prereg ${args.join(' ')} exited ${code}`);
}

/**
 * Freezes the study at `root` again (its answer-key secret in inputs/) and anchors the new
 * freeze_digest from the local pkijs TSA, dated before the study opens, as the example's own
 * anchor is: what a study whose study.json changed needs before it is scored and audited.
 */
export async function freezeAndAnchor(root: string, run: (args: string[]) => Promise<void> = prereg): Promise<void> {
  const layout = studyLayout(root);
  // A fresh first freeze, not an amendment: the study is rebuilt, nothing of the old plan is kept.
  rmSync(layout.anchors, { recursive: true, force: true });
  rmSync(join(layout.preregistration, 'amendments'), { recursive: true, force: true });
  rmSync(layout.freeze, { force: true });
  await run(['freeze', '--root', root, '--secret-file', layout.answerKeySecret]);
  const tsa = await startTsaServer({ backend: 'pkijs', genTime: EXAMPLE_ANCHOR_GEN_TIME });
  try {
    await run(['anchor', '--root', root, '--tsa', `local-test-tsa=${tsa.url}`]);
  } finally {
    await tsa.close();
  }
  await run(['check-anchors', '--root', root]);
}

/** Where the example's auditor keeps what it obtained out of band (test/fixtures/example-auditor/README.md). */
export const EXAMPLE_AUDITOR = join(ROOT, 'test/fixtures/example-auditor');

/**
 * The example auditor's own material, from the TEST-ONLY key files, never from the study: the
 * issuer's key history in ArkForge's published_keys.json format (what `--issuer-keys` reads) and
 * the freeze digest the study published before it opened (what `--expect-freeze` takes), and the
 * operator's public key (what `--operator-key` takes).
 */
export function writeExampleAuditorMaterial(root: string = ROOT): void {
  const history = {
    _doc: "TEST-ONLY: the key history of the example study's stand-in issuer, in ArkForge's published_keys.json format. Never trust it outside the tests and the example.",
    keys: [
      {
        kid: 'TEST-ONLY-arkforge-2026',
        type: 'Ed25519',
        public: ed25519Published(join(KEYS, 'TEST-ONLY-arkforge-2026.pub.pem')),
        valid_from: '2026-01-01T00:00:00Z',
        retired_at: '2027-01-01T00:00:00Z',
      },
      {
        kid: 'TEST-ONLY-arkforge-2025-expired',
        type: 'Ed25519',
        public: ed25519Published(join(KEYS, 'TEST-ONLY-arkforge-2025-expired.pub.pem')),
        valid_from: '2025-01-01T00:00:00Z',
        retired_at: '2026-01-01T00:00:00Z',
      },
    ],
    rekor_keys: [],
  };
  mkdirSync(EXAMPLE_AUDITOR, { recursive: true });
  writeFileAtomic(join(EXAMPLE_AUDITOR, 'TEST-ONLY-issuer-keys.json'), `${JSON.stringify(history, null, 2)}\n`);
  // The operator's identity, obtained from the operator's own publication: the key every intake key is certified by.
  writeFileAtomic(join(EXAMPLE_AUDITOR, 'TEST-ONLY-operator.pub.pem'), readFileSync(join(KEYS, 'TEST-ONLY-operator.pub.pem')));
  writeFileAtomic(join(EXAMPLE_AUDITOR, 'freeze-digest.txt'), `${freezeDigest(loadFreezeRecord(studyLayout(root).freeze))}\n`);
}

/** The TEST-ONLY agent key of an example system (scripts/make-test-signing-keys.sh). */
const agentKeyFile = (systemId: string) => join(KEYS, `TEST-ONLY-agent-${systemId}.key.pem`);

/**
 * The example's registration with each system's TEST-ONLY agent key and its proof of possession
 * (Ed25519 over canonical {study_id, system_id}: SPEC §12.2).
 */
function withAgentKeys(systems: readonly RegisteredSystem[], studyId: string): RegisteredSystem[] {
  return systems.map((s) => {
    const key = createPrivateKey(readFileSync(agentKeyFile(s.system_id)));
    return { ...s, agent_keys: [agentKeyRegistration(key, studyId, s.system_id)] };
  });
}

/**
 * study.json as a prereg.study/2 with sealed intake and its protocol (three attempts per item),
 * the text otherwise kept as written.
 */
export function asSealedStudy(studyText: string): string {
  const text = studyText.replace('"format": "prereg.study/1"', '"format": "prereg.study/2"');
  const add = [
    ...(text.includes('\n  "intake": {') ? [] : ['\n  "intake": { "mode": "sealed", "seal_within_s": 3600 },']),
    ...(text.includes('\n  "protocol": {') ? [] : ['\n  "protocol": { "attempts_per_item": 3 },']),
  ].join('');
  return beforeAnchors(text, add, '"intake"');
}

/**
 * A copy of the example made into a working copy whose inputs may change (tests, benches): the
 * intake records removed (log, seal, its anchors) and, unless `keepStudy`, study.json declaring
 * `intake.mode: "unsealed"` — which the caller freezes again (freezeAndAnchor).
 */
export function unsealWorkingCopy(root: string, options: { keepStudy?: boolean } = {}): void {
  const layout = studyLayout(root);
  for (const f of [layout.intakeLog, layout.seal]) rmSync(f, { force: true });
  rmSync(layout.sealAnchors, { recursive: true, force: true });
  if (options.keepStudy) return;
  const text = readFileSync(layout.study, 'utf8');
  if (!text.includes('"mode": "sealed"')) throw new Error(`${layout.study} declares no sealed intake to unseal`);
  writeFileAtomic(layout.study, text.replace('"mode": "sealed"', '"mode": "unsealed"'));
}

/** When the example's intake happened (during the window) and when its seal was made (after closes_at). */
export const EXAMPLE_INTAKE_AT = '2026-11-15T18:00:00Z';
export const EXAMPLE_SEAL_AT = '2026-11-16T00:05:00Z';

/**
 * The example's sealed intake (docs/intake.md): each system signs its generated submission file
 * with its TEST-ONLY agent key (`submission sign`), the operator takes it in (`intake`, a local
 * TSA dating each entry a minute apart during the window) and seals after closes_at (`seal`). The
 * participants' receipts are kept in the example auditor's folder, as an auditor would obtain
 * them from the participants. The operator-collected commitments stay in inputs/commitments.jsonl.
 */
async function intakeExample(root: string, run: (args: string[]) => Promise<void> = prereg): Promise<void> {
  const layout = studyLayout(root);
  const staging = mkdtempSync(join(tmpdir(), 'prereg-example-staging-'));
  const receipts = join(EXAMPLE_AUDITOR, 'receipts');
  rmSync(receipts, { recursive: true, force: true });
  mkdirSync(receipts, { recursive: true });
  for (const f of [layout.intakeLog, layout.seal]) rmSync(f, { force: true });
  rmSync(layout.sealAnchors, { recursive: true, force: true });
  let at = Date.parse(EXAMPLE_INTAKE_AT);
  const tsa = await startTsaServer({ backend: 'pkijs', genTime: () => new Date(at).toISOString().replace('.000Z', 'Z') });
  try {
    const files = readdirSync(layout.submissions)
      .filter((f) => f.endsWith('.jsonl'))
      .sort();
    for (const f of files) renameSync(join(layout.submissions, f), join(staging, f));
    for (const f of files) {
      const system = f.slice(0, -'.jsonl'.length);
      await run(['submission', 'sign', join(staging, f), '--key', agentKeyFile(system), '--system', system, '--root', root]);
      await run([
        'intake',
        join(staging, `${f}.intake.json`),
        '--operator-key',
        join(KEYS, 'TEST-ONLY-operator.key.pem'),
        '--tsa',
        `local-test-tsa=${tsa.url}`,
        '--retries',
        '0',
        '--root',
        root,
      ]);
      copyFileSync(join(staging, `${f}.intake.receipt.json`), join(receipts, `${system}.receipt.json`));
      at += 60_000;
    }
    at = Date.parse(EXAMPLE_SEAL_AT);
    await run(['seal', '--tsa', `local-test-tsa=${tsa.url}`, '--retries', '0', '--root', root]);
  } finally {
    await tsa.close();
    rmSync(staging, { recursive: true, force: true });
  }
}

export async function rebuildExample(root: string = ROOT): Promise<void> {
  const layout = studyLayout(root);
  writeTrustDirectory(layout.trust);
  const studyText = asSealedStudy(readFileSync(layout.study, 'utf8'));
  const studyId = (JSON.parse(studyText) as { study_id: string }).study_id;
  writeFileAtomic(layout.study, withRegisteredSystems(studyText, withAgentKeys(exampleSystems(), studyId)));
  await freezeAndAnchor(root);
  writeExampleAuditorMaterial(root);
  const generated = await generateExampleSubmissions(root);
  console.log(
    `generated ${generated.records} submission records from ${exampleSystems().length} systems (+${generated.rejectsExpected} lines ingest must reject)`,
  );
  await intakeExample(root);
  console.log('took every submission file in through intake and sealed it (receipts in test/fixtures/example-auditor/receipts/)');
  await publishOutputs(root);
}

async function publishOutputs(root: string): Promise<void> {
  const runId = await publishExampleOutputs(root, EXAMPLE_OPERATOR_ARGS);
  console.log(`published outputs/${runId}/ (the previous published run removed) and its audit command in docs/audit.md`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  if (process.argv[2] === '--auditor-only') writeExampleAuditorMaterial();
  else if (process.argv[2] === '--outputs-only') await publishOutputs(ROOT);
  else await rebuildExample();
}
