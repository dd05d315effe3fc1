// `prereg run` on the example study: the whole pipeline, checked with the real tools an auditor uses.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyExampleStudy, PROJECT_ROOT, runCli, TEST_OPERATOR_ARGS } from '../support/cli.ts';

const KEYS = join(PROJECT_ROOT, 'test/fixtures/keys');

let root: string;
let cleanup: () => void;
let dir: string;
beforeAll(async () => {
  ({ root, cleanup } = copyExampleStudy());
  const r = await runCli(['run', '--root', root, ...TEST_OPERATOR_ARGS, '--json']);
  expect(r.code, r.stdout + r.stderr).toBe(0);
  dir = r.json.dir;
});
afterAll(() => cleanup());

describe('prereg run on the example study', () => {
  it('declared and proven agree for the honest system and differ where evidence is bad', () => {
    const results = JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8'));
    const score = (system: string, metric: string) =>
      results.scores.find((s: { system_id: string; metric: string }) => s.system_id === system && s.metric === metric);
    for (const s of results.scores.filter((x: { system_id: string }) => x.system_id === 'sys-honest')) {
      expect([s.declared, s.n_declared], s.metric).toEqual([s.proven, s.n_proven]);
    }
    for (const system of ['sys-tampered', 'sys-truncated']) {
      const s = score(system, 'positives_citing_expected');
      expect(s.proven, system).toBeLessThan(s.declared);
    }
    expect(results.hypotheses.map((h: { hypothesis_id: string; outcome: string }) => [h.hypothesis_id, h.outcome])).toEqual([
      ['H1', 'SUPPORTED'],
      ['H2', 'SUPPORTED'],
      // Past their thresholds on the point estimate (3/157 ≤ 5%, 28/48 ≥ 50%), not by the exact test
      // with Holm across the five (test/analysis/classify-score.test.ts counts H3 by hand).
      ['H3', 'INCONCLUSIVE'],
      ['H4', 'INCONCLUSIVE'],
      // Every system is counted over the three expected attempts (sys-truncated's missing third ones
      // are failures): the copycat, 0 of 16 items in every attempt, falls short of half.
      ['H5', 'NOT_SUPPORTED'],
    ]);
    const report = readFileSync(join(dir, 'report.md'), 'utf8');
    // 24 proven before mp-009's three attempts came with the issuer's public view (redacted preimage): 21.
    expect(report).toMatch(/sys-tampered \| positive answers citing an expected reference \(higher is better\) \| 45\/48 .*\| 21\/48 /);
    expect(report).toContain('- sys-tampered: 45/48 (93.8%) declared, 21/48 (43.8%) proven — proven is 50.0 points below declared.');
    // The constancy flag, and the discordant items behind a sign test (which item went which way).
    expect(report).not.toContain('counted over different numbers of attempts per item');
    // The raw p-value (9 to 1: 0.021484375, shown to 4 digits), then Holm's over the 6 comparisons of the metric, significance and the wins needed;
    // beyond noise: 10 discordant items against sys-honest's own replicate's 3 (mp-010, mp-011, mp-012).
    expect(report).toMatch(
      /\| sys-honest \| sys-tampered \| [^|]*, proven [^|]*\| 3 \/ 3 \| 9 \| 1 \| 6 \| 0\.02148 \| [^|]+ \| (yes|no) \| 9 of 10 \| yes \| mp-001, mp-002, mp-003, mp-004, mp-005, mp-006, mp-007, mp-008, mp-009 \| mp-010 \|/,
    );
    // sys-truncated made two of the three expected attempts of each item: it fails every item, and
    // sys-honest, which cites in all three attempts of 15 items (not mp-010), wins those 15.
    expect(report).toMatch(/\| sys-honest \| sys-truncated \| [^|]*, proven [^|]*\| 3 \/ 3 \| 15 \| 0 \| 1 \|/);
    // L5132-4, relayed from the served L2113-10: RELAYED for both, PHANTOM proven for sys-tampered (expired key).
    expect(report).toContain('| RELAYED | 0 | 0 | 3 | 3 | 3 | 3 | 3 | 0 | 0 | 0 |'); // copycat, sys-honest, sys-honest-rerun, sys-tampered, sys-truncated
  });

  it("the copycat, which submitted sys-honest's lines as its own, declares high and proves nothing; sys-honest keeps its credit", () => {
    const results = JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8'));
    const cites = (system: string) =>
      results.scores.find((s: { system_id: string; metric: string }) => s.system_id === system && s.metric === 'positives_citing_expected');
    // Its 15 lines of 48 expected positive records: the 33 it never sent are failures.
    expect(cites('copycat')).toMatchObject({ declared: 15, proven: 0, n_declared: 48, n_proven: 48, missing: 33 });
    expect(cites('sys-honest')).toMatchObject({ declared: 47, proven: 47, n_declared: 48 });
    expect(results.evidence.by_system.find((s: { system_id: string }) => s.system_id === 'copycat')).toEqual({
      system_id: 'copycat',
      proofs: 15,
      verified: 15,
      proofs_not_bound: 15,
      proofs_reused: 0,
      timelines_reused: 0,
      proofs_seller_not_pinned: 0,
      passages_not_in_corpus: 0,
    });
    // Every copied proof (chain hash, proof_id) and timeline (job and final digest) is listed as
    // used by both, claimed by sys-honest alone.
    expect(results.evidence.reuse).toHaveLength(15 * 3);
    expect([...new Set(results.evidence.reuse.map((r: { kind: string }) => r.kind))].sort()).toEqual([
      'chain_hash',
      'job_final_digest',
      'proof_id',
    ]);
    for (const r of results.evidence.reuse) {
      expect(r.systems).toEqual(['copycat', 'sys-honest']);
      expect(r.claimed_by).toEqual([r.records[1]]);
      expect(r.cancels).toBe(false);
    }
    const report = readFileSync(join(dir, 'report.md'), 'utf8');
    expect(report).toContain('- copycat: 15/48 (31.3%) declared, 0/48 (0.0%) proven');
    // Each rate with its exact 95% interval, over the 48 expected positive records: 15/48 is
    // [18.66%, 46.25%] (scipy beta.ppf(0.025, 15, 34), beta.ppf(0.975, 16, 33)), shown widened to
    // [18.6%, 46.3%]; 0/48 is [0.0%, 7.4%] (1 − 0.025^(1/48) = 0.0740).
    expect(report).toMatch(
      /\| copycat \| positive answers citing an expected reference \(higher is better\) \| 15\/48 \(31\.3%\) \| \\\[18\.6%, 46\.3%\\\] \| 0\/48 \(0\.0%\) \| \\\[0\.0%, 7\.4%\\\] \|/,
    );
    expect(report).toContain('study.json registers 5 system(s)');
  });

  it('passes sha256sum -c, openssl cms -verify and openssl pkeyutl -verify; DuckDB reads the Parquet back', async () => {
    execFileSync('sha256sum', ['-c', '--strict', 'SHA256SUMS'], { cwd: dir });
    execFileSync(
      'openssl',
      [
        'cms',
        '-verify',
        '-binary',
        '-inform',
        'DER',
        '-in',
        'manifest.p7s',
        '-content',
        'manifest.json',
        '-CAfile',
        join(KEYS, 'TEST-ONLY-operator.cert.pem'),
        '-purpose',
        'any',
        '-out',
        '/dev/null',
      ],
      { cwd: dir, stdio: 'pipe' },
    );
    execFileSync(
      'openssl',
      [
        'pkeyutl',
        '-verify',
        '-pubin',
        '-inkey',
        join(root, 'preregistration/trust/operator/TEST-ONLY-operator.pub.pem'),
        '-rawin',
        '-in',
        'manifest.json',
        '-sigfile',
        'manifest.sig',
      ],
      { cwd: dir, stdio: 'pipe' },
    );
    const { openStore } = await import('../../pipeline/store/db.ts');
    const mem = await openStore(':memory:');
    try {
      const n = await mem.connection.runAndReadAll(`SELECT count(*) AS n FROM read_parquet('${join(dir, 'proof_checks.parquet')}')`);
      expect(n.getRowObjectsJS()[0]!.n).toBe(235n); // 20 items × (3 + 3 + 2 + 3 attempts), and the copycat's 15 copied lines
    } finally {
      mem.close();
    }
  });

  it('refuses to overwrite the output directory (exit 4)', async () => {
    const again = await runCli(['run', '--root', root, ...TEST_OPERATOR_ARGS, '--json']);
    expect(again.code).toBe(4);
    expect(again.json.code).toBe('OUTPUT_EXISTS');
  });
});
