// Answer-key commitment (SPEC §4.3): a Merkle root over salted per-item leaves. Hiding without the
// secret, binding to every item, field and the order of lines; one item can be revealed alone.
import { createHmac } from 'node:crypto';
import { canonicalJsonBytes } from '../formats/canonical-json.ts';
import { hashLeaf, inclusionPath, rootFromLeafHashes } from '../formats/merkle.ts';

export interface AnswerKeyItem {
  item_id: string;
  kind: 'positive' | 'negative';
  expected_refs: string[];
  /** `derived`: the amount is computed (a sum, a conversion), in words; exempt from the corpus check. */
  expected_amounts: Array<{ ref: string; value: string | number; unit: string; derived?: string }>;
}

export interface AnswerKeyCommitment {
  scheme: 'prereg.answer-key/hmac-sha256-rfc6962';
  root: string;
  item_count: number;
  /** Leaf hashes in key order: public, salted, so they reveal nothing, and they name a differing item. */
  leaves: string[];
}

/** salt_i = HMAC-SHA-256(secret, item_id). */
export function itemSalt(secret: Uint8Array, itemId: string): Buffer {
  return createHmac('sha256', secret).update(itemId, 'utf8').digest();
}

/** Leaf = SHA-256(0x00 ‖ salt_i ‖ canonical item_i). `item` is the parsed line, as written. */
export function answerKeyLeaf(secret: Uint8Array, item: { item_id: string } & object): Buffer {
  return hashLeaf(itemSalt(secret, item.item_id), canonicalJsonBytes(item));
}

export function commitAnswerKey(secret: Uint8Array, items: ReadonlyArray<{ item_id: string } & object>): AnswerKeyCommitment {
  const leaves = items.map((item) => answerKeyLeaf(secret, item));
  return {
    scheme: 'prereg.answer-key/hmac-sha256-rfc6962',
    root: rootFromLeafHashes(leaves).toString('hex'),
    item_count: items.length,
    leaves: leaves.map((l) => l.toString('hex')),
  };
}

export interface RevealCheck {
  ok: boolean;
  problems: string[];
}

/** Does a revealed key (with its secret) reproduce the frozen commitment, item by item? */
export function checkReveal(
  secret: Uint8Array,
  items: ReadonlyArray<{ item_id: string } & object>,
  frozen: AnswerKeyCommitment,
): RevealCheck {
  const recomputed = commitAnswerKey(secret, items);
  const problems: string[] = [];
  if (recomputed.item_count !== frozen.item_count) {
    problems.push(`item count ${recomputed.item_count} differs from the committed ${frozen.item_count}`);
  }
  const n = Math.min(recomputed.leaves.length, frozen.leaves.length);
  for (let i = 0; i < n; i++) {
    if (recomputed.leaves[i] !== frozen.leaves[i]) {
      const id = items[i]!.item_id;
      const elsewhere = frozen.leaves.indexOf(recomputed.leaves[i]!);
      problems.push(
        elsewhere >= 0
          ? `line ${i + 1} (${id}) was committed at line ${elsewhere + 1}: the order differs`
          : `line ${i + 1} (${id}) differs from the committed item (a field, a value or the secret)`,
      );
    }
  }
  if (recomputed.root !== frozen.root && problems.length === 0) problems.push('root differs from the commitment');
  return { ok: problems.length === 0 && recomputed.root === frozen.root, problems };
}

/** What a single item's reveal needs: its salt and its audit path to the committed root. */
export function revealOneItem(secret: Uint8Array, items: ReadonlyArray<{ item_id: string } & object>, index: number) {
  const leaves = items.map((item) => answerKeyLeaf(secret, item));
  return {
    item: items[index],
    salt: itemSalt(secret, items[index]!.item_id).toString('hex'),
    index,
    tree_size: leaves.length,
    audit_path: inclusionPath(leaves, index).map((h) => h.toString('hex')),
  };
}
