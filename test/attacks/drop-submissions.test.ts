// The operator's attack on what it received (SPEC §12.2, issue 20), replayed from the CLI on a
// sealed-intake study: after the deadline it drops one system's lines and another system's
// commitments. What the operator is allowed here: every file of the study (it runs intake and
// the seal and holds the operator key), the participants' signed requests it received, and the
// study's committed TEST-ONLY TSA key (it may re-intake and re-seal with backdated tokens). What
// it cannot do: sign as a participant, or take back the receipts it gave them — the auditor
// obtains those from the participants, and the attack never touches the copies made here.
import { copyFileSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AuditReport } from '../../pipeline/audit/rails.ts';
import { AUDITOR_OPERATOR_KEY, auditorFlags, publishedFreezeDigest } from '../support/auditor.ts';
import { runCli, TEST_OPERATOR_ARGS } from '../support/cli.ts';
import { testPkiPaths } from '../support/tsa/pkijs-tsa.ts';
import { AFTER_CLOSE, DURING_WINDOW, intakeFixture, intakeWith, sealWith, signAs, type IntakeStudy } from '../support/intake-study.ts';

const fixture = intakeFixture();

interface Received {
  s: IntakeStudy;
  /** The participants' receipts, as they keep them (copied out of the operator's reach). */
  receipts: { honest: string; truncated: string; truncatedCommitments: string };
  requests: { honest: string; truncated: string };
}

const ok = (r: { code: number; stdout: string; stderr: string }) => expect(r.code, r.stdout + r.stderr).toBe(0);

/** Both registered systems submit through intake during the window; sys-truncated sends its own commitments too. */
async function receive(): Promise<Received> {
  const s = fixture.built.copy();
  const tsa = fixture.tsa;
  const kept = mkdtempSync(join(tmpdir(), 'prereg-receipts-'));
  tsa.at(DURING_WINDOW);
  const honest = join(s.staging, 'sys-honest.jsonl');
  const truncated = join(s.staging, 'sys-truncated.jsonl');
  const commitments = join(s.staging, 'truncated-commitments.jsonl');
  writeFileSync(
    commitments,
    readFileSync(join(s.root, 'inputs/commitments.jsonl'), 'utf8')
      .split('\n')
      .filter((l) => l.includes('job-sys-truncated-'))
      .join('\n') + '\n',
  );
  const receipts: Record<string, string> = {};
  for (const [name, file, agent, kind] of [
    ['honest', honest, s.honest, 'submissions'],
    ['truncated', truncated, s.truncated, 'submissions'],
    ['truncatedCommitments', commitments, s.truncated, 'commitments'],
  ] as const) {
    ok(await signAs(s, file, agent, kind));
    const taken = await intakeWith(tsa, s, `${file}.intake.json`);
    ok(taken);
    receipts[name] = join(kept, `${name}.receipt.json`);
    copyFileSync(taken.json.receipt as string, receipts[name]!);
  }
  tsa.at(AFTER_CLOSE);
  ok(await sealWith(tsa, s));
  return {
    s,
    receipts: receipts as Received['receipts'],
    requests: { honest: `${honest}.intake.json`, truncated: `${truncated}.intake.json` },
  };
}

async function run(root: string): Promise<{ code: number; dir: string; json: any }> {
  const r = await runCli(['run', '--root', root, '--outputs', join(root, 'outputs'), ...TEST_OPERATOR_ARGS, '--json']);
  return { code: r.code, dir: r.json?.dir, json: r.json };
}

function provenPositives(dir: string, system: string): string {
  const results = JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8')) as { scores: Array<Record<string, unknown>> };
  const row = results.scores.find((x) => x.system_id === system && x.metric === 'positives_citing_expected');
  return row ? `${String(row.proven)}/${String(row.n_proven)}` : 'absent';
}

/** The report's line counting the commitments files (Freeze and witnesses). */
function commitmentsLine(dir: string): string | undefined {
  return readFileSync(join(dir, 'report.md'), 'utf8')
    .split('\n')
    .find((l) => l.startsWith('| commitments files |'));
}

async function audit(dir: string, root: string, receipts: readonly string[]): Promise<{ code: number; report: AuditReport }> {
  const r = await runCli([
    'audit',
    dir,
    '--root',
    root,
    ...auditorFlags(publishedFreezeDigest(root)),
    ...receipts.flatMap((x) => ['--receipt', x]),
    '--json',
  ]);
  return { code: r.code, report: r.json as AuditReport };
}

describe('dropping what was received', () => {
  it("the genuine sealed study audits VALID with the participants' receipts", async () => {
    const { s, receipts } = await receive();
    const r = await run(s.root);
    expect(r.code, JSON.stringify(r.json)).toBe(0);
    const a = await audit(r.dir, s.root, Object.values(receipts));
    expect([a.code, a.report.verdict], JSON.stringify(a.report.rails.filter((x) => !x.ok))).toEqual([0, 'valid']);
    expect(a.report.weakened_modes).toEqual(['operator-collected commitments']);
    // The report counts both sources of commitments: the operator's file and sys-truncated's own.
    expect(commitmentsLine(r.dir)).toBe(
      '| commitments files | 2: the operator-collected inputs/commitments.jsonl; 1 received through intake |',
    );
    expect(readFileSync(join(r.dir, 'report.md'), 'utf8')).toMatch(
      /\| inputs\/commitments\/sys-truncated\.jsonl \(received through intake\) \| [0-9a-f]{64} \|/,
    );
    // The receipts pin the freeze, checked under the operator's key as the auditor obtained it
    // (--operator-key): the participants signed the digest they submitted under, the operator signed the receipts.
    const receiptFlags = Object.values(receipts).flatMap((x) => ['--receipt', x]);
    const pinned = await runCli([
      'audit',
      r.dir,
      '--root',
      s.root,
      ...auditorFlags().slice(0, 4),
      '--operator-key',
      AUDITOR_OPERATOR_KEY,
      ...receiptFlags,
      '--json',
    ]);
    expect([pinned.code, pinned.json.rails.find((x: { name: string }) => x.name === 'trust').ok]).toEqual([0, true]);
    // Under the study's own operator key only, they pin nothing: a re-freeze could have replaced that key.
    const unconfirmed = await runCli(['audit', r.dir, '--root', s.root, ...auditorFlags().slice(0, 4), ...receiptFlags, '--json']);
    const trust = (unconfirmed.json as AuditReport).rails.find((x) => x.name === 'trust')!;
    expect([unconfirmed.code, trust.ok, trust.reason_codes]).toEqual([1, false, ['FREEZE_DIGEST_UNPINNED']]);
    expect(JSON.stringify(trust.differences)).toContain('--operator-key');
  }, 240_000);

  it("cutting 15 lines of a sealed file: run refuses (INTAKE_DRIFT), and the participant's signed request cannot be reused for the cut file", async () => {
    const { s, requests } = await receive();
    const file = join(s.root, 'inputs/submissions/sys-honest.jsonl');
    const lines = readFileSync(file, 'utf8').split('\n');
    writeFileSync(file, lines.slice(15).join('\n'));
    const r = await run(s.root);
    expect([r.code, r.json.code]).toEqual([3, 'INTAKE_DRIFT']);
    // Re-taking the cut file in under sys-honest's signed request: the bytes are not the ones signed.
    for (const f of ['inputs/intake.jsonl', 'inputs/seal.json']) rmSync(join(s.root, f));
    rmSync(join(s.root, 'inputs/anchors'), { recursive: true });
    rmSync(join(s.root, 'inputs/submissions'), { recursive: true });
    rmSync(join(s.root, 'inputs/commitments'), { recursive: true });
    const staged = JSON.parse(readFileSync(requests.honest, 'utf8')) as { file: string };
    writeFileSync(join(s.staging, staged.file), lines.slice(15).join('\n'));
    fixture.tsa.at(DURING_WINDOW);
    const again = await intakeWith(fixture.tsa, s, requests.honest);
    expect([again.code, again.json.code]).toEqual([1, 'INTAKE_FILE_MISMATCH']);
  }, 240_000);

  it("dropping a system's commitments and re-sealing: the score moves, the log and seal agree, and its receipt proves the drop (INVALID)", async () => {
    const genuine = await receive();
    const before = await run(genuine.s.root);
    expect(before.code).toBe(0);

    const { s, receipts, requests } = await receive();
    // The operator rebuilds the intake without sys-truncated's commitments, from the requests it holds.
    const operatorCommitments = join(s.root, 'inputs/commitments.jsonl');
    writeFileSync(
      operatorCommitments,
      readFileSync(operatorCommitments, 'utf8')
        .split('\n')
        .filter((l) => !l.includes('job-sys-truncated-'))
        .join('\n'),
    );
    for (const f of ['inputs/intake.jsonl', 'inputs/seal.json']) rmSync(join(s.root, f));
    for (const d of ['inputs/anchors', 'inputs/submissions', 'inputs/commitments']) rmSync(join(s.root, d), { recursive: true });
    fixture.tsa.at(DURING_WINDOW);
    ok(await intakeWith(fixture.tsa, s, requests.honest));
    ok(await intakeWith(fixture.tsa, s, requests.truncated));
    fixture.tsa.at(AFTER_CLOSE);
    ok(await sealWith(fixture.tsa, s));
    expect(readdirSync(join(s.root, 'inputs/submissions')).sort()).toEqual(['sys-honest.jsonl', 'sys-truncated.jsonl']);

    const after = await run(s.root);
    expect(after.code, JSON.stringify(after.json)).toBe(0);
    expect(provenPositives(after.dir, 'sys-truncated')).not.toBe(provenPositives(before.dir, 'sys-truncated'));
    expect(provenPositives(after.dir, 'sys-honest')).toBe(provenPositives(before.dir, 'sys-honest'));
    // The report shows the drop to any reader: no commitments file received through intake any more.
    expect(commitmentsLine(before.dir)).toContain('1 received through intake');
    expect(commitmentsLine(after.dir)).toBe(
      '| commitments files | 1: the operator-collected inputs/commitments.jsonl; none received through intake |',
    );

    // Without the receipts nothing shows the drop: the log and the seal agree with each other.
    const blind = await audit(after.dir, s.root, []);
    expect(blind.report.rails.find((x) => x.name === 'intake')!.ok).toBe(true);
    // With them: sys-truncated's commitments receipt is signed by the operator and absent from the seal.
    const a = await audit(after.dir, s.root, Object.values(receipts));
    expect([a.code, a.report.verdict]).toEqual([1, 'invalid']);
    const intake = a.report.rails.find((x) => x.name === 'intake')!;
    expect([intake.ok, intake.reason_codes]).toEqual([false, ['INTAKE_RECEIPT_NOT_SEALED']]);
    expect(intake.first_difference!.file).toBe(receipts.truncatedCommitments);
  }, 360_000);
});

describe('what the intake rail and the trust rail take from whom', () => {
  it("a rival's forged receipt (bad signature) proves nothing and invalidates nothing", async () => {
    const { s, receipts } = await receive();
    const r = await run(s.root);
    const forged = JSON.parse(readFileSync(receipts.honest, 'utf8')) as { entry: { seq: number } };
    forged.entry.seq = 7; // an entry the operator never acknowledged
    const file = join(s.staging, 'forged.receipt.json');
    writeFileSync(file, JSON.stringify(forged));
    const a = await audit(r.dir, s.root, [file]);
    const intake = a.report.rails.find((x) => x.name === 'intake')!;
    expect([a.code, intake.ok]).toEqual([0, true]);
    expect(intake.detail).toContain('proves nothing against the operator');
  }, 240_000);

  it("intake tokens and seal anchors under no root of the auditor's: the trust rail names them (SEAL_SELF_TRUSTED)", async () => {
    const { s, receipts } = await receive();
    const r = await run(s.root);
    const flags = auditorFlags(publishedFreezeDigest(s.root));
    // Another root than the study's own (the TSA that dated the intake and the seal).
    flags[1] = testPkiPaths('unpinned-root').cert;
    const got = await runCli([
      'audit',
      r.dir,
      '--root',
      s.root,
      ...flags,
      ...Object.values(receipts).flatMap((x) => ['--receipt', x]),
      '--json',
    ]);
    const trust = (got.json as AuditReport).rails.find((x) => x.name === 'trust')!;
    expect([got.code, trust.ok]).toEqual([1, false]);
    expect(trust.reason_codes).toContain('SEAL_SELF_TRUSTED');
    expect(JSON.stringify(trust.differences)).toContain("the intake entry's token chains only to the study's own TSA root");
  }, 240_000);
});
