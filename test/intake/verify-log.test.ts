// verifyIntakeLog, the audit's intake rail (SPEC §12.2): on a study sealed through the CLI, with
// the TSA roots passed in as an auditor would; then each thing it must catch. Also the refusals of
// run, reveal-check and ingest around the seal (SEAL_MISSING, SEAL_FREEZE_MISMATCH).
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadTsaTrust } from '../../pipeline/evidence/timestamp/index.ts';
import { verifyIntakeLog } from '../../pipeline/intake/verify-log.ts';
import { studyLayout } from '../../pipeline/layout.ts';
import { freezeDigest, loadFreezeRecord } from '../../pipeline/study/freeze-record.ts';
import { intakeOf, loadStudy } from '../../pipeline/study/study.ts';
import { runCli, TEST_OPERATOR_ARGS } from '../support/cli.ts';
import { AFTER_CLOSE, intakeFixture, intakeWith, sealWith, signAs, TSA_ROOT_PEM, type IntakeStudy } from '../support/intake-study.ts';
import { testPkiPaths } from '../support/tsa/pkijs-tsa.ts';

const fixture = intakeFixture();
let unsealed: IntakeStudy;
let sealedRoot: string;
const scratch: string[] = [];
beforeAll(async () => {
  unsealed = fixture.built.copy();
  const s = fixture.built.copy();
  for (const a of [s.honest, s.truncated]) {
    const file = join(s.staging, `${a.system_id}.jsonl`);
    expect((await signAs(s, file, a)).code).toBe(0);
    const r = await intakeWith(fixture.tsa, s, `${file}.intake.json`);
    expect(r.code, r.stdout + r.stderr).toBe(0);
  }
  fixture.tsa.at(AFTER_CLOSE);
  expect((await sealWith(fixture.tsa, s)).code).toBe(0);
  sealedRoot = s.root;
}, 120_000);
afterAll(() => {
  for (const d of scratch) rmSync(d, { recursive: true, force: true });
});

function copyOfSealed(): string {
  const dir = mkdtempSync(join(tmpdir(), 'prereg-sealed-'));
  scratch.push(dir);
  cpSync(sealedRoot, dir, { recursive: true });
  return dir;
}
async function rail(root: string, rootPem = TSA_ROOT_PEM, opensAt?: string) {
  const layout = studyLayout(root);
  const study = loadStudy(layout.study);
  return verifyIntakeLog(layout, {
    tsaTrust: loadTsaTrust([readFileSync(rootPem, 'utf8')]),
    agentKeys: { study_id: study.study_id, systems: study.systems ?? [] },
    study: { window: { ...study.window, ...(opensAt ? { opens_at: opensAt } : {}) }, intake: intakeOf(study) },
    freezeDigest: freezeDigest(loadFreezeRecord(layout.freeze)),
  });
}
const reason_codes = (v: Awaited<ReturnType<typeof rail>>) => [...new Set(v.findings.map((f) => f.code))].sort();

describe('verifyIntakeLog', () => {
  it("passes a log and seal as intake and seal wrote them, with the auditor's roots", async () => {
    const v = await rail(copyOfSealed());
    expect(v.findings).toEqual([]);
    expect(v.ok).toBe(true);
    expect(v.entries).toHaveLength(2);
    expect(v.sealedFiles.map((f) => f.path)).toEqual([
      'inputs/commitments.jsonl',
      'inputs/submissions/sys-honest.jsonl',
      'inputs/submissions/sys-truncated.jsonl',
    ]);
    expect(v.sealAnchors).toEqual([expect.objectContaining({ witness: 'local', gen_time: AFTER_CLOSE, reason_codes: [] })]);
    expect(v.ownerFiles).toEqual([
      { path: 'inputs/submissions/sys-honest.jsonl', system_id: 'sys-honest', kind: 'submissions' },
      { path: 'inputs/submissions/sys-truncated.jsonl', system_id: 'sys-truncated', kind: 'submissions' },
    ]);
  });

  it('entries dated before opens_at are INTAKE_EARLY, naming their lines (an operator that took files in before the window)', async () => {
    // The same log judged against a window that opened after its entries were dated.
    const v = await rail(copyOfSealed(), TSA_ROOT_PEM, '2026-11-15T00:00:00Z');
    expect(v.ok).toBe(false);
    expect(v.findings.filter((f) => f.code === 'INTAKE_EARLY').map((f) => f.line)).toEqual([1, 2]);
  });

  it("roots the auditor does not trust: every entry token and the seal's anchor fail", async () => {
    const v = await rail(copyOfSealed(), testPkiPaths('unpinned-root').cert);
    expect(reason_codes(v)).toEqual(['INTAKE_TOKEN_INVALID', 'SEAL_INVALID']);
    expect(v.ok).toBe(false);
  });

  it("an edited entry breaks the chain, its token and the seal's root", async () => {
    const root = copyOfSealed();
    const log = join(root, 'inputs/intake.jsonl');
    const lines = readFileSync(log, 'utf8')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    lines[0].lines_rejected = 1;
    writeFileSync(log, `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);
    const v = await rail(root);
    expect(reason_codes(v)).toEqual(['INTAKE_LOG_INVALID', 'INTAKE_TOKEN_INVALID', 'SEAL_INVALID']);
    expect(v.findings.find((f) => f.code === 'INTAKE_LOG_INVALID')).toMatchObject({ file: 'inputs/intake.jsonl', line: 2 });
  });

  it('an input file that is not its sealed leaf is INTAKE_DRIFT, naming it', async () => {
    const root = copyOfSealed();
    writeFileSync(join(root, 'inputs/commitments.jsonl'), '');
    const v = await rail(root);
    expect(v.findings).toEqual([expect.objectContaining({ code: 'INTAKE_DRIFT', file: 'inputs/commitments.jsonl' })]);
  });

  it('a sealed-mode study without a seal is SEAL_MISSING', async () => {
    const v = await rail(unsealed.root);
    expect(reason_codes(v)).toEqual(['SEAL_MISSING']);
  });
});

describe('the stages around the seal', () => {
  it('run after closes_at and reveal-check refuse a sealed-mode study without a seal (SEAL_MISSING, exit 3)', async () => {
    const run = await runCli(['run', ...TEST_OPERATOR_ARGS, '--root', unsealed.root, '--json']);
    expect([run.code, JSON.parse(run.stdout || run.stderr).code]).toEqual([3, 'SEAL_MISSING']);
    const reveal = await runCli(['reveal-check', '--root', unsealed.root, '--json']);
    expect([reveal.code, JSON.parse(reveal.stdout || reveal.stderr).code]).toEqual([3, 'SEAL_MISSING']);
    expect((await runCli(['reveal-check', '--root', copyOfSealed()])).code).toBe(0);
  });

  it('ingest refuses a seal over another freeze (SEAL_FREEZE_MISMATCH)', async () => {
    const root = copyOfSealed();
    const path = join(root, 'inputs/seal.json');
    writeFileSync(path, readFileSync(path, 'utf8').replace(/"freeze_digest": "[0-9a-f]{64}"/, `"freeze_digest": "${'cd'.repeat(32)}"`));
    const r = await runCli(['ingest', '--root', root, '--json']);
    expect([r.code, JSON.parse(r.stdout || r.stderr).code]).toEqual([3, 'SEAL_FREEZE_MISMATCH']);
  });
});
