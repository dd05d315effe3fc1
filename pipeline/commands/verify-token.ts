// `prereg verify-token`: one RFC 3161 token of any TSA, verified over given bytes (--data) or a
// given imprint (--digest) against the roots the caller pins (SPEC §12.7), with the verifier every
// stage uses (evidence/timestamp/). A utility, outside any study: it reads only the files named.
import { loadGivenTsaTrust } from '../auditor/trust.ts';
import { verifyTimestampToken, type TimestampSubject, type TimestampVerification } from '../evidence/timestamp/index.ts';
import { HASH_ALGORITHMS, SHA2_HASHES, isSha2, type Sha2Hash } from '../formats/hash-algorithms.ts';
import { readTimestampRequest, type TimestampRequest } from '../formats/timestamp-request.ts';
import { parseRfc3339 } from '../formats/rfc3339.ts';
import { readRegularFile } from '../io/regular-file.ts';
import { EXIT, PreregError } from '../reasons.ts';
import { shown as displayText } from '../text/display.ts';
import type { Command } from '../command.ts';

/** Imprint length in bytes of each accepted algorithm (FIPS 180-4). */
const IMPRINT_BYTES: Readonly<Record<Sha2Hash, number>> = { sha256: 32, sha384: 48, sha512: 64 };

export const verifyToken: Command = {
  name: 'verify-token',
  summary: 'verify one RFC 3161 token of any TSA over a file or an imprint, against the roots you pin',
  help: [
    'usage: prereg verify-token TOKEN.tsr (--data FILE | --digest HEX | --query REQ.tsq) [--hash sha256|sha384|sha512]',
    '                           --tsa-root PEM… [--tsa-cert PEM…] [--at RFC3339] [--json]',
    '',
    '  --data FILE      the bytes that were timestamped: the imprint must be their hash under the',
    "                   token's algorithm (SHA-256, SHA-384 or SHA-512; SHA-1 is TSA_HASH_WEAK)",
    '  --digest HEX     the message imprint itself (what `openssl ts -query -digest` sends)',
    '  --query REQ.tsq  the request the token answers (`openssl ts -verify -queryfile`): its imprint,',
    '                   its nonce (if it has one: TSA_NONCE_MISMATCH) and its policy (if it names one:',
    "                   TSA_POLICY_MISMATCH) must be the token's",
    "  --hash ALG       assert the imprint's algorithm; a token using another is TSA_IMPRINT_MISMATCH",
    '  --tsa-root PEM   the roots you trust (repeatable; a file may hold several certificates)',
    '  --tsa-cert PEM   signing or intermediate certificates for a token that carries none',
    '                   (as `openssl ts -verify -untrusted`): path material, never a root',
    "  --at RFC3339     judge certificate validity at this time; default the token's genTime",
    '',
    'Checks, every one reported: parse, status, imprint algorithm, imprint, nonce and policy (with',
    '--query), signer (the certificate the SignerInfo names, from the token or --tsa-cert; extra',
    'certificates never sign), signature algorithm (SHA-1 is TSA_HASH_WEAK), signature, ESSCertID',
    'binding, chain to a pinned root, path length constraints, critical extensions, timeStamping EKU',
    '(docs/trust.md). The verdict is the one `openssl ts -verify -attime <genTime>` gives, except',
    'that SHA-1 imprints and signatures, and the few critical extensions OpenSSL handles and prereg',
    'does not enforce, are refused.',
    'Exit 0 verified, 1 refused (the TSA_* codes say why), 3 an input that cannot be read.',
  ].join('\n'),
  options: {
    data: { type: 'string' },
    digest: { type: 'string' },
    query: { type: 'string' },
    hash: { type: 'string' },
    'tsa-root': { type: 'string', multiple: true },
    'tsa-cert': { type: 'string', multiple: true },
    at: { type: 'string' },
  },
  stage: false,
  jsonSchema: () => 'prereg.verify-token/1',
  operands: { min: 1, max: 1 },
  async run(ctx) {
    const [file, ...extra] = ctx.positionals;
    if (file === undefined || extra.length > 0) throw new PreregError('USAGE', 'verify-token takes exactly one TOKEN.tsr');
    const roots = (ctx.values['tsa-root'] as string[] | undefined) ?? [];
    if (roots.length === 0) throw new PreregError('USAGE', 'verify-token needs --tsa-root PEM: nothing is trusted unless you pin it');
    const hash = hashOption(ctx.values.hash);
    const at = atOption(ctx.values.at);
    const request = queryOption(ctx.values.query, ctx.values.data, ctx.values.digest, hash);
    const subject = request === undefined ? subjectOf(ctx.values.data, ctx.values.digest, hash) : requestSubject(request);
    const token = readRegularFile(file);
    const trust = loadGivenTsaTrust(roots, (ctx.values['tsa-cert'] as string[] | undefined) ?? []);
    const result = await verifyTimestampToken(token, subject, trust, {
      ...(at === undefined ? {} : { at }),
      ...(request === undefined ? {} : { request }),
    });
    const json = tokenReport(file, result, at !== undefined);
    return { exitCode: result.ok ? EXIT.ok : EXIT.failures, json, text: tokenText(json) };
  },
};

function hashOption(value: unknown): Sha2Hash | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !isSha2(value)) {
    throw new PreregError(
      'USAGE',
      `--hash must be one of ${SHA2_HASHES.join(', ')}${value === 'sha1' ? ' (SHA-1 imprints are refused: TSA_HASH_WEAK)' : ''}`,
    );
  }
  return value;
}

function atOption(value: unknown): Date | undefined {
  if (value === undefined) return undefined;
  const instant = typeof value === 'string' ? parseRfc3339(value) : null;
  if (instant === null)
    throw new PreregError('USAGE', `--at must be an RFC 3339 date-time such as 2025-05-09T11:58:55Z, got ${displayText(String(value))}`);
  return new Date(instant.seconds * 1000 + Math.floor(Number(`0.${instant.fraction || '0'}`) * 1000));
}

/** The request of --query, read and decoded; undefined without --query. */
function queryOption(query: unknown, data: unknown, digest: unknown, hash: Sha2Hash | undefined): TimestampRequest | undefined {
  if (query === undefined) return undefined;
  if (data !== undefined || digest !== undefined)
    throw new PreregError('USAGE', 'give exactly one of --data FILE, --digest HEX and --query REQ.tsq');
  if (hash !== undefined) throw new PreregError('USAGE', '--hash does not go with --query: the request names its algorithm');
  const request = readTimestampRequest(readRegularFile(String(query)));
  if (request === undefined)
    throw new PreregError('TSA_REQUEST_MALFORMED', `${displayText(String(query))} is not a DER TimeStampReq (RFC 3161 §2.4.1, version 1)`);
  return request;
}

/** The request's imprint as the subject, its algorithm asserted when it is one prereg accepts. */
function requestSubject(request: TimestampRequest): TimestampSubject {
  const node = HASH_ALGORITHMS[request.imprintAlgorithm]?.node;
  return node !== undefined && isSha2(node) ? { imprint: request.hashedMessage, hash: node } : { imprint: request.hashedMessage };
}

function subjectOf(data: unknown, digest: unknown, hash: Sha2Hash | undefined): TimestampSubject {
  if ((data === undefined) === (digest === undefined))
    throw new PreregError('USAGE', 'give exactly one of --data FILE, --digest HEX and --query REQ.tsq');
  if (typeof data === 'string') return hash === undefined ? { data: readRegularFile(data) } : { data: readRegularFile(data), hash };
  const text = String(digest);
  const bytes = /^(?:[0-9a-fA-F]{2})+$/.test(text) ? Buffer.from(text, 'hex') : null;
  const lengths = hash === undefined ? Object.values(IMPRINT_BYTES) : [IMPRINT_BYTES[hash]];
  if (bytes === null || !lengths.includes(bytes.length)) {
    throw new PreregError(
      'USAGE',
      `--digest must be the imprint in hex: ${lengths.map((n) => `${n * 2}`).join(', ')} hex digits${hash ? ` for ${hash}` : ' (SHA-256, SHA-384, SHA-512)'}`,
    );
  }
  return hash === undefined ? { imprint: bytes } : { imprint: bytes, hash };
}

export interface TokenReport {
  file: string;
  status: 'VERIFIED' | 'REFUSED';
  reason_codes: string[];
  checks: TimestampVerification['checks'];
  gen_time: string | null;
  /** When certificate validity was judged, and whether that was the token's genTime or --at. */
  validity_at: string | null;
  validity_from: 'gen_time' | 'at';
  hash_algorithm: string | null;
  hashed_message: string | null;
  serial_number: string | null;
  policy: string | null;
  nonce: string | null;
  tsa_name: string | null;
  signer: string | null;
  signer_cert_sha256: string | null;
  root_sha256: string | null;
}

function tokenReport(file: string, r: TimestampVerification, atGiven: boolean): TokenReport {
  return {
    file,
    status: r.ok ? 'VERIFIED' : 'REFUSED',
    reason_codes: r.reason_codes,
    checks: r.checks,
    gen_time: r.genTime ?? null,
    validity_at: r.validityAt ?? null,
    validity_from: atGiven ? 'at' : 'gen_time',
    hash_algorithm: r.hashAlgorithm ?? null,
    hashed_message: r.hashedMessage ?? null,
    serial_number: r.serialNumber ?? null,
    policy: r.policy ?? null,
    nonce: r.nonce ?? null,
    tsa_name: r.tsaName ?? null,
    signer: r.signerSubject ?? null,
    signer_cert_sha256: r.signerCertSha256 ?? null,
    root_sha256: r.rootSha256 ?? null,
  };
}

/** The human lines; every string the token or the command line controls goes through displayText. */
function tokenText(r: TokenReport): string {
  const shown = (v: string | null) => (v === null ? '-' : displayText(v));
  const failed = Object.entries(r.checks)
    .filter(([, o]) => o === 'fail')
    .map(([c]) => c);
  return [
    `${displayText(r.file)}: ${r.status}${r.reason_codes.length ? ` ${r.reason_codes.join(' ')}` : ''}`,
    `  genTime ${shown(r.gen_time)}; validity judged at ${shown(r.validity_at)} (${r.validity_from === 'at' ? '--at' : 'genTime'})`,
    `  imprint ${shown(r.hash_algorithm)} ${shown(r.hashed_message)}`,
    `  signer ${shown(r.signer)}; root ${shown(r.root_sha256)}`,
    `  TSA ${shown(r.tsa_name)}; serial ${shown(r.serial_number)}; policy ${shown(r.policy)}`,
    `  checks: ${Object.entries(r.checks)
      .map(([c, o]) => `${c} ${o}`)
      .join(', ')}${failed.length ? ` (failed: ${failed.join(', ')})` : ''}`,
  ].join('\n');
}
