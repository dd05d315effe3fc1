// The operator picks which of a participant's files counts (issue 33, item 2), played from the CLI
// on a sealed-intake study: sys-honest sends v1 (its first 45 lines), then v2 (all 60). The
// operator — who holds every file of the study, the operator key, the participants' signed
// requests it received and the committed TEST-ONLY TSA key (it may date entries as it likes) —
// (a) takes v1's own signed request in again after v2, so that v1 counts; (b) never takes v2 in.
// What it cannot do: sign as a participant, or take back what the participants keep (receipts,
// their requests and the tokens their own TSA gave them), copied here out of its reach.
// (c) A participant, for its part, must not get a study declared invalid with a request that
// proves nothing: forged, undated, or dated after closes_at.
import { appendFileSync, copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AuditReport } from '../../pipeline/audit/rails.ts';
import { entryDigest, requestDigest, type IntakeEntry, type IntakeRequest } from '../../pipeline/evidence/intake/records.ts';
import { requestTimestamp } from '../../pipeline/net/tsa-client.ts';
import { auditorFlags, AUDITOR_OPERATOR_KEY } from '../support/auditor.ts';
import { runCli, TEST_OPERATOR_ARGS } from '../support/cli.ts';
import {
  AFTER_CLOSE,
  DURING_WINDOW,
  intakeFixture,
  intakeWith,
  sealWith,
  signAs,
  snapshot,
  type IntakeStudy,
} from '../support/intake-study.ts';

const fixture = intakeFixture();
type Result = { code: number; stdout: string; stderr: string; json?: any };
const ok = (r: Result) => expect(r.code, r.stdout + r.stderr).toBe(0);

interface TwoVersions {
  s: IntakeStudy;
  /** What sys-honest keeps, out of the operator's reach. */
  kept: string;
  v1: { file: string; request: string };
  v2: { file: string; request: string };
  receipts: string[];
}

/**
 * sys-honest signs v1 (45 lines) and v2 (60 lines, superseding v1; `v2Extra`: e.g. its own TSA);
 * sys-truncated signs its file; the operator takes in v1, sys-truncated's, then v2 unless `withholdV2`.
 */
async function twoVersions(options: { withholdV2?: boolean; v2Extra?: string[] } = {}): Promise<TwoVersions> {
  const s = fixture.built.copy();
  const tsa = fixture.tsa;
  const kept = mkdtempSync(join(tmpdir(), 'prereg-kept-'));
  tsa.at(DURING_WINDOW);
  const full = readFileSync(join(s.staging, 'sys-honest.jsonl'), 'utf8');
  const v1 = join(s.staging, 'honest-v1.jsonl');
  const v2 = join(s.staging, 'honest-v2.jsonl');
  writeFileSync(v1, `${full.split('\n').slice(0, 45).join('\n')}\n`);
  writeFileSync(v2, full);
  const receipts: string[] = [];
  const take = async (request: string) => {
    const r = await intakeWith(tsa, s, request);
    ok(r);
    const receipt = join(kept, `${receipts.length}.receipt.json`);
    copyFileSync(r.json.receipt as string, receipt);
    receipts.push(receipt);
  };
  ok(await signAs(s, v1, s.honest));
  await take(`${v1}.intake.json`);
  const truncated = join(s.staging, 'sys-truncated.jsonl');
  ok(await signAs(s, truncated, s.truncated));
  await take(`${truncated}.intake.json`);
  ok(await signAs(s, v2, s.honest, 'submissions', ['--supersedes', `${v1}.intake.json`, ...(options.v2Extra ?? [])]));
  if (!options.withholdV2) await take(`${v2}.intake.json`);
  return { s, kept, v1: { file: v1, request: `${v1}.intake.json` }, v2: { file: v2, request: `${v2}.intake.json` }, receipts };
}

async function runAndAudit(root: string, extra: string[]): Promise<{ code: number; report: AuditReport }> {
  const r = await runCli(['run', '--root', root, '--outputs', join(root, 'outputs'), ...TEST_OPERATOR_ARGS, '--json']);
  expect(r.code, r.stdout + r.stderr).toBe(0);
  // The auditor's own roots and issuer keys, no --expect-freeze: the participants' material alone.
  const a = await runCli(['audit', r.json.dir as string, '--root', root, ...auditorFlags().slice(0, 4), ...extra, '--json']);
  return { code: a.code, report: a.json as AuditReport };
}

const intakeRailOf = (report: AuditReport) => report.rails.find((x) => x.name === 'intake')!;

describe('(a) the operator replays an older signed request', () => {
  it('taking v1 in again after v2 is refused at intake (INTAKE_REQUEST_STALE), writing nothing', async () => {
    const { s, v1, v2 } = await twoVersions();
    const before = snapshot(s.root);
    const replay = await intakeWith(fixture.tsa, s, v1.request);
    expect([replay.code, replay.json?.code], replay.stdout + replay.stderr).toEqual([1, 'INTAKE_REQUEST_STALE']);
    expect(snapshot(s.root)).toEqual(before);
    // Nor v2 a second time: a request follows only the one before it.
    const again = await intakeWith(fixture.tsa, s, v2.request);
    expect([again.code, again.json?.code]).toEqual([1, 'INTAKE_REQUEST_STALE']);
    // A request with no version (the old format) is refused with a reason that says to re-sign.
    const old = JSON.parse(readFileSync(v1.request, 'utf8')) as Record<string, unknown>;
    const oldFile = join(s.staging, 'old.intake.json');
    writeFileSync(oldFile, JSON.stringify({ ...old, format: 'prereg.intake-request/1', version: undefined, supersedes: undefined }));
    const refused = await intakeWith(fixture.tsa, s, oldFile);
    expect([refused.code, refused.json?.code]).toEqual([3, 'INTAKE_REQUEST_INVALID']);
    expect(refused.json?.message).toContain('signs it again');
    expect(snapshot(s.root)).toEqual(before);
  }, 240_000);

  it("a log doctored to end with v1 again (chained, dated, sealed) fails the audit's intake rail with the participants' receipts alone", async () => {
    const { s, v1, receipts } = await twoVersions();
    const logPath = join(s.root, 'inputs/intake.jsonl');
    const entries = readFileSync(logPath, 'utf8')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as IntakeEntry);
    const request = JSON.parse(readFileSync(v1.request, 'utf8')) as IntakeRequest;
    // The operator writes the entry itself: seq and prev chained, a token from the TSA it controls.
    const unsigned = { seq: entries.length, prev: entryDigest(entries[entries.length - 1]!), request, lines_read: 45, lines_rejected: 0 };
    fixture.tsa.at(DURING_WINDOW);
    const token = await requestTimestamp(fixture.tsa.url, Buffer.from(entryDigest(unsigned), 'hex'), { timeoutMs: 10_000, retries: 0 });
    appendFileSync(logPath, `${JSON.stringify({ ...unsigned, token: Buffer.from(token).toString('base64') })}\n`);
    copyFileSync(v1.file, join(s.root, 'inputs/submissions/sys-honest.jsonl'));
    fixture.tsa.at(AFTER_CLOSE);
    ok(await sealWith(fixture.tsa, s));

    const a = await runAndAudit(
      s.root,
      receipts.flatMap((r) => ['--receipt', r]),
    );
    const intake = intakeRailOf(a.report);
    expect([a.code, a.report.verdict, intake.ok]).toEqual([1, 'invalid', false]);
    expect(intake.reason_codes).toEqual(['INTAKE_REQUEST_STALE']);
    expect(intake.first_difference).toMatchObject({ file: 'inputs/intake.jsonl', row: 4 });
  }, 360_000);
});

describe('(b) the operator withholds a newer request; (c) requests that prove nothing', () => {
  it("a v2 dated by the participant's TSA before closes_at, never taken in: INVALID (INTAKE_REQUEST_WITHHELD); forged, undated or late requests fail nothing", async () => {
    const { s, kept, v2, receipts } = await twoVersions({ withholdV2: true, v2Extra: fixture.tsa.args });
    // sys-honest keeps v2 and the token its TSA gave it beside it.
    const dated = join(kept, 'v2.intake.json');
    copyFileSync(v2.request, dated);
    copyFileSync(v2.request.replace(/\.json$/, '.tsr'), dated.replace(/\.json$/, '.tsr'));
    fixture.tsa.at(AFTER_CLOSE);
    ok(await sealWith(fixture.tsa, s));

    // (c) A participant's own inventions, each beside a genuine token of the TSA over its digest.
    const genuine = JSON.parse(readFileSync(dated, 'utf8')) as IntakeRequest;
    const forged = join(kept, 'forged.intake.json');
    const forgedRequest = { ...genuine, version: 3, supersedes: requestDigest(genuine) }; // signature no longer verifies
    writeFileSync(forged, JSON.stringify(forgedRequest));
    fixture.tsa.at(DURING_WINDOW);
    writeFileSync(
      forged.replace(/\.json$/, '.tsr'),
      await requestTimestamp(fixture.tsa.url, Buffer.from(requestDigest(forgedRequest), 'hex'), { timeoutMs: 10_000, retries: 0 }),
    );
    const undated = join(kept, 'undated.intake.json');
    copyFileSync(dated, undated);
    const late = join(kept, 'late.intake.json');
    copyFileSync(dated, late);
    fixture.tsa.at(AFTER_CLOSE);
    writeFileSync(
      late.replace(/\.json$/, '.tsr'),
      await requestTimestamp(fixture.tsa.url, Buffer.from(requestDigest(genuine), 'hex'), { timeoutMs: 10_000, retries: 0 }),
    );

    const r = await runCli(['run', '--root', s.root, '--outputs', join(s.root, 'outputs'), ...TEST_OPERATOR_ARGS, '--json']);
    ok(r);
    const audit = (extra: string[]) =>
      runCli([
        'audit',
        r.json.dir as string,
        '--root',
        s.root,
        ...auditorFlags().slice(0, 4),
        '--operator-key',
        AUDITOR_OPERATOR_KEY,
        ...receipts.flatMap((x) => ['--receipt', x]),
        ...extra,
        '--json',
      ]);

    const nothing = await audit([forged, undated, late].flatMap((f) => ['--request', f]));
    const quiet = intakeRailOf(nothing.json as AuditReport);
    expect([nothing.code, quiet.ok], JSON.stringify(quiet)).toEqual([0, true]);
    for (const [file, code] of [
      [forged, 'INTAKE_SIGNATURE_INVALID'],
      [undated, 'INTAKE_TOKEN_INVALID'],
      [late, 'INTAKE_LATE'],
    ]) {
      expect(quiet.detail).toContain(`${file}: ${code}`);
    }
    expect(quiet.detail).toContain('proves nothing against the operator');

    const withheld = await audit(['--request', dated]);
    const report = withheld.json as AuditReport;
    const intake = intakeRailOf(report);
    expect([withheld.code, report.verdict, intake.ok]).toEqual([1, 'invalid', false]);
    expect(intake.reason_codes).toEqual(['INTAKE_REQUEST_WITHHELD']);
    expect(intake.first_difference!.file).toBe(dated);
    rmSync(kept, { recursive: true, force: true });
  }, 360_000);
});
