import { createHash, createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { checkReveal, commitAnswerKey, revealOneItem } from '../../pipeline/study/answer-key.ts';
import { hashLeaf, verifyInclusion } from '../../pipeline/formats/merkle.ts';

const secret = Buffer.from('TEST-ONLY secret for the commitment tests');
const key = [
  { item_id: 'q1', kind: 'positive', expected_refs: ['R2152-2'], expected_amounts: [{ ref: 'R2122-8', value: '40000', unit: 'EUR' }] },
  { item_id: 'q2', kind: 'negative', expected_refs: [], expected_amounts: [] },
  { item_id: 'q3', kind: 'positive', expected_refs: ['L2113-10', 'CCAG Travaux 4'], expected_amounts: [] },
];

describe('answer-key commitment', () => {
  it('computes leaves as SHA-256(0x00 ‖ HMAC(secret, item_id) ‖ canonical item)', () => {
    const c = commitAnswerKey(secret, key);
    // Written out independently: canonical JSON of q2 has sorted keys and no spaces.
    const salt = createHmac('sha256', secret).update('q2').digest();
    const canonical = '{"expected_amounts":[],"expected_refs":[],"item_id":"q2","kind":"negative"}';
    const leaf = createHash('sha256')
      .update(Buffer.from([0]))
      .update(salt)
      .update(canonical)
      .digest('hex');
    expect(c.leaves[1]).toBe(leaf);
    expect(c.item_count).toBe(3);
  });

  it('reproduces with the same key and secret', () => {
    expect(checkReveal(secret, key, commitAnswerKey(secret, key))).toEqual({ ok: true, problems: [] });
  });

  it('refuses a key that differs in one item, one field, the order, the count or the secret', () => {
    const frozen = commitAnswerKey(secret, key);
    const oneField = key.map((k) => (k.item_id === 'q3' ? { ...k, expected_refs: ['L2113-10'] } : k));
    const kindFlip = key.map((k) => (k.item_id === 'q2' ? { ...k, kind: 'positive' } : k));
    const reordered = [key[1]!, key[0]!, key[2]!];
    const fewer = key.slice(0, 2);
    const cases = [
      { name: 'one field', items: oneField, problem: /line 3 \(q3\) differs/ },
      { name: 'one item', items: kindFlip, problem: /line 2 \(q2\) differs/ },
      { name: 'order', items: reordered, problem: /line 1 \(q2\) was committed at line 2: the order differs/ },
      { name: 'count', items: fewer, problem: /item count 2 differs from the committed 3/ },
    ];
    for (const c of cases) {
      const r = checkReveal(secret, c.items, frozen);
      expect(r.ok, c.name).toBe(false);
      expect(r.problems.join('\n'), c.name).toMatch(c.problem);
    }
    expect(checkReveal(Buffer.from('another TEST-ONLY secret, wrong'), key, frozen).ok).toBe(false);
  });

  it('hides items: another secret gives unrelated leaves', () => {
    const a = commitAnswerKey(secret, key);
    const b = commitAnswerKey(Buffer.from('another TEST-ONLY secret, wrong'), key);
    expect(a.leaves.some((l) => b.leaves.includes(l))).toBe(false);
  });

  it('reveals one item alone with its salt and audit path', () => {
    const frozen = commitAnswerKey(secret, key);
    const r = revealOneItem(secret, key, 2);
    // Keys written in sorted order: for ASCII values JSON.stringify is then the canonical form.
    const canonical = JSON.stringify({
      expected_amounts: [],
      expected_refs: ['L2113-10', 'CCAG Travaux 4'],
      item_id: 'q3',
      kind: 'positive',
    });
    const leaf = hashLeaf(Buffer.from(r.salt, 'hex'), Buffer.from(canonical));
    expect(leaf.toString('hex')).toBe(frozen.leaves[2]);
    const root = Buffer.from(frozen.root, 'hex');
    expect(
      verifyInclusion(
        leaf,
        2,
        3,
        r.audit_path.map((h) => Buffer.from(h, 'hex')),
        root,
      ),
    ).toEqual({ ok: true });
  });
});
