// Records of the bench's generated study (bench/study-generator.ts), minted on worker threads by
// the tests' own minter (test/support/submission-record.ts). A record is a pure function of its
// index: system = index / perSystem; within a system, item = j mod items, attempt = j / items + 1.
import { mintRecord, type RecordSpec, type Passage } from '../test/support/submission-record.ts';
import { loadTestSigner } from '../test/support/tsa/pkijs-tsa.ts';

export interface StudyItem {
  item_id: string;
  positive: boolean;
  /** The answer an honest system gives, and the passages served for it. */
  answer: string;
  served: Passage[];
}
export interface StudyInit {
  keyPem: string;
  items: StudyItem[];
  perSystem: number;
  /** The second evidence item's passage (a second retrieval, without a token). */
  second: Passage;
  /** Which positive answers a system gets wrong (bench/study-generator.ts StudyShape). */
  pattern: 'spread' | 'alternate';
}
export interface StudyRecord {
  system: string;
  line: string;
  commitment: string;
}

export const systemId = (s: number) => `sys-${String(s + 1).padStart(2, '0')}`;

export async function createHandler(init: StudyInit) {
  const ctx = { keyPem: init.keyPem, signer: await loadTestSigner('tsa') };
  return async (indices: number[]): Promise<StudyRecord[]> => {
    const out: StudyRecord[] = [];
    for (const index of indices) {
      const s = Math.floor(index / init.perSystem);
      const j = index % init.perSystem;
      const item = init.items[j % init.items.length]!;
      // 'spread': system s cites a wrong reference on s of every 40 positive answers (the systems
      // differ); 'alternate': on every other positive item, by the system's parity.
      const wrong = item.positive && (init.pattern === 'alternate' ? (j + s) % 2 === 0 : (j * 7 + s) % 40 < s);
      const r: RecordSpec = {
        system: systemId(s),
        item: item.item_id,
        attempt: Math.floor(j / init.items.length) + 1,
        text: wrong ? item.answer.replace(/[LRD][0-9]{4}-[0-9]+/, 'L2122-8') : item.answer,
        refused: !item.positive,
        passages: item.served,
        token: true,
        moreEvidence: [{ passages: [init.second], token: false }],
      };
      // Systems 12 hours apart, records 7 s apart: all inside the study window (Nov 2 to 16).
      const clock = Date.parse('2026-11-03T00:00:00Z') + s * 43_200_000 + j * 7_000;
      out.push({ system: r.system, ...(await mintRecord(r, clock, ctx)) });
    }
    return out;
  };
}
