// The operator's attack on the first promise (SPEC §12.1, issue 20), replayed from the CLI: after
// the deadline it edits the answer key, re-freezes, and anchors the new freeze "before opens_at"
// with a backdated token. What the operator is allowed here: everything in the study directory
// (it runs the pipeline and holds the keys), a TSA of its own, and the example's committed
// TEST-ONLY TSA key (anyone can read it). What it cannot touch: the auditor's material,
// test/fixtures/example-auditor/, made before the attack (the TSA root, the issuer keys and the
// freeze digest published before the study opened).
import { copyFileSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { AuditReport } from '../../pipeline/audit/rails.ts';
import { studyLayout } from '../../pipeline/layout.ts';
import { EXAMPLE_ANCHOR_GEN_TIME } from '../../scripts/rebuild-example.ts';
import { auditorFlags } from '../support/auditor.ts';
import { runCli, scratchStudies, TEST_OPERATOR_ARGS } from '../support/cli.ts';
import { startTsaServer } from '../support/tsa/http-tsa.ts';
import { loadTestSigner, testPkiPaths, type TestPkiName } from '../support/tsa/pkijs-tsa.ts';

const study = scratchStudies();

async function run(root: string): Promise<string> {
  const r = await runCli(['run', '--root', root, ...TEST_OPERATOR_ARGS, '--json']);
  expect(r.code, r.stdout + r.stderr).toBe(0);
  return r.json.dir as string;
}

async function audit(dir: string, root: string, flags: readonly string[]): Promise<{ code: number; report: AuditReport; text: string }> {
  const r = await runCli(['audit', dir, '--root', root, ...flags, '--json']);
  const text = await runCli(['audit', dir, '--root', root, ...flags]);
  return { code: r.code, report: r.json as AuditReport, text: text.stdout };
}

function provenPositives(dir: string, system: string): string {
  const results = JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8')) as { scores: Array<Record<string, unknown>> };
  const row = results.scores.find((s) => s.system_id === system && s.metric === 'positives_citing_expected')!;
  return `${String(row.proven)}/${String(row.n_proven)}`;
}

const railFailed = (report: AuditReport, name: string) => report.rails.find((r) => r.name === name)!.ok === false;

/**
 * The operator's re-freeze: three positive items of the answer key now expect another article,
 * the study frozen again (its own secret), the old anchor removed and a new one obtained from
 * `signer`'s TSA with a genTime before opens_at. `ownRoot` adds that TSA's root to the study's
 * trust directory first (a root of the operator's own).
 */
async function refreeze(root: string, signer: TestPkiName, ownRoot: boolean): Promise<void> {
  const layout = studyLayout(root);
  const key = readFileSync(layout.answerKey, 'utf8').split('\n');
  let edited = 0;
  const changed = key.map((line) => {
    if (edited >= 3 || !line.includes('"kind": "positive"')) return line;
    edited += 1;
    return line.replace(/"expected_refs": \["[^"]+"\]/, '"expected_refs": ["R2123-1"]');
  });
  expect(edited).toBe(3);
  writeFileSync(layout.answerKey, changed.join('\n'));
  if (ownRoot) {
    copyFileSync(testPkiPaths('unpinned-root').cert, join(layout.trust, 'tsa-roots/operator-own-root.cert.pem'));
    const policy = JSON.parse(readFileSync(join(layout.trust, 'policy.json'), 'utf8')) as { tsa_roots: string[] };
    policy.tsa_roots.push('tsa-roots/operator-own-root.cert.pem');
    writeFileSync(join(layout.trust, 'policy.json'), `${JSON.stringify(policy, null, 2)}\n`);
  }
  rmSync(layout.anchors, { recursive: true, force: true });
  const frozen = await runCli([
    'freeze',
    '--replace',
    '--reason',
    'test refreeze',
    '--root',
    root,
    '--secret-file',
    layout.answerKeySecret,
    '--json',
  ]);
  expect(frozen.code, frozen.stdout + frozen.stderr).toBe(0);
  const tsa = await startTsaServer({ backend: 'pkijs', signer: await loadTestSigner(signer), genTime: EXAMPLE_ANCHOR_GEN_TIME });
  try {
    const anchored = await runCli(['anchor', '--root', root, '--tsa', `backdated=${tsa.url}`, '--json']);
    expect(anchored.code, anchored.stdout + anchored.stderr).toBe(0);
  } finally {
    await tsa.close();
  }
}

let genuine: string;
beforeAll(async () => {
  // The genuine run's score, for the attack to be seen moving it.
  const root = study();
  genuine = provenPositives(await run(root), 'sys-honest');
}, 120_000);

describe('re-freeze after the deadline', () => {
  it("with a TSA root of the operator's own: the score moves, and the audit says INVALID", async () => {
    const root = study();
    await refreeze(root, 'unpinned-tsa', true);
    const dir = await run(root);
    expect(provenPositives(dir, 'sys-honest')).not.toBe(genuine); // the attack works on the pipeline

    const a = await audit(dir, root, auditorFlags());
    expect([a.code, a.report.verdict]).toEqual([1, 'invalid']);
    expect(a.report.reason_codes).toEqual(
      expect.arrayContaining(['FREEZE_DIGEST_UNEXPECTED', 'ANCHOR_INSUFFICIENT', 'AUDIT_ANCHORS_INVALID', 'AUDIT_TRUST_UNCONFIRMED']),
    );
    expect(railFailed(a.report, 'anchors')).toBe(true);
    expect(railFailed(a.report, 'trust')).toBe(true);
    // The backdated witness is named as trusted by the study alone, with the root and the flag.
    const said = JSON.stringify(a.report.rails);
    expect(said).toMatch(/1 more \(backdated\) verify only under the study's own roots/);
    expect(a.text).toContain('preregistration/trust/tsa-roots/operator-own-root.cert.pem'); // the trust rail lists every entry
    expect(a.text).toContain('verdict: INVALID');

    // Audited as before this session's rules (the study's own roots, no pinned digest): no longer VALID.
    const bare = await audit(dir, root, []);
    expect([bare.code, bare.report.reason_codes]).toEqual([
      1,
      expect.arrayContaining(['AUDIT_TRUST_UNCONFIRMED', 'FREEZE_DIGEST_UNPINNED']),
    ]);
  }, 180_000);

  it("with the example's own committed TSA key, backdated: only the published digest catches it", async () => {
    const root = study();
    await refreeze(root, 'tsa', false);
    const dir = await run(root);
    expect(provenPositives(dir, 'sys-honest')).not.toBe(genuine);

    const a = await audit(dir, root, auditorFlags());
    expect([a.code, a.report.verdict]).toEqual([1, 'invalid']);
    const anchors = a.report.rails.find((r) => r.name === 'anchors')!;
    expect([anchors.ok, anchors.reason_codes]).toEqual([false, ['FREEZE_DIGEST_UNEXPECTED']]);
    // Every other rail passes: the witness verifies under the auditor's root; only --expect-freeze binds.
    expect(a.report.rails.filter((r) => !r.ok).map((r) => r.name)).toEqual(['anchors']);
    expect(JSON.stringify(anchors)).toContain(`the one you expected (--expect-freeze) is ${auditorFlags()[5]}`);
  }, 180_000);
});
