// proof-spec §2 "Algorithm": spec_version 1.2 and 2.1.
// chain = SHA-256 of canonical_json(chain_data) (SPEC §3), chain_data = the six base fields plus
// upstream_timestamp / receipt_content_hash when served (non-empty strings).
import { canonicalJson } from '../../../formats/canonical-json.ts';
import { sha256Hex } from '../../../formats/hash.ts';
import type { ChainFields } from './proof.ts';
import { valueModule } from './values.ts';

export const canonical = valueModule('canonical', (f: ChainFields): string =>
  // ChainFields leaves the optional keys out when not served, as chain_data does.
  sha256Hex(canonicalJson(f)),
);
