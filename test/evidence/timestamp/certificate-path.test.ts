// A witness whose CA may not issue: certificate paths `openssl ts -verify` refuses (path length
// constraint exceeded, unhandled critical extension, an issuer that is not a CA) are refused by
// `prereg verify-token` too — the one verifier that judges anchors, intake and seal tokens and
// proof tokens — each with its code, and a control chain is accepted by both. Every hierarchy is
// made here with the real `openssl`, every token by `openssl ts -reply`, and each token is also
// judged by `openssl ts -verify` on the same inputs.
//
// Who gains: a TSA operator (or whoever holds a sub-CA key) whose CA was not allowed to issue
// further CAs, and the study operator anchoring with such a witness; a certificate that carries
// a constraint prereg does not process must not be taken as if it did not.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTimestampRequest } from '../../../pipeline/formats/timestamp-request.ts';
import { runCli } from '../../support/cli.ts';
import { createOpensslTsa } from '../../support/tsa/openssl-tsa.ts';
import { caExtensions, issueCertificate, tsaExtensions, type PkiCertificate } from '../../support/tsa/openssl-pki.ts';
import { opensslTsVerify } from '../../support/tsa/openssl-verify.ts';

let work: string;
beforeAll(() => {
  work = mkdtempSync(path.join(tmpdir(), 'prereg-cert-path-'));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** An unknown private OID, critical: no verifier can claim to have honoured it. */
const UNKNOWN_CRITICAL = '1.3.6.1.4.1.55555.1.1=critical,ASN1:NULL';

interface Hierarchy {
  root: PkiCertificate;
  /** The TSA's issuers below the root, nearest the TSA first (what the token carries beside the signer). */
  chain: PkiCertificate[];
  tsa: PkiCertificate;
}

/** root → issuers[0] → issuers[1] → … → TSA; `issuers` are the extension sections, from the root down. */
function hierarchy(rootExtensions: string, issuers: string[], tsa: string): Hierarchy {
  const dir = mkdtempSync(path.join(work, 'pki-'));
  const root = issueCertificate(dir, 'root', 'self', rootExtensions);
  let issuer = root;
  const chain: PkiCertificate[] = [];
  issuers.forEach((extensions, i) => {
    issuer = issueCertificate(dir, `ca-${i + 1}`, issuer, extensions);
    chain.unshift(issuer);
  });
  return { root, chain, tsa: issueCertificate(dir, 'tsa', issuer, tsa) };
}

/** A token of `openssl ts -reply` signing with the hierarchy's TSA (carrying its chain), over 32 random bytes; and both verdicts on it. */
async function judge(
  h: Hierarchy,
): Promise<{ prereg: { code: number; status: string; reason_codes: string[] }; openssl: { ok: boolean; output: string } }> {
  const data = randomBytes(32);
  const dataFile = path.join(work, `data-${data.toString('hex').slice(0, 8)}.bin`);
  writeFileSync(dataFile, data);
  const tsa = await createOpensslTsa({ certPath: h.tsa.cert, keyPath: h.tsa.key, chainPaths: h.chain.map((c) => c.cert) });
  const token = path.join(work, `token-${data.toString('hex').slice(0, 8)}.tsr`);
  writeFileSync(token, await tsa.reply(buildTimestampRequest(data, 7n)).finally(() => tsa.close()));
  const r = await runCli(['verify-token', token, '--data', dataFile, '--tsa-root', h.root.cert, '--json']);
  expect([0, 1], r.stdout + r.stderr).toContain(r.code);
  const genTime = Math.floor(Date.parse(r.json.gen_time) / 1000);
  return {
    prereg: { code: r.code, status: r.json.status, reason_codes: r.json.reason_codes },
    openssl: opensslTsVerify({ token, data: dataFile, roots: [h.root.cert], attime: genTime, scratch: work }),
  };
}

describe('certificate paths: prereg verify-token and openssl ts -verify agree', () => {
  it('control: root → CA (pathlen 1) → sub-CA → TSA is accepted by both', async () => {
    const both = await judge(hierarchy(caExtensions(), [caExtensions(1), caExtensions()], tsaExtensions()));
    expect(both.openssl.ok, both.openssl.output).toBe(true);
    expect(both.prereg).toEqual({ code: 0, status: 'VERIFIED', reason_codes: [] });
  });

  it('control: a known critical extension (certificatePolicies) on the TSA is accepted by both', async () => {
    const both = await judge(hierarchy(caExtensions(), [], tsaExtensions('certificatePolicies=critical,1.2.3.4.5')));
    expect(both.openssl.ok, both.openssl.output).toBe(true);
    expect(both.prereg).toEqual({ code: 0, status: 'VERIFIED', reason_codes: [] });
  });

  it('a sub-CA below a pathlen 0 intermediate: "path length constraint exceeded" → TSA_CHAIN_PATH_LENGTH', async () => {
    const both = await judge(hierarchy(caExtensions(), [caExtensions(0), caExtensions()], tsaExtensions()));
    expect([both.openssl.ok, both.openssl.output]).toEqual([false, expect.stringContaining('path length constraint exceeded')]);
    expect(both.prereg).toEqual({ code: 1, status: 'REFUSED', reason_codes: ['TSA_CHAIN_PATH_LENGTH'] });
  });

  it('a pathlen 0 on the pinned root itself, an intermediate below it: refused by both', async () => {
    const both = await judge(hierarchy(caExtensions(0), [caExtensions()], tsaExtensions()));
    expect([both.openssl.ok, both.openssl.output]).toEqual([false, expect.stringContaining('path length constraint exceeded')]);
    expect(both.prereg).toEqual({ code: 1, status: 'REFUSED', reason_codes: ['TSA_CHAIN_PATH_LENGTH'] });
  });

  it('a TSA certificate with an unknown critical extension: "unhandled critical extension" → TSA_CHAIN_CRITICAL_EXTENSION', async () => {
    const both = await judge(hierarchy(caExtensions(), [], tsaExtensions(UNKNOWN_CRITICAL)));
    expect([both.openssl.ok, both.openssl.output]).toEqual([false, expect.stringContaining('unhandled critical extension')]);
    expect(both.prereg).toEqual({ code: 1, status: 'REFUSED', reason_codes: ['TSA_CHAIN_CRITICAL_EXTENSION'] });
  });

  it('an intermediate with a critical extension prereg does not process (authorityInfoAccess): refused by both', async () => {
    const both = await judge(
      hierarchy(caExtensions(), [`${caExtensions()}\nauthorityInfoAccess=critical,OCSP;URI:http://ocsp.invalid/`], tsaExtensions()),
    );
    expect([both.openssl.ok, both.openssl.output]).toEqual([false, expect.stringContaining('unhandled critical extension')]);
    expect(both.prereg).toEqual({ code: 1, status: 'REFUSED', reason_codes: ['TSA_CHAIN_CRITICAL_EXTENSION'] });
  });

  it('an intermediate with an unknown critical extension: refused by both', async () => {
    const both = await judge(hierarchy(caExtensions(), [`${caExtensions()}\n${UNKNOWN_CRITICAL}`], tsaExtensions()));
    expect([both.openssl.ok, both.openssl.output]).toEqual([false, expect.stringContaining('unhandled critical extension')]);
    expect(both.prereg).toEqual({ code: 1, status: 'REFUSED', reason_codes: ['TSA_CHAIN_CRITICAL_EXTENSION'] });
  });

  // An issuer that is not a CA, or may not sign certificates, gives no path to the root (the chain
  // engine requires both of every issuer, the root included): TSA_CHAIN_UNTRUSTED.
  it('an issuer that is not a CA (CA:FALSE) between the root and the TSA: refused by both', async () => {
    const notCa = 'basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature,keyCertSign';
    const both = await judge(hierarchy(caExtensions(), [notCa], tsaExtensions()));
    expect([both.openssl.ok, both.openssl.output]).toEqual([false, expect.stringContaining('invalid CA certificate')]);
    expect(both.prereg).toEqual({ code: 1, status: 'REFUSED', reason_codes: ['TSA_CHAIN_UNTRUSTED'] });
  });

  it('a pinned root that is not a CA (CA:FALSE): refused by both', async () => {
    const both = await judge(hierarchy('basicConstraints=critical,CA:FALSE\nkeyUsage=critical,keyCertSign', [], tsaExtensions()));
    expect(both.openssl.ok, both.openssl.output).toBe(false);
    expect(both.prereg).toEqual({ code: 1, status: 'REFUSED', reason_codes: ['TSA_CHAIN_UNTRUSTED'] });
  });

  it('a pinned root whose keyUsage lacks keyCertSign: refused by both', async () => {
    const both = await judge(
      hierarchy('basicConstraints=critical,CA:TRUE\nkeyUsage=critical,digitalSignature,cRLSign', [], tsaExtensions()),
    );
    expect(both.openssl.ok, both.openssl.output).toBe(false);
    expect(both.prereg).toEqual({ code: 1, status: 'REFUSED', reason_codes: ['TSA_CHAIN_UNTRUSTED'] });
  });
});
