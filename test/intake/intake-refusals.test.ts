// Every refusal of `prereg intake` and `prereg seal` (SPEC §12.2), each beside the passing case it
// departs from, and each showing that nothing was written (the study's files byte for byte).
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { signCanonical } from '../../pipeline/evidence/intake/ed25519.ts';
import { GENESIS_PREV, INTAKE_REQUEST_FORMAT, requestPayload, type IntakeRequest } from '../../pipeline/evidence/intake/records.ts';
import { sha256Hex } from '../../pipeline/formats/hash.ts';
import { runCli } from '../support/cli.ts';
import { ANOTHER_REQUEST, startTsaAnsweringAnotherRequest } from '../support/tsa/http-tsa.ts';
import type { pkijs } from '../../pipeline/vendor/pki.ts';
import {
  AFTER_CLOSE,
  CLOSES_AT,
  DURING_WINDOW,
  intakeFixture,
  intakeWith,
  sealWith,
  signAs,
  snapshot,
  TSA_ROOT_PEM,
  type Agent,
  type IntakeStudy,
} from '../support/intake-study.ts';

const fixture = intakeFixture();
const tsa = { at: (t: string) => fixture.tsa.at(t) };
const built = { copy: () => fixture.built.copy() };

function readFrozenDigest(s: IntakeStudy): string {
  return JSON.parse(readFileSync(`${s.staging}/sys-honest.jsonl.intake.json`, 'utf8')).freeze_digest as string;
}

/** A request as `submission sign` writes it, signed by `signer`, with `edit` applied before signing. */
function forge(file: string, signer: Agent, systemId: string, freezeDigest: string, edit: Partial<IntakeRequest> = {}): string {
  const data = readFileSync(file);
  const unsigned = {
    study_id: 'example-procurement-2026',
    system_id: systemId,
    freeze_digest: freezeDigest,
    kind: 'submissions' as const,
    version: 1,
    supersedes: GENESIS_PREV,
    sha256: sha256Hex(data),
    bytes: data.length,
    ...edit,
  };
  const request: IntakeRequest = {
    format: INTAKE_REQUEST_FORMAT,
    ...unsigned,
    file: file.split('/').pop()!,
    public_key: signer.public_key,
    signature: signCanonical(signer.key, requestPayload(unsigned)),
  };
  const out = `${file}.forged.json`;
  writeFileSync(out, JSON.stringify(request));
  return out;
}
async function sign(s: IntakeStudy, file: string, agent: Agent) {
  const r = await signAs(s, file, agent);
  expect(r.code, r.stderr).toBe(0);
  return `${file}.intake.json`;
}
const intake = (s: IntakeStudy, request: string) => intakeWith(fixture.tsa, s, request);
const seal = (s: IntakeStudy) => sealWith(fixture.tsa, s);
/** The code of a refused command (--json prints the error document). */
const codeOf = (r: { stdout: string; stderr: string }): string => JSON.parse((r.stdout || r.stderr).trim().split('\n').pop()!).code;

async function refusedWritingNothing(
  s: IntakeStudy,
  run: () => Promise<{ code: number; stdout: string; stderr: string }>,
): Promise<{ code: number; reason: string; text: string }> {
  const before = snapshot(join(s.root, 'inputs'));
  const r = await run();
  expect(snapshot(join(s.root, 'inputs'))).toEqual(before);
  return { code: r.code, reason: r.code === 0 ? 'OK' : codeOf(r), text: r.stdout + r.stderr };
}

describe('intake refuses, writing nothing', () => {
  it("a request signed with another system's key (INTAKE_SIGNATURE_INVALID); its own key passes", async () => {
    const s = built.copy();
    tsa.at('2026-11-10T12:00:00Z');
    const file = join(s.staging, 'sys-honest.jsonl');
    const good = await sign(s, file, s.honest);
    const digest = readFrozenDigest(s);
    const stolen = forge(file, s.truncated, 'sys-honest', digest);
    const r = await refusedWritingNothing(s, () => intake(s, stolen));
    expect([r.code, r.reason]).toEqual([1, 'INTAKE_SIGNATURE_INVALID']);
    expect(r.text).toMatch(/sys-truncated\W{0,3}'s key: a system submits only its own files/);
    // A flipped signature by the right key, and submission sign refusing a key not registered for the system.
    const flipped = JSON.parse(readFileSync(good, 'utf8'));
    flipped.signature = `${flipped.signature.slice(0, -2)}${flipped.signature.endsWith('AA') ? 'BA' : 'AA'}`;
    writeFileSync(`${file}.flipped.json`, JSON.stringify(flipped));
    expect((await refusedWritingNothing(s, () => intake(s, `${file}.flipped.json`))).reason).toBe('INTAKE_SIGNATURE_INVALID');
    const wrongKey = await runCli([
      'submission',
      'sign',
      file,
      '--key',
      s.truncated.keyFile,
      '--system',
      'sys-honest',
      '--root',
      s.root,
      '--json',
    ]);
    expect([wrongKey.code, codeOf(wrongKey)]).toEqual([1, 'INTAKE_SIGNATURE_INVALID']);
    expect((await intake(s, good)).code).toBe(0);
  }, 60_000);

  it('a request naming another freeze (INTAKE_FREEZE_MISMATCH)', async () => {
    const s = built.copy();
    const file = join(s.staging, 'sys-honest.jsonl');
    await sign(s, file, s.honest);
    const other = forge(file, s.honest, 'sys-honest', 'ab'.repeat(32));
    const r = await refusedWritingNothing(s, () => intake(s, other));
    expect([r.code, r.reason]).toEqual([1, 'INTAKE_FREEZE_MISMATCH']);
    expect((await intake(s, forge(file, s.honest, 'sys-honest', readFrozenDigest(s)))).code).toBe(0);
  }, 60_000);

  it('a file whose bytes are not the signed ones (INTAKE_FILE_MISMATCH)', async () => {
    const s = built.copy();
    const file = join(s.staging, 'sys-honest.jsonl');
    const request = await sign(s, file, s.honest);
    writeFileSync(file, `${readFileSync(file, 'utf8')}\n`);
    const r = await refusedWritingNothing(s, () => intake(s, request));
    expect([r.code, r.reason]).toEqual([1, 'INTAKE_FILE_MISMATCH']);
  }, 60_000);

  it('a line for another system refuses the whole intake (SUBMISSION_SYSTEM_NOT_OWNER); rejected lines are counted, not refused', async () => {
    const s = built.copy();
    tsa.at('2026-11-10T12:00:00Z');
    const honest = readFileSync(join(s.staging, 'sys-honest.jsonl'), 'utf8').split('\n').slice(0, 3);
    const foreign = readFileSync(join(s.staging, 'sys-truncated.jsonl'), 'utf8').split('\n')[0]!;
    const mixed = join(s.staging, 'mixed.jsonl');
    writeFileSync(mixed, [...honest, foreign, ''].join('\n'));
    const r = await refusedWritingNothing(s, async () => intake(s, await sign(s, mixed, s.honest)));
    expect([r.code, r.reason]).toEqual([1, 'SUBMISSION_SYSTEM_NOT_OWNER']);
    expect(r.text).toContain('line 4 (\\"sys-truncated\\")');

    const withRejects = join(s.staging, 'with-rejects.jsonl');
    writeFileSync(withRejects, [...honest, 'not json', '{"format":"prereg.submission/1"}', ''].join('\n'));
    const accepted = await intake(s, await sign(s, withRejects, s.honest));
    expect(accepted.code, accepted.stdout).toBe(0);
    expect(accepted.json).toMatchObject({ lines_read: 5, lines_rejected: 2 });
    expect(readFileSync(join(s.root, 'inputs/submissions/sys-honest.jsonl'))).toEqual(readFileSync(withRejects));
  }, 60_000);

  it('an entry dated at closes_at (INTAKE_LATE), one second before it passes', async () => {
    const s = built.copy();
    const request = await sign(s, join(s.staging, 'sys-honest.jsonl'), s.honest);
    tsa.at(CLOSES_AT);
    const r = await refusedWritingNothing(s, () => intake(s, request));
    expect([r.code, r.reason]).toEqual([1, 'INTAKE_LATE']);
    tsa.at('2026-11-15T23:59:59Z');
    expect((await intake(s, request)).code).toBe(0);
  }, 60_000);

  it('an entry dated before opens_at (INTAKE_EARLY), writing nothing; at opens_at it passes', async () => {
    const s = built.copy();
    const request = await sign(s, join(s.staging, 'sys-honest.jsonl'), s.honest);
    tsa.at('2026-11-01T23:59:59Z');
    const r = await refusedWritingNothing(s, () => intake(s, request));
    expect([r.code, r.reason]).toEqual([1, 'INTAKE_EARLY']);
    tsa.at('2026-11-02T00:00:00Z');
    expect((await intake(s, request)).code).toBe(0);
  }, 60_000);

  it('a held study lock (STUDY_LOCKED, exit 4); the lock is released after a command', async () => {
    const s = built.copy();
    tsa.at('2026-11-10T12:00:00Z');
    const request = await sign(s, join(s.staging, 'sys-honest.jsonl'), s.honest);
    mkdirSync(join(s.root, 'work'), { recursive: true });
    writeFileSync(join(s.root, 'work/prereg.lock'), '{"pid":1,"command":"prereg seal"}\n');
    const r = await refusedWritingNothing(s, () => intake(s, request));
    expect([r.code, r.reason]).toEqual([4, 'STUDY_LOCKED']);
    rmSync(join(s.root, 'work/prereg.lock'));
    expect((await intake(s, request)).code).toBe(0);
    // The lock is released: the next version goes in too (the same request again would be INTAKE_REQUEST_STALE).
    const next = join(s.staging, 'sys-honest.v2.intake.json');
    expect(
      (await signAs(s, join(s.staging, 'sys-honest.jsonl'), s.honest, 'submissions', ['--supersedes', request, '--out', next])).code,
    ).toBe(0);
    expect((await intake(s, next)).code).toBe(0);
  }, 60_000);
});

describe('intake and seal refuse a TSA reply that answers another request (RFC 3161 §2.4.2), writing nothing', () => {
  // The one TSA client: a genuine TEST-ONLY token minted for a changed request (a replayed one).
  const replaying = (edit: (request: pkijs.TimeStampReq) => void, genTime: string) => startTsaAnsweringAnotherRequest(edit, genTime);
  it.each(ANOTHER_REQUEST)(
    '%s → %s',
    async (_what, code, edit) => {
      const s = built.copy();
      const request = await sign(s, join(s.staging, 'sys-honest.jsonl'), s.honest);
      const during = await replaying(edit, DURING_WINDOW);
      const taken = await refusedWritingNothing(s, () =>
        intakeWith({ ...fixture.tsa, args: ['--tsa', `replayer=${during.url}`] }, s, request),
      ).finally(() => during.close());
      expect([taken.code, taken.reason]).toEqual([3, 'TSA_UNAVAILABLE']);
      expect(taken.text).toContain(code);
      // Taken in through the honest TSA, then sealed through the replaying one.
      tsa.at(DURING_WINDOW);
      expect((await intake(s, request)).code).toBe(0);
      const after = await replaying(edit, AFTER_CLOSE);
      const sealed = await refusedWritingNothing(s, () =>
        sealWith({ ...fixture.tsa, args: ['--tsa', `replayer=${after.url}`] }, s),
      ).finally(() => after.close());
      expect([sealed.code, sealed.reason]).toEqual([3, 'TSA_UNAVAILABLE']);
      expect(sealed.text).toContain(code);
    },
    60_000,
  );
});

describe('seal refuses, writing nothing', () => {
  it('a token before closes_at (SEAL_EARLY), after closes_at + seal_within_s (SEAL_LATE); at the bound it seals, and only once', async () => {
    const s = built.copy();
    tsa.at('2026-11-10T12:00:00Z');
    expect((await intake(s, await sign(s, join(s.staging, 'sys-honest.jsonl'), s.honest))).code).toBe(0);
    tsa.at('2026-11-15T23:59:59Z');
    expect(await refusedWritingNothing(s, () => seal(s))).toMatchObject({ code: 1, reason: 'SEAL_EARLY' });
    tsa.at('2026-11-16T01:00:01Z');
    expect(await refusedWritingNothing(s, () => seal(s))).toMatchObject({ code: 1, reason: 'SEAL_LATE' });
    tsa.at('2026-11-16T01:00:00Z');
    expect((await seal(s)).code).toBe(0);
    expect(await refusedWritingNothing(s, () => seal(s))).toMatchObject({ code: 4, reason: 'SEAL_EXISTS' });
    tsa.at('2026-11-10T12:00:00Z');
    expect(await refusedWritingNothing(s, () => intake(s, join(s.staging, 'sys-honest.jsonl.intake.json')))).toMatchObject({
      code: 4,
      reason: 'SEAL_EXISTS',
    });
  }, 60_000);

  it('a governed file that is not a regular file, or never came through intake', async () => {
    const s = built.copy();
    tsa.at('2026-11-10T12:00:00Z');
    expect((await intake(s, await sign(s, join(s.staging, 'sys-honest.jsonl'), s.honest))).code).toBe(0);
    tsa.at(AFTER_CLOSE);
    const commitments = join(s.root, 'inputs/commitments.jsonl');
    const saved = readFileSync(commitments);
    rmSync(commitments);
    execFileSync('mkfifo', [commitments]);
    expect(await refusedWritingNothing(s, () => seal(s))).toMatchObject({ code: 4, reason: 'INPUT_NOT_REGULAR_FILE' });
    rmSync(commitments);
    writeFileSync(commitments, saved);
    writeFileSync(join(s.root, 'inputs/submissions/copycat.jsonl'), readFileSync(join(s.staging, 'copycat.jsonl')));
    const unlogged = await refusedWritingNothing(s, () => seal(s));
    expect(unlogged).toMatchObject({ code: 3, reason: 'INTAKE_DRIFT' });
    expect(unlogged.text).toContain('inputs/submissions/copycat.jsonl was never received through intake');
    rmSync(join(s.root, 'inputs/submissions/copycat.jsonl'));
    expect((await seal(s)).code).toBe(0);
  }, 60_000);
});

describe('receipts', () => {
  async function twoEntries(s: IntakeStudy) {
    tsa.at('2026-11-10T12:00:00Z');
    const a = await intake(s, await sign(s, join(s.staging, 'sys-honest.jsonl'), s.honest));
    const b = await intake(s, await sign(s, join(s.staging, 'sys-truncated.jsonl'), s.truncated));
    expect([a.code, b.code]).toEqual([0, 0]);
    return { first: a.json.receipt as string, second: b.json.receipt as string };
  }
  const check = (s: IntakeStudy, receipt: string) =>
    runCli([
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

  it('an entry dropped before the seal is INTAKE_RECEIPT_NOT_SEALED (exit 1); the kept one is sealed', async () => {
    const s = built.copy();
    const { first, second } = await twoEntries(s);
    // The operator drops sys-truncated's entry and file, then seals.
    const log = join(s.root, 'inputs/intake.jsonl');
    writeFileSync(log, `${readFileSync(log, 'utf8').split('\n')[0]}\n`);
    rmSync(join(s.root, 'inputs/submissions/sys-truncated.jsonl'));
    tsa.at(AFTER_CLOSE);
    expect((await seal(s)).code).toBe(0);
    const dropped = await check(s, second);
    expect([dropped.code, dropped.json.reason_codes, dropped.json.sealed]).toEqual([1, ['INTAKE_RECEIPT_NOT_SEALED'], false]);
    const kept = await check(s, first);
    expect([kept.code, kept.json.reason_codes]).toEqual([0, []]);
  }, 60_000);

  it("a receipt whose signature is not the intake key's (INTAKE_RECEIPT_SIGNATURE_INVALID, exit 1)", async () => {
    const s = built.copy();
    const { first } = await twoEntries(s);
    tsa.at(AFTER_CLOSE);
    expect((await seal(s)).code).toBe(0);
    const receipt = JSON.parse(readFileSync(first, 'utf8'));
    receipt.signature = `${receipt.signature[0] === 'A' ? 'B' : 'A'}${receipt.signature.slice(1)}`;
    writeFileSync(first, JSON.stringify(receipt));
    const r = await check(s, first);
    expect([r.code, r.json.reason_codes]).toEqual([1, ['INTAKE_RECEIPT_SIGNATURE_INVALID']]);
  }, 60_000);
});
