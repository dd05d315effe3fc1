// Throw-away certificate hierarchies made with the real `openssl` (ECDSA P-256 keys, 30 days from
// now), for tests that need a chain the committed TEST-ONLY PKI does not have: a sub-CA under a
// pathLen 0 intermediate, an unknown critical extension, an issuer that is not a CA. Each
// certificate's extensions are given as an openssl extension section, one `name=value` a line.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';

export interface PkiCertificate {
  /** PEM certificate file. */
  cert: string;
  /** PEM (PKCS#8, unencrypted) private key file. */
  key: string;
}

/** A CA's usual extensions; `pathlen` adds a path length constraint. */
export const caExtensions = (pathlen?: number) =>
  `basicConstraints=critical,CA:TRUE${pathlen === undefined ? '' : `,pathlen:${pathlen}`}\nkeyUsage=critical,keyCertSign,cRLSign\nsubjectKeyIdentifier=hash`;

/** A TSA signer's extensions (RFC 3161 §2.3), then `extra` lines. */
export const tsaExtensions = (extra = '') =>
  `basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=critical,timeStamping${extra ? `\n${extra}` : ''}`;

/** A certificate `name` in `dir` with subject CN=`name`, self-signed (issuer 'self') or issued by `issuer`. */
export function issueCertificate(dir: string, name: string, issuer: PkiCertificate | 'self', extensions: string): PkiCertificate {
  const at = (suffix: string) => path.join(dir, `${name}.${suffix}`);
  const openssl = (args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  openssl(['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', at('key.pem')]);
  openssl(['req', '-new', '-key', at('key.pem'), '-subj', `/O=prereg TEST-ONLY fixtures/CN=${name}`, '-out', at('csr')]);
  writeFileSync(at('ext'), `[ext]\n${extensions}\n`);
  const signing =
    issuer === 'self'
      ? ['-signkey', at('key.pem')]
      : ['-CA', issuer.cert, '-CAkey', issuer.key, '-set_serial', `0x${randomBytes(8).toString('hex')}`];
  openssl([
    'x509',
    '-req',
    '-in',
    at('csr'),
    ...signing,
    '-days',
    '30',
    '-extfile',
    at('ext'),
    '-extensions',
    'ext',
    '-out',
    at('cert.pem'),
  ]);
  return { cert: at('cert.pem'), key: at('key.pem') };
}
