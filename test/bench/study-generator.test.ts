// The bench's study generator and npm run bench:study must keep working (CI runs neither at
// scale): 200 records from 20 systems, generated, run stage by stage and audited VALID.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { PROJECT_ROOT } from '../support/cli.ts';

it('bench/study.ts generates a 200-record, 20-system study that runs and audits VALID', () => {
  const dir = mkdtempSync(join(tmpdir(), 'prereg-bench-study-'));
  try {
    const out = execFileSync(process.execPath, ['--import', 'tsx', 'bench/study.ts', '--records', '200', '--dir', dir], {
      cwd: PROJECT_ROOT,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const figures = JSON.parse(out.trim().split('\n').at(-1)!) as { study: string; stages: Record<string, { wall_s: number; peak_mib: number }>; audit: { verdict: string } };
    expect(Object.keys(figures.stages)).toEqual(['ingest', 'verify', 'classify', 'score', 'emit']);
    for (const s of Object.values(figures.stages)) expect(s.peak_mib).toBeGreaterThan(0);
    expect(figures.audit.verdict).toBe('VALID');

    const submissions = join(figures.study, 'inputs/submissions');
    const files = readdirSync(submissions).sort();
    expect(files).toHaveLength(20);
    const lines = files.flatMap((f) => readFileSync(join(submissions, f), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { evidence: Array<{ proof: { timestamp_authority?: { tsr_base64?: string } } }>; receipts: unknown[] }));
    expect(lines).toHaveLength(200);
    // Two evidence items per record, the first with a token and the second without; receipts on every record.
    for (const l of lines) {
      expect(l.evidence.map((e) => e.proof.timestamp_authority?.tsr_base64 !== undefined)).toEqual([true, false]);
      expect(l.receipts.length).toBeGreaterThan(0);
    }
    expect(readFileSync(join(figures.study, 'inputs/commitments.jsonl'), 'utf8').trim().split('\n')).toHaveLength(200);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 300_000);
