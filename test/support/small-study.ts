// Hand-built studies for the analysis tests: the example study's frozen corpus, key and section 5,
// with submissions written here record by record, so the expected class of every assertion is
// known. Records are minted by submission-record.ts (as the bench's study generator's are).
import { readFileSync, rmSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { copyExampleStudy, PROJECT_ROOT } from './cli.ts';
import { mintRecord, type HandRecord } from './submission-record.ts';
import { loadTestSigner } from './tsa/pkijs-tsa.ts';

export type { HandRecord } from './submission-record.ts';

const KEY = readFileSync(join(PROJECT_ROOT, 'test/fixtures/keys/TEST-ONLY-arkforge-2026.key.pem'), 'utf8');

export async function buildSmallStudy(records: readonly HandRecord[]): Promise<{ root: string; cleanup: () => void }> {
  const study = copyExampleStudy();
  const ctx = { keyPem: KEY, signer: await loadTestSigner('tsa') };
  const submissions = join(study.root, 'inputs/submissions');
  rmSync(submissions, { recursive: true, force: true });
  mkdirSync(submissions, { recursive: true });
  const lines = new Map<string, string[]>();
  const commitments: string[] = [];
  let clock = Date.parse('2026-11-05T10:00:00Z');
  for (const r of records) {
    clock += 60_000;
    const { line, commitment } = await mintRecord(r, clock, ctx);
    commitments.push(commitment);
    lines.set(r.system, [...(lines.get(r.system) ?? []), line]);
  }
  for (const [system, l] of lines) writeFileSync(join(submissions, `${system}.jsonl`), `${l.join('\n')}\n`);
  writeFileSync(join(study.root, 'inputs/commitments.jsonl'), `${commitments.join('\n')}\n`);
  return study;
}
