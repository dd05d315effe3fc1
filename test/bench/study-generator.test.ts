// The bench's study generator and npm run bench:study must keep working (CI runs neither at
// scale): 200 records from 20 systems, generated, run stage by stage and audited VALID.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { PROJECT_ROOT } from '../support/cli.ts';
import { queryStore } from '../support/store-query.ts';

it('bench/study.ts generates 100- and 200-record, 20-system studies that run, audit VALID and verify in shards, side by side', () => {
  const dir = mkdtempSync(join(tmpdir(), 'prereg-bench-study-'));
  try {
    const out = execFileSync(process.execPath, ['--import', 'tsx', 'bench/study.ts', '--records', '100,200', '--dir', dir], {
      cwd: PROJECT_ROOT,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const { runs } = JSON.parse(out.trim().split('\n').at(-1)!) as {
      runs: Array<{
        study: string;
        records: number;
        stages: Record<string, { wall_s: number; cpu_s: number; peak_mib: number }>;
        audit: { verdict: string };
        shards: { count: number; cpu_s: number; single_ingest_verify_cpu_s: number; ratio: number };
      }>;
    };
    expect(runs.map((r) => r.records)).toEqual([100, 200]);
    for (const r of runs) {
      expect(Object.keys(r.stages)).toEqual(['ingest', 'verify', 'classify', 'score', 'emit']);
      for (const s of Object.values(r.stages)) expect(s.peak_mib).toBeGreaterThan(0);
      expect(r.audit.verdict).toBe('VALID');
      // Four `verify --shard i/4` processes ran (each exits 0, or the bench throws), set against the single run.
      expect(r.shards.count).toBe(4);
      expect(r.shards.single_ingest_verify_cpu_s).toBeCloseTo(r.stages.ingest!.cpu_s + r.stages.verify!.cpu_s, 1);
      expect(r.shards.ratio).toBeCloseTo(r.shards.cpu_s / r.shards.single_ingest_verify_cpu_s, 2);
    }
    // The sizes side by side: one row per stage, the second size's peak with its ratio to the first's.
    const table = out.slice(out.indexOf('peak memory, MiB'));
    for (const stage of ['ingest', 'verify', 'classify', 'score', 'emit'])
      expect(table).toMatch(new RegExp(`\\n${stage} +\\d+ +\\d+ \\(\\d+\\.\\d\\d\\)`));
    const figures = runs[1]!;

    const submissions = join(figures.study, 'inputs/submissions');
    const files = readdirSync(submissions).sort();
    expect(files).toHaveLength(20);
    const lines = files.flatMap((f) =>
      readFileSync(join(submissions, f), 'utf8')
        .trim()
        .split('\n')
        .map(
          (l) => JSON.parse(l) as { evidence: Array<{ proof: { timestamp_authority?: { tsr_base64?: string } } }>; receipts: unknown[] },
        ),
    );
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

it('a whole pipeline run with more than 200 discordant items scores, its sign tests exact (no 2^n overflow)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'prereg-bench-discordant-'));
  try {
    // 400 items (320 positive), two systems, one attempt each; each system wrong on every other positive item.
    const out = execFileSync(
      process.execPath,
      [
        '--import',
        'tsx',
        'bench/study.ts',
        '--records',
        '800',
        '--systems',
        '2',
        '--variants',
        '20',
        '--pattern',
        'alternate',
        '--dir',
        dir,
        '--no-audit',
        '--shards',
        '0',
      ],
      {
        cwd: PROJECT_ROOT,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const figures = (JSON.parse(out.trim().split('\n').at(-1)!) as { runs: Array<{ study: string }> }).runs[0]!;
    const tests = await queryStore(figures.study, 'SELECT metric, wins_a, wins_b, p_value FROM result_sign_tests ORDER BY metric');
    expect(tests).toHaveLength(2);
    const splits = tests.map((t) => [Number(t.wins_a), Number(t.wins_b)]);
    for (const [a, b] of splits) expect(a! + b!).toBeGreaterThan(200);
    const exact = JSON.parse(
      execFileSync(
        'python3',
        [
          '-c',
          'import json,sys; from math import comb\nprint(json.dumps([min(1.0, 2*sum(comb(a+b,i) for i in range(min(a,b)+1))/2**(a+b)) for a,b in json.load(sys.stdin)]))',
        ],
        { input: JSON.stringify(splits), encoding: 'utf8' },
      ),
    ) as number[];
    tests.forEach((t, i) => {
      expect(Math.abs(Number(t.p_value) - exact[i]!) / exact[i]!).toBeLessThan(1e-9);
    });
    const discordant = await queryStore(figures.study, "SELECT count(*) AS n FROM result_discordant_items WHERE metric LIKE '%/proven'");
    expect(Number(discordant[0]!.n)).toBe(splits[1]![0]! + splits[1]![1]!);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 600_000);
