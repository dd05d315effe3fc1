// The bench's study at scale: the example study (corpus documents, section 5, trust) with 100 items
// (each of the example's 20 items in five variants, the same answer key), re-frozen and anchored
// as `npm run example:rebuild` does (freezeAndAnchor), its systems registered with their buyer
// fingerprints, and `records` submission records from `systems` systems — two evidence items each
// (the first with an RFC 3161 token, the second without), an AER-1 timeline on every record and its
// commitment. Minted on worker threads (bench/study-worker.ts) by test/support/submission-record.ts,
// with the small-study builder's buyer keys. Written to a temporary directory and renamed: a study is whole or absent.
import { closeSync, cpSync, existsSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createHash } from 'node:crypto';
import { WorkerPool } from '../pipeline/parallel/pool.ts';
import { articlePassages, honestAnswer, type Item, type KeyItem } from '../scripts/generate-example-submissions.ts';
import { freezeAndAnchor, unsealWorkingCopy, withRegisteredSystems } from '../scripts/rebuild-example.ts';
import { buyerFingerprint } from '../pipeline/dev/arkforge-issuer.ts';
import { smallBuyerKey } from '../test/support/submission-record.ts';
import { systemId, type StudyInit, type StudyItem, type StudyRecord } from './study-worker.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));

/**
 * What a generated study holds: `records` records from `systems` systems over the example's 20
 * items in `variants` variants each (default 5: 100 items); `pattern` says which positive answers
 * a system gets wrong — 'spread' (default) s of every 40 for system s, 'alternate' every other
 * positive item, by system parity, so that two systems disagree on every positive item (the sign
 * test at sizes a fixed-width 2^n cannot hold).
 */
export interface StudyShape {
  records: number;
  systems: number;
  variants?: number;
  pattern?: StudyInit['pattern'];
}

/**
 * The files that shape a record: a change to any makes a new study (a change elsewhere, e.g. to the
 * example's answer texts, needs `--regenerate`).
 */
const SOURCES = ['bench/study-generator.ts', 'bench/study-worker.ts', 'test/support/submission-record.ts'];

export function studyCacheKey(shape: StudyShape): string {
  const h = createHash('sha256');
  for (const f of SOURCES) h.update(readFileSync(join(ROOT, f)));
  const variants = shape.variants ?? 5;
  const pattern = shape.pattern ?? 'spread';
  return `study-${shape.records}x${shape.systems}${variants === 5 ? '' : `-v${variants}`}${pattern === 'spread' ? '' : `-${pattern}`}-${h.digest('hex').slice(0, 12)}`;
}

export async function generateStudy(dir: string, opts: StudyShape & { progress?: (done: number) => void }): Promise<void> {
  const { records, systems } = opts;
  const variants = opts.variants ?? 5;
  if (records % systems !== 0) throw new Error(`generateStudy: ${records} records do not split evenly over ${systems} systems`);
  const perSystem = records / systems;
  const tmp = `${dir}.tmp`;
  rmSync(tmp, { recursive: true, force: true });
  for (const d of ['corpus', 'preregistration', 'inputs']) cpSync(join(ROOT, d), join(tmp, d), { recursive: true });
  // Its submissions are generated here, not received: an unsealed study (frozen again below).
  unsealWorkingCopy(tmp);

  const base = readFileSync(join(tmp, 'corpus/items.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Item);
  const key = new Map(
    readFileSync(join(tmp, 'inputs/answer-key.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => [(JSON.parse(l) as KeyItem).item_id, JSON.parse(l) as KeyItem]),
  );
  const passages = articlePassages(join(tmp, 'corpus'), [
    'code-commande-publique/partie-legislative.md',
    'code-commande-publique/partie-reglementaire.md',
    'ccag-travaux.md',
  ]);
  const items: StudyItem[] = [];
  const itemLines: string[] = [];
  const keyLines: string[] = [];
  for (let v = 0; v < variants; v++) {
    for (const b of base) {
      const k = key.get(b.item_id)!;
      const id = `${b.item_id}-v${v}`;
      itemLines.push(JSON.stringify({ item_id: id, question: v === 0 ? b.question : `${b.question} (variante ${v})` }));
      keyLines.push(JSON.stringify({ ...k, item_id: id }));
      const served = (k.kind === 'positive' ? k.expected_refs : ['R2123-1']).map((ref) => ({ ref, text: passages.get(ref)! }));
      items.push({ item_id: id, positive: k.kind === 'positive', answer: honestAnswer(k, passages), served });
    }
  }
  if (perSystem > items.length * 100)
    throw new Error(`generateStudy: ${perSystem} records per system exceed 100 attempts on ${items.length} items`);
  writeFileSync(join(tmp, 'corpus/items.jsonl'), `${itemLines.join('\n')}\n`);
  writeFileSync(join(tmp, 'inputs/answer-key.jsonl'), `${keyLines.join('\n')}\n`);
  // Each system registered with its own buyer key's fingerprint (study.json systems, SPEC §6.2),
  // and the protocol as many attempts per item as the records make (SPEC §12.5).
  const studyFile = join(tmp, 'preregistration/study.json');
  const registration = Array.from({ length: systems }, (_, s) => ({
    system_id: systemId(s),
    buyer_fingerprints: [buyerFingerprint(smallBuyerKey(systemId(s)))],
  }));
  const attempts = Math.ceil(perSystem / items.length);
  const protocol = readFileSync(studyFile, 'utf8').replace(/"attempts_per_item": \d+/, `"attempts_per_item": ${attempts}`);
  writeFileSync(studyFile, withRegisteredSystems(protocol, registration));
  await freezeAndAnchor(tmp);

  const submissions = join(tmp, 'inputs/submissions');
  rmSync(submissions, { recursive: true, force: true });
  mkdirSync(submissions, { recursive: true });
  const files = new Map<string, number>();
  for (let s = 0; s < systems; s++) files.set(systemId(s), openSync(join(submissions, `${systemId(s)}.jsonl`), 'w'));
  const commitments = openSync(join(tmp, 'inputs/commitments.jsonl'), 'w');
  const init: StudyInit = {
    keyPem: readFileSync(join(ROOT, 'test/fixtures/keys/TEST-ONLY-arkforge-2026.key.pem'), 'utf8'),
    items,
    perSystem,
    second: { ref: 'R2123-1', text: passages.get('R2123-1')! },
    pattern: opts.pattern ?? 'spread',
  };
  const pool = new WorkerPool<StudyInit, number, StudyRecord>({ module: new URL('./study-worker.ts', import.meta.url), init });
  try {
    const chunks = async function* () {
      for (let i = 0; i < records; i += 200) yield Array.from({ length: Math.min(200, records - i) }, (_, j) => i + j);
    };
    let done = 0;
    await pool.mapOrdered(
      chunks(),
      (i) => i,
      (rows) => {
        for (const r of rows) {
          writeSync(files.get(r.system)!, `${r.line}\n`);
          writeSync(commitments, `${r.commitment}\n`);
        }
        done += rows.length;
        opts.progress?.(done);
      },
    );
  } finally {
    await pool.close();
    for (const fd of [...files.values(), commitments]) closeSync(fd);
  }
  rmSync(dir, { recursive: true, force: true });
  renameSync(tmp, dir);
}

/** The study of `records` × `systems` under `cacheDir`, generated unless already there. */
export async function cachedStudy(cacheDir: string, shape: StudyShape, progress?: (done: number) => void): Promise<string> {
  const dir = join(cacheDir, studyCacheKey(shape));
  if (!existsSync(dir)) await generateStudy(dir, { ...shape, ...(progress ? { progress } : {}) });
  return dir;
}
