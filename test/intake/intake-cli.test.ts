// Sealed intake end to end, through the CLI only (SPEC §12.2, docs/intake.md): a copy of the
// example study as prereg.study/2 with two registered systems, a local TSA whose genTime the test
// sets; participants sign, the operator takes each file in, seals after closes_at, participants
// check their receipts, ingest reads exactly the sealed files.
import { existsSync, readFileSync, rmSync, writeFileSync, appendFileSync, unlinkSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.ts';
import {
  AFTER_CLOSE,
  intakeFixture,
  intakeWith,
  sealWith,
  signAs as sign,
  TSA_ROOT_PEM,
  type IntakeStudy,
} from '../support/intake-study.ts';

const fixture = intakeFixture();
/** SHA-256 of the request without `file`, its members sorted (canonical JSON of ASCII strings and integers is JSON.stringify's). */
function requestDigestByHand(path: string): string {
  const members = Object.entries(JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>)
    .filter(([k]) => k !== 'file')
    .sort(([x], [y]) => (x < y ? -1 : 1));
  return createHash('sha256')
    .update(JSON.stringify(Object.fromEntries(members)))
    .digest('hex');
}
const intake = (s: IntakeStudy, request: string) => intakeWith(fixture.tsa, s, request);
async function verifyReceipt(s: IntakeStudy, receipt: string) {
  return runCli([
    'intake',
    '--verify-receipt',
    receipt,
    '--seal',
    join(s.root, 'inputs/seal.json'),
    '--tsa-root',
    TSA_ROOT_PEM,
    '--root',
    s.root,
    '--json',
  ]);
}

describe('sealed intake, end to end', () => {
  it('participants sign, the operator receives and seals, receipts check, ingest reads the sealed files; a change after the seal is INTAKE_DRIFT', async () => {
    const s = fixture.built.copy();
    const tsa = fixture.tsa;
    tsa.at('2026-11-10T12:00:00Z');
    const honestFile = join(s.staging, 'sys-honest.jsonl');
    const signed = await sign(s, honestFile, s.honest);
    expect(signed.code).toBe(0);
    const request = `${honestFile}.intake.json`;
    expect(JSON.parse(readFileSync(request, 'utf8'))).toMatchObject({
      format: 'prereg.intake-request/2',
      system_id: 'sys-honest',
      kind: 'submissions',
      version: 1,
      supersedes: '0'.repeat(64),
      file: 'sys-honest.jsonl',
    });

    const first = await intake(s, request);
    expect(first.code, first.stderr + first.stdout).toBe(0);
    expect(first.json).toMatchObject({
      seq: 0,
      gen_time: '2026-11-10T12:00:00Z',
      stored: 'inputs/submissions/sys-honest.jsonl',
      lines_read: 60,
      lines_rejected: 0,
    });
    expect(readFileSync(join(s.root, 'inputs/submissions/sys-honest.jsonl'))).toEqual(readFileSync(honestFile));
    const firstReceipt = first.json.receipt as string;
    expect(firstReceipt).toBe(join(s.staging, 'sys-honest.jsonl.intake.receipt.json'));

    const truncFile = join(s.staging, 'sys-truncated.jsonl');
    expect((await sign(s, truncFile, s.truncated)).code).toBe(0);
    tsa.at('2026-11-11T08:00:00Z');
    const second = await intake(s, `${truncFile}.intake.json`);
    expect(second.code, second.stderr).toBe(0);

    // The honest system's own commitments, then a newer submissions file that supersedes its first.
    const commitments = join(s.staging, 'honest-commitments.jsonl');
    writeFileSync(
      commitments,
      readFileSync(join(s.root, 'inputs/commitments.jsonl'), 'utf8')
        .split('\n')
        .filter((l) => l.includes('job-sys-honest-'))
        .join('\n') + '\n',
    );
    expect((await sign(s, commitments, s.honest, 'commitments')).code).toBe(0);
    const third = await intake(s, `${commitments}.intake.json`);
    expect(third.code, third.stderr).toBe(0);
    expect(third.json).toMatchObject({ seq: 2, stored: 'inputs/commitments/sys-honest.jsonl', lines_rejected: 0 });

    const newer = join(s.staging, 'honest-v2.jsonl');
    writeFileSync(newer, readFileSync(honestFile, 'utf8').split('\n').slice(0, 30).join('\n') + '\n');
    expect((await sign(s, newer, s.honest, 'submissions', ['--supersedes', request])).code).toBe(0);
    expect(JSON.parse(readFileSync(`${newer}.intake.json`, 'utf8'))).toMatchObject({
      version: 2,
      supersedes: requestDigestByHand(request),
    });
    const fourth = await intake(s, `${newer}.intake.json`);
    expect(fourth.code, fourth.stderr).toBe(0);
    expect(fourth.json.seq).toBe(3);
    expect(readFileSync(join(s.root, 'inputs/intake.jsonl'), 'utf8').trimEnd().split('\n')).toHaveLength(4);

    tsa.at(AFTER_CLOSE);
    const sealed = await sealWith(tsa, s);
    expect(sealed.code, sealed.stderr).toBe(0);
    const seal = JSON.parse(readFileSync(join(s.root, 'inputs/seal.json'), 'utf8'));
    expect(seal.log.entries).toBe(4);
    expect(seal.files.map((f: { path: string }) => f.path)).toEqual([
      'inputs/commitments.jsonl',
      'inputs/commitments/sys-honest.jsonl',
      'inputs/submissions/sys-honest.jsonl',
      'inputs/submissions/sys-truncated.jsonl',
    ]);
    expect(existsSync(join(s.root, 'inputs/anchors/local.tsr'))).toBe(true);

    const superseded = await verifyReceipt(s, firstReceipt);
    expect(superseded.code, superseded.stdout).toBe(0);
    expect(superseded.json.reason_codes).toEqual(['INTAKE_RECEIPT_SUPERSEDED']);
    const current = await verifyReceipt(s, fourth.json.receipt);
    expect([current.code, current.json.reason_codes, current.json.sealed]).toEqual([0, [], true]);

    expect((await runCli(['reveal-check', '--root', s.root])).code).toBe(0);
    const ingested = await runCli(['ingest', '--root', s.root, '--json']);
    expect(ingested.code, ingested.stderr).toBe(0);
    expect(ingested.json.totals.lines_read).toBe(70);
    // verify reads the system's own commitments (received through intake) beside the operator's.
    const operatorLines = readFileSync(join(s.root, 'inputs/commitments.jsonl'), 'utf8').trimEnd().split('\n').length;
    const ownLines = readFileSync(join(s.root, 'inputs/commitments/sys-honest.jsonl'), 'utf8').trimEnd().split('\n').length;
    const verified = await runCli(['verify', '--root', s.root, '--json']);
    expect(verified.code, verified.stderr).toBe(0);
    expect(verified.json.commitments.lines).toBe(operatorLines + ownLines);

    // After the seal: a sealed file changed, a file added, a file removed.
    const stored = join(s.root, 'inputs/submissions/sys-truncated.jsonl');
    const original = readFileSync(stored);
    appendFileSync(stored, readFileSync(stored, 'utf8').split('\n')[0] + '\n');
    const changed = await runCli(['ingest', '--root', s.root, '--json']);
    expect([changed.code, changed.json?.code ?? JSON.parse(changed.stdout || changed.stderr).code]).toEqual([3, 'INTAKE_DRIFT']);
    expect(changed.stdout + changed.stderr).toContain('inputs/submissions/sys-truncated.jsonl');
    writeFileSync(stored, original);
    expect((await runCli(['ingest', '--root', s.root])).code).toBe(0);

    writeFileSync(join(s.root, 'inputs/submissions/late.jsonl'), readFileSync(stored));
    const added = await runCli(['ingest', '--root', s.root]);
    expect(added.code).toBe(3);
    expect(added.stdout + added.stderr).toMatch(/INTAKE_DRIFT[\s\S]*inputs\/submissions\/late\.jsonl/);
    unlinkSync(join(s.root, 'inputs/submissions/late.jsonl'));

    rmSync(join(s.root, 'inputs/commitments/sys-honest.jsonl'));
    const removed = await runCli(['ingest', '--root', s.root]);
    expect(removed.code).toBe(3);
    expect(removed.stdout + removed.stderr).toMatch(/INTAKE_DRIFT[\s\S]*inputs\/commitments\/sys-honest\.jsonl/);
  }, 120_000);
});
