// A participant backdating its commitments (issue 35 point 4): a commitment's published_at is its
// committer's claim; what counts is the date its witness gave it (the intake entry that took a
// system's own commitments in, the seal for the operator-collected file). Who gains by breaking
// the rule: a participant that claims its timeline existed long before the study (2001), or
// before it really published it, so as to look as if it committed before the window or before
// another's work — and any party retrieving a commitment "before" it was published. What the
// participant may do here: write any commitment line and sign and send it through intake; it
// cannot change the TSA's date nor the operator's log. Played through the public CLI.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyExampleStudy, PROJECT_ROOT, runCli } from '../support/cli.ts';
import { AFTER_CLOSE, DURING_WINDOW, intakeFixture, intakeWith, sealWith, signAs, type IntakeStudy } from '../support/intake-study.ts';
import { queryStore } from '../support/store-query.ts';

const ok = (r: { code: number; stdout: string; stderr: string }) => expect(r.code, r.stdout + r.stderr).toBe(0);

describe('prereg verify FILE in a study (window 2026-11-02 … 2026-11-16): the claimed time must be plausible', () => {
  // The conformance kit's real timeline and its commitment's digest and count (test/fixtures/real/aer1).
  const KIT = {
    job_id: 'job-7a1f',
    final_entry_digest: '79b1e2e26842e7a49f7d0c0606e795c08d84d3877bb95988492601b7451074b0',
    entry_count: 5,
  };
  let study: { root: string; cleanup: () => void };
  let scratch: string;
  beforeAll(() => {
    study = copyExampleStudy();
    scratch = mkdtempSync(join(tmpdir(), 'prereg-backdated-'));
    writeFileSync(join(scratch, 'timeline.json'), readFileSync(join(PROJECT_ROOT, 'test/fixtures/real/aer1/timeline-job-7a1f.json')));
  });
  afterAll(() => {
    study.cleanup();
    rmSync(scratch, { recursive: true, force: true });
  });
  const verify = async (root: string, times: { published_at: string; retrieved_at?: string }) => {
    const file = join(scratch, `commitments-${Math.random().toString(16).slice(2)}.jsonl`);
    writeFileSync(file, `${JSON.stringify({ ...KIT, ...times })}\n`);
    const r = await runCli([
      'verify',
      join(scratch, 'timeline.json'),
      '--root',
      root,
      '--trust',
      join(study.root, 'preregistration/trust'),
      '--commitments',
      file,
      '--json',
    ]);
    return { code: r.code, line: r.jsonLines[0]! };
  };

  it('a commitment backdated to 2001 anchors nothing: UNANCHORED, COMMITMENT_TIME_IMPLAUSIBLE (exit 1)', async () => {
    const r = await verify(study.root, { published_at: '2001-01-01T00:00:00Z' });
    expect([r.code, r.line.status, r.line.reason_codes]).toEqual([1, 'UNANCHORED', ['COMMITMENT_TIME_IMPLAUSIBLE']]);
    expect(r.line.checks).toMatchObject({ commitment_timely: 'pass', commitment_time_plausible: 'fail' });
    expect((r.line.problems as string[]).join('\n')).toContain("published_at 2001-01-01T00:00:00Z is before the study's opens_at");
  });

  it('retrieved before it was published: refused (COMMITMENT_TIME_IMPLAUSIBLE)', async () => {
    const r = await verify(study.root, { published_at: '2026-11-10T00:00:00Z', retrieved_at: '2026-11-09T23:59:59Z' });
    expect([r.code, r.line.status, r.line.reason_codes]).toEqual([1, 'UNANCHORED', ['COMMITMENT_TIME_IMPLAUSIBLE']]);
    expect((r.line.problems as string[]).join('\n')).toContain(
      'retrieved_at 2026-11-09T23:59:59Z is before published_at 2026-11-10T00:00:00Z',
    );
  });

  it('published in the window and retrieved after: ANCHORED (exit 0)', async () => {
    const r = await verify(study.root, { published_at: '2026-11-10T00:00:00Z', retrieved_at: '2026-11-10T00:00:00Z' });
    expect([r.code, r.line.status, r.line.reason_codes]).toEqual([0, 'ANCHORED', []]);
    expect(r.line.checks).toMatchObject({ commitment_time_plausible: 'pass' });
  });

  it("outside a study there is no window: the kit's own 2026-10-01 commitment anchors its timeline", async () => {
    const r = await verify(scratch, { published_at: '2026-10-01T18:30:00Z' });
    expect([r.code, r.line.status]).toEqual([0, 'ANCHORED']);
  });
});

describe("through sealed intake: the intake entry's TSA date is the time that counts", () => {
  const fixture = intakeFixture();

  /**
   * sys-truncated sends its own commitments (the example's for its jobs, published_at rewritten)
   * at `takenAt`; the operator collected sys-honest's alone. Sealed after closes_at, then verified.
   */
  async function study(publishedAt: string, takenAt: string): Promise<{ s: IntakeStudy; rows: Array<Record<string, unknown>> }> {
    const s = fixture.built.copy();
    const tsa = fixture.tsa;
    const operator = join(s.root, 'inputs/commitments.jsonl');
    const lines = readFileSync(operator, 'utf8')
      .split('\n')
      .filter((l) => l !== '');
    writeFileSync(operator, `${lines.filter((l) => !l.includes('job-sys-truncated-')).join('\n')}\n`);
    const own = join(s.staging, 'truncated-commitments.jsonl');
    writeFileSync(
      own,
      lines
        .filter((l) => l.includes('job-sys-truncated-'))
        .map((l) => JSON.stringify({ ...JSON.parse(l), published_at: publishedAt, retrieved_at: null }))
        .join('\n') + '\n',
    );
    tsa.at(DURING_WINDOW);
    for (const [file, agent, kind] of [
      [join(s.staging, 'sys-honest.jsonl'), s.honest, 'submissions'],
      [join(s.staging, 'sys-truncated.jsonl'), s.truncated, 'submissions'],
    ] as const) {
      ok(await signAs(s, file, agent, kind));
      ok(await intakeWith(tsa, s, `${file}.intake.json`));
    }
    tsa.at(takenAt);
    ok(await signAs(s, own, s.truncated, 'commitments'));
    ok(await intakeWith(tsa, s, `${own}.intake.json`));
    tsa.at(AFTER_CLOSE);
    ok(await sealWith(tsa, s));
    ok(await runCli(['verify', '--root', s.root, '--json']));
    const rows = await queryStore(
      s.root,
      `SELECT * FROM chain_checks WHERE commitment_published_at IS NOT NULL
      AND check_commitment_count = 'pass' AND check_commitment_final_digest = 'pass' ORDER BY system_id, record_id`,
    );
    return { s, rows };
  }
  // The rows of timelines their commitment matches (sys-truncated cut some of its timelines: those are COMMITMENT_*_MISMATCH whatever the time).
  const of = (rows: Array<Record<string, unknown>>, system: string) => rows.filter((r) => r.system_id === system);

  it('backdated to 2001 and sent through intake: every sys-truncated timeline is UNANCHORED, COMMITMENT_TIME_IMPLAUSIBLE', async () => {
    const { rows } = await study('2001-01-01T00:00:00Z', DURING_WINDOW);
    const mine = of(rows, 'sys-truncated');
    expect(mine.length).toBeGreaterThan(0);
    for (const r of mine) expect([r.status, r.reason_codes]).toEqual(['UNANCHORED', ['COMMITMENT_TIME_IMPLAUSIBLE']]);
  }, 240_000);

  it("published_at after the intake entry's TSA date (claims 11-15, taken in 11-10): refused, the witness and both times recorded", async () => {
    const { rows } = await study('2026-11-15T12:00:00Z', DURING_WINDOW);
    const mine = of(rows, 'sys-truncated');
    expect(mine.length).toBeGreaterThan(0);
    for (const r of mine) {
      expect(r).toMatchObject({
        status: 'UNANCHORED',
        reason_codes: ['COMMITMENT_TIME_IMPLAUSIBLE'],
        commitment_route: 'intake',
        commitment_published_at: '2026-11-15T12:00:00Z',
        commitment_witnessed_at: DURING_WINDOW,
      });
      expect(r.commitment_witnessed_by).toMatch(/^inputs\/intake\.jsonl:3$/);
    }
  }, 240_000);

  it("published in the window before its intake entry's date: ANCHORED; the operator-collected ones are dated by the seal", async () => {
    const { rows } = await study('2026-11-09T12:00:00Z', '2026-11-15T18:00:00Z');
    const mine = of(rows, 'sys-truncated');
    expect(mine.length).toBeGreaterThan(0);
    for (const r of mine)
      expect(r).toMatchObject({
        status: 'ANCHORED',
        reason_codes: [],
        commitment_route: 'intake',
        commitment_witnessed_by: 'inputs/intake.jsonl:3',
        commitment_witnessed_at: '2026-11-15T18:00:00Z',
      });
    const honest = of(rows, 'sys-honest');
    expect(honest.length).toBeGreaterThan(0);
    for (const r of honest)
      expect(r).toMatchObject({
        status: 'ANCHORED',
        commitment_route: 'operator',
        commitment_witnessed_by: 'inputs/anchors/local.tsr',
        commitment_witnessed_at: AFTER_CLOSE,
      });
  }, 240_000);
});
