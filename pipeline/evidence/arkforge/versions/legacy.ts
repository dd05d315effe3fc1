// proof-spec §2 "Backward compatibility": spec_version 1.0, 1.1, 2.0 and absent.
// chain = SHA-256 of the UTF-8 concatenation, no separators:
//   request_hash + response_hash + transaction_id + timestamp + buyer_fingerprint + seller
//   [+ upstream_timestamp] [+ receipt_content_hash]
import { sha256Hex } from '../../../formats/hash.ts';
import type { ChainFields } from './proof.ts';
import { valueModule } from './values.ts';

export const legacy = valueModule('legacy', (f: ChainFields): string => {
  let input = f.request_hash + f.response_hash + f.transaction_id + f.timestamp + f.buyer_fingerprint + f.seller;
  if (f.upstream_timestamp !== undefined) input += f.upstream_timestamp;
  if (f.receipt_content_hash !== undefined) input += f.receipt_content_hash;
  return sha256Hex(input);
});
