// What every value algorithm (spec_version absent, 1.x, 2.x) decides besides its formula:
//   chain      — the recomputed hash against hashes.chain (PROOF_CHAIN_MISMATCH); when the proof
//                is the public view, which publishes neither the buyer fingerprint nor the
//                transaction id, nothing can be recomputed: the check stays 'skipped' and
//                PROOF_PREIMAGE_REDACTED (UNTRUSTED) says why. The signature, token and log entry
//                still witness the declared chain hash, but no body is bound by it. Fields a
//                submitter fills in are recomputed like any others (made-up values mismatch);
//   disclosures — such a proof commits no field, so an opening given with it opens nothing
//                 (PROOF_DISCLOSURE_MISMATCH: silence would read as success);
//   identity   — identity fields are covered by no anchor: a claim is reported as the issuer's
//                 unanchored word (PROOF_IDENTITY_UNANCHORED, informational), never as evidence.
// The bodies are bound by the chain itself (hashes.request / hashes.response are chain inputs):
// body_binding is a 3.x check and stays 'skipped' here.
import { canonicalJson } from '../../../formats/canonical-json.ts';
import type { Finding } from '../checks.ts';
import type { ChainAlgorithm, ProofVersionModule, VersionInput, VersionOutcome } from './types.ts';
import { chainFields, chainInputs, REDACTED_CHAIN_INPUTS, type ArkForgeProof, type ChainFields } from './proof.ts';
import { claimsIdentity, servedIdentity } from './served.ts';

/** A value algorithm: its formula over the chain inputs, and the checks every one of them decides. */
export function valueModule(
  algorithm: Exclude<ChainAlgorithm, 'commitments'>,
  formula: (fields: ChainFields) => string,
): ProofVersionModule {
  return {
    algorithm,
    chainHash: (proof: ArkForgeProof) => formula(chainFields(proof)),
    verify(input: VersionInput): VersionOutcome {
      const out: VersionOutcome = {
        recomputed_chain_hash: null,
        checks: {},
        findings: [],
        committed_fields: null,
        opened_fields: [],
        identity: null,
        buyer_fingerprint: null,
        seller: null,
      };
      const inputs = input.chainInputs ?? chainInputs(input.proof);
      if (!('fields' in inputs)) {
        // readItem refused every other gap as malformed: this is the issuer's public view.
        out.findings.push({
          check: 'chain',
          code: 'PROOF_PREIMAGE_REDACTED',
          problem: `the proof is the issuer's public view: it publishes neither ${REDACTED_CHAIN_INPUTS.join(' nor ')}, so its chain hash cannot be recomputed and the request and response hashes are bound by nothing (the signature and witnesses cover only the declared chain hash)`,
          undecided: true,
        });
      } else {
        out.recomputed_chain_hash = formula(inputs.fields);
        if (out.recomputed_chain_hash === input.declaredChain) {
          out.checks.chain = 'pass';
          out.buyer_fingerprint = { value: inputs.fields.buyer_fingerprint, source: 'preimage' };
          out.seller = { value: inputs.fields.seller, source: 'preimage' };
        } else
          out.findings.push({
            check: 'chain',
            code: 'PROOF_CHAIN_MISMATCH',
            problem: `chain hash recomputed by the ${algorithm} algorithm is ${out.recomputed_chain_hash}, the proof declares ${input.declaredChain}`,
          });
      }
      if (input.openings.length > 0) {
        const fields = [...new Set(input.openings.map((o) => o.field))].join(', ');
        out.findings.push({
          check: 'disclosures',
          code: 'PROOF_DISCLOSURE_MISMATCH',
          problem: `spec_version ${versionLabel(input.proof)} commits no field: ${input.openings.length} opening(s) (${fields}) open nothing`,
        });
      }
      out.identity = unanchoredIdentity(input, out.findings);
      return out;
    },
  };
}

/** An identity served by a proof whose version commits none: reported, flagged informational. */
export function unanchoredIdentity(input: VersionInput, findings: Finding[]): { json: string; anchored: false } | null {
  const identity = servedIdentity(input.proof, input.raw);
  if (!claimsIdentity(identity)) return null;
  const json = canonicalJson(identity);
  findings.push({
    check: 'identity',
    code: 'PROOF_IDENTITY_UNANCHORED',
    problem: `identity ${json} is served, but spec_version ${versionLabel(input.proof)} commits no identity: it is the issuer's unanchored statement, not evidence`,
    informational: true,
  });
  return { json, anchored: false };
}

export function versionLabel(proof: ArkForgeProof): string {
  return proof.spec_version === undefined || proof.spec_version === null ? '(absent)' : JSON.stringify(proof.spec_version);
}
