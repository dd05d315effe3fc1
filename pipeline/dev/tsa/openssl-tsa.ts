// An independent real RFC 3161 TSA: OpenSSL's `openssl ts -reply`, driven with a generated
// configuration in a private temporary directory (TEST-ONLY: tests and `prereg dev tsa --backend
// openssl`). genTime is OpenSSL's clock (now). docs/getting-started.md writes the configuration out.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { TEST_TSA_POLICY } from './pkijs-tsa.ts';

const run = promisify(execFile);

export interface OpensslTsaOptions {
  /** PEM signer certificate and its private key. */
  certPath: string;
  keyPath: string;
  /** PEM files of further certificates to embed (intermediates); the signer's is always embedded on certReq. */
  chainPaths?: string[];
  /** default_policy; default TEST_TSA_POLICY. */
  policy?: string;
  /** Imprint algorithms accepted; others get a rejection (badAlg). Default sha256, sha384, sha512. */
  digests?: string[];
  /** Digest of the CMS signature; default sha256. */
  signerDigest?: string;
  /** ESSCertID flavour: sha1 gives ESSCertID, anything else ESSCertIDv2 with that hash. Default sha256. */
  essCertIdAlg?: string;
  /** Put the TSA's name in TSTInfo; default true. */
  tsaName?: boolean;
  /** Digits of second fractions in genTime (0–6); default 3. */
  clockPrecisionDigits?: number;
  /** The openssl binary; default $OPENSSL or `openssl`. */
  openssl?: string;
}

export interface OpensslTsa {
  /** Answer a DER TimeStampReq with OpenSSL's DER TimeStampResp. */
  reply(request: Uint8Array): Promise<Uint8Array>;
  /** The private working directory (config, serial file). */
  readonly dir: string;
  /** Remove the working directory. */
  close(): Promise<void>;
}

export async function createOpensslTsa(options: OpensslTsaOptions): Promise<OpensslTsa> {
  const openssl = options.openssl ?? process.env.OPENSSL ?? 'openssl';
  const dir = await mkdtemp(join(tmpdir(), 'prereg-openssl-tsa-'));
  const chainFile = join(dir, 'chain.pem');
  if (options.chainPaths && options.chainPaths.length > 0) {
    const pems = await Promise.all(options.chainPaths.map((p) => readFile(p, 'utf8')));
    await writeFile(chainFile, pems.join('\n'));
  }
  const lines = [
    '[ tsa ]',
    'default_tsa = tsa_config',
    '',
    '[ tsa_config ]',
    `serial = ${confPath(join(dir, 'serial'))}`,
    'crypto_device = builtin',
    `signer_cert = ${confPath(options.certPath)}`,
    `signer_key = ${confPath(options.keyPath)}`,
    ...(options.chainPaths && options.chainPaths.length > 0 ? [`certs = ${confPath(chainFile)}`] : []),
    `signer_digest = ${options.signerDigest ?? 'sha256'}`,
    `default_policy = ${options.policy ?? TEST_TSA_POLICY}`,
    `digests = ${(options.digests ?? ['sha256', 'sha384', 'sha512']).join(', ')}`,
    'accuracy = secs:1',
    `clock_precision_digits = ${options.clockPrecisionDigits ?? 3}`,
    'ordering = no',
    `tsa_name = ${options.tsaName === false ? 'no' : 'yes'}`,
    'ess_cert_id_chain = no',
    `ess_cert_id_alg = ${options.essCertIdAlg ?? 'sha256'}`,
    '',
  ];
  const configPath = join(dir, 'tsa.cnf');
  await writeFile(configPath, lines.join('\n'));
  await writeFile(join(dir, 'serial'), '01\n');

  // `ts -reply` rewrites the serial file: one request at a time.
  let queue: Promise<unknown> = Promise.resolve();
  let n = 0;
  const replyNow = async (request: Uint8Array): Promise<Uint8Array> => {
    const id = ++n;
    const query = join(dir, `query-${id}.tsq`);
    const reply = join(dir, `reply-${id}.tsr`);
    await writeFile(query, request);
    try {
      await run(openssl, ['ts', '-reply', '-config', configPath, '-section', 'tsa_config', '-queryfile', query, '-out', reply], {
        env: { ...process.env, OPENSSL_CONF: configPath },
      });
      return new Uint8Array(await readFile(reply));
    } catch (e) {
      const stderr = (e as { stderr?: string }).stderr ?? '';
      throw new Error(`openssl ts -reply failed: ${e instanceof Error ? e.message : String(e)}\n${stderr}`);
    } finally {
      await Promise.all([rm(query, { force: true }), rm(reply, { force: true })]);
    }
  };
  return {
    dir,
    reply(request: Uint8Array): Promise<Uint8Array> {
      const next = queue.then(() => replyNow(request));
      queue = next.catch(() => undefined);
      return next;
    },
    async close(): Promise<void> {
      await queue;
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** OpenSSL config values: quote paths so spaces and '$' are taken literally. */
function confPath(path: string): string {
  return `"${path.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\$/g, '\\$')}"`;
}
