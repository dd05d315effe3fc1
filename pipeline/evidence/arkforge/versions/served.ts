// The values a proof SERVES for the fields a chain hash covers (proof-spec v3.1.0 §2
// "Definitions": the source of each committed field in the proof JSON). A spec 3.x opening is
// compared with the served value; the identity block is reported from here when no anchor backs it.
//
// Values are read from the proof as given (`raw`: parsed JsonValue with number lexemes, or plain
// JS), so that a canonical-JSON comparison is exact (1.0 is not 1).
import { member } from '../../../formats/canonical-json.ts';
import { servedReceiptContentHash, servedUpstreamTimestamp, stripSha256, type ArkForgeProof } from './proof.ts';

/** Committed by every 3.x proof (proof-spec v3.1.0 §2 "Fields committed"). */
export const BASE_FIELDS = ['request_hash', 'response_hash', 'transaction_id', 'timestamp', 'buyer_fingerprint', 'seller'] as const;
/** Committed exactly when served (a non-empty string). */
export const OPTIONAL_FIELDS = ['upstream_timestamp', 'receipt_content_hash'] as const;
/** Committed unconditionally from 3.1; served, and anchored by nothing, before. */
export const IDENTITY_FIELDS = ['agent_identity', 'agent_identity_verified', 'did_resolution_status', 'identity_consistent'] as const;
export type IdentityField = (typeof IDENTITY_FIELDS)[number];

export type Served = { served: true; value: unknown } | { served: false };
const NOT_SERVED: Served = { served: false };

/**
 * What the proof serves for a committed field. Base fields count as served when present and not
 * null (a public proof omits or nulls buyer_fingerprint), buyer_fingerprint and seller read from
 * `parties` first and from the top level otherwise; the two optional fields when non-empty
 * strings (as they enter a chain hash); identity fields when the key is present, null included
 * (null is a committed value), read from `parties` first and from the top level otherwise
 * (`identity_consistent` the other way round). A field the proof has no place for is not served.
 */
export function servedValue(proof: ArkForgeProof, raw: unknown, field: string): Served {
  const present = (value: unknown): Served => (value === undefined || value === null ? NOT_SERVED : { served: true, value });
  switch (field) {
    case 'request_hash':
      return { served: true, value: stripSha256(proof.hashes.request) };
    case 'response_hash':
      return { served: true, value: stripSha256(proof.hashes.response) };
    case 'transaction_id': {
      const block = member(raw, 'payment') ?? member(raw, 'certification_fee');
      return present(member(block, 'transaction_id'));
    }
    case 'timestamp':
      return { served: true, value: proof.timestamp };
    case 'buyer_fingerprint':
    case 'seller': {
      // parties.X, else the top-level X (the public view serves the seller there).
      const inParties = member(member(raw, 'parties'), field);
      return present(inParties === undefined || inParties === null ? member(raw, field) : inParties);
    }
    case 'upstream_timestamp':
      return present(servedUpstreamTimestamp(proof));
    case 'receipt_content_hash':
      return present(servedReceiptContentHash(proof));
    case 'agent_identity':
    case 'agent_identity_verified':
    case 'did_resolution_status':
    case 'identity_consistent': {
      const places = field === 'identity_consistent' ? [raw, member(raw, 'parties')] : [member(raw, 'parties'), raw];
      for (const place of places) {
        const value = member(place, field);
        if (value !== undefined) return { served: true, value };
      }
      return NOT_SERVED;
    }
    default:
      return NOT_SERVED;
  }
}

/** The identity block as served (null for a field not served). */
export function servedIdentity(proof: ArkForgeProof, raw: unknown): Record<IdentityField, unknown> {
  const out = {} as Record<IdentityField, unknown>;
  for (const f of IDENTITY_FIELDS) {
    const s = servedValue(proof, raw, f);
    out[f] = s.served ? s.value : null;
  }
  return out;
}

/**
 * Whether the proof claims an identity: agent_identity, agent_identity_verified or
 * did_resolution_status served with a value other than null, '' or false. identity_consistent
 * alone claims nothing (it judges an identity that was not declared), as in the reference verifier.
 */
export function claimsIdentity(identity: Record<IdentityField, unknown>): boolean {
  return (['agent_identity', 'agent_identity_verified', 'did_resolution_status'] as const).some((f) => {
    const v = identity[f];
    return v !== null && v !== undefined && v !== '' && v !== false;
  });
}
