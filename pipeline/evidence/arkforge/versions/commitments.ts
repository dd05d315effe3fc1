// proof-spec v3.1.0 §2: spec_version 3.0 and 3.1, per-field commitments.
//   commitment(field) = SHA-256(field UTF-8 ‖ 0x00 ‖ nonce (32 bytes) ‖ canonical_json(value))
//   chain hash        = RFC 6962 Merkle Tree Hash over SHA-256(0x00 ‖ commitment bytes), the
//                       commitments taken in sorted field-name order (code points), an odd node
//                       promoted (pipeline/formats/merkle.ts).
// The nonce is written as 64 hex digits and used as its 32 decoded bytes (the reference verifier:
// bytes.fromhex(nonce)). The chain hash recomputes from the published commitments alone.
//
// Checks decided here, each its own column:
//   chain        — the root of the commitments is hashes.chain (PROOF_COMMITMENT_ROOT_MISMATCH);
//   commitments  — the committed set is exactly the six base fields, upstream_timestamp /
//                  receipt_content_hash when served, and (3.1) the identity block
//                  (PROOF_COMMITMENT_SET_MISMATCH);
//   disclosures  — every opening opens its commitment (PROOF_DISCLOSURE_MISMATCH) and equals, as
//                  canonical JSON, the value the proof serves (PROOF_SERVED_VALUE_MISMATCH);
//   body_binding — a body given is bound only by an opened request_hash / response_hash equal to
//                  its hash (PROOF_BODY_UNBOUND): hashes.request alone is not in the root;
//   identity     — 3.1: the block is committed and opened, each value in its domain
//                  (PROOF_IDENTITY_INCOMPLETE, PROOF_IDENTITY_INVALID); 3.0: an identity claim
//                  is unanchored (PROOF_IDENTITY_UNANCHORED, informational).
import { createHash } from 'node:crypto';
import { canonicalJson } from '../../../formats/canonical-json.ts';
import { hashLeaf, rootFromLeafHashes } from '../../../formats/merkle.ts';
import type { Finding } from '../checks.ts';
import type { ProofVersionModule, SourcedOpening, VersionInput, VersionOutcome } from './types.ts';
import { stripSha256, type ArkForgeProof } from './proof.ts';
import {
  BASE_FIELDS,
  IDENTITY_FIELDS,
  OPTIONAL_FIELDS,
  claimsIdentity,
  servedIdentity,
  servedValue,
  type IdentityField,
} from './served.ts';
import { unanchoredIdentity, versionLabel } from './values.ts';

/** Code-point order (Python's sorted() on str): the UTF-8 byte order, not JavaScript's UTF-16 order. */
export function byCodePoint(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

/** SHA-256(field ‖ 0x00 ‖ nonce bytes ‖ canonical JSON of the value), hex. */
export function fieldCommitment(field: string, nonceHex: string, value: unknown): string {
  return createHash('sha256')
    .update(Buffer.from(field, 'utf8'))
    .update(Buffer.of(0))
    .update(Buffer.from(nonceHex, 'hex'))
    .update(canonicalJson(value), 'latin1') // canonical JSON is pure ASCII
    .digest('hex');
}

/** The RFC 6962 root of the commitments in sorted field order, hex. */
export function commitmentRoot(commitments: Readonly<Record<string, string>>): string {
  const leaves = Object.keys(commitments)
    .sort(byCodePoint)
    .map((f) => hashLeaf(Buffer.from(stripSha256(commitments[f]!), 'hex')));
  return rootFromLeafHashes(leaves).toString('hex');
}

/** The identity block's domains (proof-spec v3.1.0 §2 "Definitions"): agent_identity_verified is never false. */
const IDENTITY_DOMAIN: Record<IdentityField, { test: (v: unknown) => boolean; text: string }> = {
  agent_identity: { test: (v) => v === null || typeof v === 'string', text: 'a string or null' },
  agent_identity_verified: { test: (v) => v === null || v === true, text: 'true or null (never false)' },
  did_resolution_status: { test: (v) => v === null || v === 'bound' || v === 'unverified', text: '"bound", "unverified" or null' },
  identity_consistent: { test: (v) => v === null || typeof v === 'boolean', text: 'true, false or null' },
};

function commitmentModule(identityCommitted: boolean): ProofVersionModule {
  return {
    algorithm: 'commitments',
    chainHash: (proof: ArkForgeProof) => commitmentRoot(proof.commitments ?? {}),
    verify(input: VersionInput): VersionOutcome {
      const commitments = input.proof.commitments ?? {};
      const committed = Object.keys(commitments).sort(byCodePoint);
      const out: VersionOutcome = {
        recomputed_chain_hash: commitmentRoot(commitments),
        checks: {},
        findings: [],
        committed_fields: committed,
        opened_fields: [],
        identity: null,
        buyer_fingerprint: null,
        seller: null,
      };
      const fail = (f: Omit<Finding, 'informational'>) => out.findings.push(f);

      // chain: the root of the commitments.
      if (out.recomputed_chain_hash === input.declaredChain) out.checks.chain = 'pass';
      else
        fail({
          check: 'chain',
          code: 'PROOF_COMMITMENT_ROOT_MISMATCH',
          problem: `the RFC 6962 root of the ${committed.length} commitments is ${out.recomputed_chain_hash}, the proof declares ${input.declaredChain}`,
        });

      // commitments: exactly the set this version and the served fields fix.
      const expected = new Set<string>([...BASE_FIELDS, ...(identityCommitted ? IDENTITY_FIELDS : [])]);
      for (const f of OPTIONAL_FIELDS) if (servedValue(input.proof, input.raw, f).served) expected.add(f);
      const missing = [...expected].filter((f) => !Object.hasOwn(commitments, f)).sort(byCodePoint);
      const extra = committed.filter((f) => !expected.has(f));
      if (missing.length === 0 && extra.length === 0) out.checks.commitments = 'pass';
      else {
        const parts = [
          missing.length > 0 ? `not committed: ${missing.join(', ')}` : '',
          extra.length > 0 ? `committed but not in the set: ${extra.join(', ')}` : '',
        ].filter(Boolean);
        fail({
          check: 'commitments',
          code: 'PROOF_COMMITMENT_SET_MISMATCH',
          problem: `spec_version ${versionLabel(input.proof)} commits ${describeSet(expected)}; ${parts.join('; ')}`,
        });
      }

      // disclosures: every opening opens its commitment and equals the served value.
      const opened = new Map<string, SourcedOpening[]>();
      for (const o of input.openings) {
        const where = `${o.source === 'proof' ? 'proof/disclosed' : 'disclosure/disclosed'}/${o.field}`;
        const commitment = Object.hasOwn(commitments, o.field) ? stripSha256(commitments[o.field]!) : undefined;
        if (commitment === undefined) {
          fail({
            check: 'disclosures',
            code: 'PROOF_DISCLOSURE_MISMATCH',
            problem: `${where} opens no commitment: the proof commits no field ${JSON.stringify(o.field)}`,
          });
          continue;
        }
        if (fieldCommitment(o.field, o.nonce, o.value) !== commitment) {
          fail({
            check: 'disclosures',
            code: 'PROOF_DISCLOSURE_MISMATCH',
            problem: `${where} (value ${canonicalJson(o.value)}) does not open commitment sha256:${commitment}`,
          });
          continue;
        }
        opened.set(o.field, [...(opened.get(o.field) ?? []), o]);
        const served = servedValue(input.proof, input.raw, o.field);
        if (served.served && canonicalJson(served.value) !== canonicalJson(o.value)) {
          fail({
            check: 'disclosures',
            code: 'PROOF_SERVED_VALUE_MISMATCH',
            problem: `${where} opens its commitment with ${canonicalJson(o.value)}, but the proof serves ${canonicalJson(served.value)}`,
          });
        }
      }
      if (input.openings.length > 0 && !out.findings.some((f) => f.check === 'disclosures')) out.checks.disclosures = 'pass';
      out.opened_fields = [...opened.keys()].sort(byCodePoint);
      // The fingerprint an opening binds to the root; an unopened (redacted) one binds nothing.
      const fingerprint = (opened.get('buyer_fingerprint') ?? []).find((o) => typeof o.value === 'string');
      if (fingerprint && out.checks.chain === 'pass') out.buyer_fingerprint = { value: fingerprint.value as string, source: 'opening' };
      // The seller likewise: the served `seller` is the issuer's word until an opening binds it.
      const seller = (opened.get('seller') ?? []).find((o) => typeof o.value === 'string');
      if (seller && out.checks.chain === 'pass') out.seller = { value: seller.value as string, source: 'opening' };

      // body_binding: each body given, through an opened hash commitment.
      let bodies = 0;
      for (const [name, bodyHash] of [
        ['request', input.bodyHashes.request],
        ['response', input.bodyHashes.response],
      ] as const) {
        if (bodyHash === undefined) continue;
        bodies++;
        const field = `${name}_hash`;
        const openings = opened.get(field) ?? [];
        if (openings.some((o) => o.value === bodyHash)) continue;
        fail({
          check: 'body_binding',
          code: 'PROOF_BODY_UNBOUND',
          problem:
            openings.length === 0
              ? `the ${name} body is bound to the chain hash only through an opening of ${field}, and none that opens is given (disclosure.disclosed.${field})`
              : `the opened ${field} is ${canonicalJson(openings[0]!.value)}, the ${name} body hashes to ${bodyHash}`,
        });
      }
      if (bodies > 0 && !out.findings.some((f) => f.check === 'body_binding')) out.checks.body_binding = 'pass';

      // identity
      if (identityCommitted) out.identity = checkIdentity(input, commitments, opened, out);
      else out.identity = unanchoredIdentity(input, out.findings);
      return out;
    },
  };
}

/** 3.1: the four identity fields committed, opened, each opened value in its domain. */
function checkIdentity(
  input: VersionInput,
  commitments: Readonly<Record<string, string>>,
  opened: ReadonlyMap<string, SourcedOpening[]>,
  out: VersionOutcome,
): { json: string; anchored: boolean } | null {
  const openings = input.openings;
  const notCommitted = IDENTITY_FIELDS.filter((f) => !Object.hasOwn(commitments, f));
  const notOpened = IDENTITY_FIELDS.filter((f) => Object.hasOwn(commitments, f) && !openings.some((o) => o.field === f));
  if (notCommitted.length > 0 || notOpened.length > 0) {
    const parts = [
      notCommitted.length > 0 ? `not committed: ${notCommitted.join(', ')}` : '',
      notOpened.length > 0 ? `committed but not opened: ${notOpened.join(', ')}` : '',
    ].filter(Boolean);
    out.findings.push({
      check: 'identity',
      code: 'PROOF_IDENTITY_INCOMPLETE',
      problem: `spec_version "3.1" commits and opens the identity block (proof/disclosed); ${parts.join('; ')}`,
    });
  }
  const invalid: string[] = [];
  for (const f of IDENTITY_FIELDS) {
    for (const o of opened.get(f) ?? []) {
      if (!IDENTITY_DOMAIN[f].test(o.value)) invalid.push(`${f} is ${canonicalJson(o.value)}, must be ${IDENTITY_DOMAIN[f].text}`);
    }
  }
  if (invalid.length > 0)
    out.findings.push({
      check: 'identity',
      code: 'PROOF_IDENTITY_INVALID',
      problem: `the opened identity block is outside its domain: ${[...new Set(invalid)].join('; ')}`,
    });
  const complete = IDENTITY_FIELDS.every((f) => opened.has(f));
  // An opening that does not open is reported by the disclosures check; identity then cannot be judged.
  if (complete && invalid.length === 0 && notCommitted.length === 0) out.checks.identity = 'pass';
  if (!complete) {
    // Nothing anchored to report: the served block, if it claims anything, is the issuer's word.
    const served = servedIdentity(input.proof, input.raw);
    return claimsIdentity(served) ? { json: canonicalJson(served), anchored: false } : null;
  }
  const block = Object.fromEntries(IDENTITY_FIELDS.map((f) => [f, opened.get(f)![0]!.value]));
  return { json: canonicalJson(block), anchored: out.checks.identity === 'pass' };
}

function describeSet(fields: ReadonlySet<string>): string {
  return [...fields].sort(byCodePoint).join(', ');
}

export const commitments30 = commitmentModule(false);
export const commitments31 = commitmentModule(true);
