// Rebuilds the example study from scratch, keys aside: the trust directory (pinning the TEST-ONLY
// keys of test/fixtures), freeze.json with the answer-key commitment, an anchor minted by the local
// pkijs TSA with a genTime before the study opens, then the three synthetic systems' submissions
// and the receipt-chain commitments (scripts/generate-example-submissions.ts). Run it whenever the
// corpus, section 5, study.json or the trust policy changes: the example is never patched by hand.
//
//   npm run example:rebuild
import { createPublicKey } from 'node:crypto';
import { copyFileSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { main } from '../pipeline/cli.ts';
import { writeFileAtomic } from '../pipeline/io/atomic.ts';
import { studyLayout } from '../pipeline/layout.ts';
import { startTsaServer } from '../test/support/tsa/http-tsa.ts';
import { generateExampleSubmissions } from './generate-example-submissions.ts';

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
  };
  writeFileAtomic(join(trustDir, 'policy.json'), `${JSON.stringify(policy, null, 2)}\n`);
}

async function prereg(args: string[]): Promise<void> {
  const code = await main(args);
  if (code !== 0) throw new Error(`prereg ${args.join(' ')} exited ${code}`);
}

/** Trust directory, freeze.json and an anchor for the study at `root` (its corpus, key and section 5 as they are). */
export async function freezeAndAnchor(root: string): Promise<void> {
  const layout = studyLayout(root);
  writeTrustDirectory(layout.trust);
  rmSync(layout.anchors, { recursive: true, force: true });
  await prereg(['freeze', '--replace', '--root', root, '--secret-file', layout.answerKeySecret]);
  const tsa = await startTsaServer({ backend: 'pkijs', genTime: EXAMPLE_ANCHOR_GEN_TIME });
  try {
    await prereg(['anchor', '--root', root, '--tsa', `local-test-tsa=${tsa.url}`]);
  } finally {
    await tsa.close();
  }
  await prereg(['check-anchors', '--root', root]);
}

export async function rebuildExample(root: string = ROOT): Promise<void> {
  await freezeAndAnchor(root);
  const generated = await generateExampleSubmissions(root);
  console.log(`generated ${generated.records} submission records from 3 systems (+${generated.rejectsExpected} lines ingest must reject)`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await rebuildExample();
}
