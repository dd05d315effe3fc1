// Nothing scored outside the window (issue 35 point 6), through the CLI: `run` and `emit` of a
// sealed study refuse before its seal (SEAL_MISSING), of an unsealed study before closes_at by
// this machine's clock (WINDOW_OPEN), writing nothing; doctor and status name the window's phase
// (before, open, closed, sealed), its times and the phase's next step, and doctor stops
// suggesting `freeze --replace` once opens_at has passed. The studies are built with their
// window placed around the machine's clock (closes_at in the future), frozen and anchored again.
//
// Who gains by breaking the rule: an operator who scores (and peeks at) the submissions while the
// window is still open, then chooses what to take in and seal, or when to close.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freezeAndAnchor } from '../../scripts/rebuild-example.ts';
import {
  copyExampleStudy as copyExample,
  copySealedExampleStudy as copySealedExample,
  runCli,
  TEST_OPERATOR_ARGS,
} from '../support/cli.ts';
import { intakeFixture, intakeWith, signAs, snapshot } from '../support/intake-study.ts';

const DAY = 86_400_000;
const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
/** Far enough ahead that no test run reaches it. */
const FUTURE_CLOSE = iso(Date.now() + 30 * DAY);

const fixture = intakeFixture();
const cleanups: Array<() => void> = [];
afterAll(() =>
  cleanups.forEach((c) => {
    c();
  }),
);
const kept = (copy: { root: string; cleanup: () => void }) => (cleanups.push(copy.cleanup), copy);
const copyExampleStudy = () => kept(copyExample());
const copySealedExampleStudy = () => kept(copySealedExample());

async function cli(args: string[]): Promise<void> {
  const r = await runCli(args);
  if (r.code !== 0) throw new Error(`prereg ${args.join(' ')} exited ${r.code}: ${r.stderr}${r.stdout}`);
}

/** study.json's window replaced, then frozen and anchored again (as the example's own helper does). */
async function withWindow(root: string, window: { opens_at?: string; closes_at?: string }): Promise<string> {
  const path = join(root, 'preregistration/study.json');
  const study = JSON.parse(readFileSync(path, 'utf8'));
  study.window = { ...study.window, ...window };
  writeFileSync(path, `${JSON.stringify(study, null, 2)}\n`);
  await freezeAndAnchor(root, cli);
  return root;
}

/** Every file under the study's outputs/ and work/ (none when absent). */
function written(root: string): Record<string, string> {
  return Object.fromEntries(
    ['outputs', 'work'].flatMap((d) =>
      existsSync(join(root, d)) ? Object.entries(snapshot(join(root, d))).map(([f, b]) => [`${d}${f}`, b]) : [],
    ),
  );
}

/** A sealed-intake study whose window is open now (closes_at in the future), one file taken in, no seal. */
async function sealedWindowOpen(): Promise<string> {
  const s = fixture.built.copy();
  await withWindow(s.root, { closes_at: FUTURE_CLOSE });
  const file = join(s.staging, `${s.honest.system_id}.jsonl`);
  expect((await signAs(s, file, s.honest)).code).toBe(0);
  const r = await intakeWith(fixture.tsa, s, `${file}.intake.json`);
  expect(r.code, r.stdout + r.stderr).toBe(0);
  return s.root;
}

/** The stages before emit, each of which may run on open inputs: the operator's peek. */
async function scoreWithoutEmit(root: string): Promise<void> {
  for (const stage of ['ingest', 'verify', 'classify', 'score']) await cli([stage, '--root', root]);
}

/** An unsealed study (no intake) whose closes_at is in the future by this machine's clock. */
const unsealedWindowOpen = async () => withWindow(copyExampleStudy().root, { closes_at: FUTURE_CLOSE });

describe('run and emit refuse outside the window, writing nothing', () => {
  it.each([
    [
      'a sealed study whose window is open, one file taken in, no seal',
      'SEAL_MISSING',
      'nothing is scored before the seal',
      sealedWindowOpen,
    ],
    ['an unsealed study whose closes_at is in the future', 'WINDOW_OPEN', FUTURE_CLOSE, unsealedWindowOpen],
  ] as const)(
    '%s: run is %s (exit 3); emit after the other stages is too',
    async (_what, code, named, build) => {
      const root = await build();
      const run = await runCli(['run', '--root', root, '--json', ...TEST_OPERATOR_ARGS]);
      expect([run.code, run.json.code]).toEqual([3, code]);
      expect(run.json.message).toContain(named);
      expect(written(root)).toEqual({});
      // The stages before emit build the store (the operator's peek); emit must still sign nothing.
      await scoreWithoutEmit(root);
      const before = written(root);
      const emit = await runCli(['emit', '--root', root, '--json', ...TEST_OPERATOR_ARGS]);
      expect([emit.code, emit.json.code]).toEqual([3, code]);
      expect(written(root)).toEqual(before);
      expect(existsSync(join(root, 'outputs'))).toBe(false);
    },
    120_000,
  );
});

interface Window {
  phase: string;
  opens_at: string;
  closes_at: string;
  intake: string;
  seal_by: string | null;
  next: string;
}

async function phaseOf(
  root: string,
): Promise<{ doctor: Window; status: Window; doctorText: string; statusText: string; doctorNext: string | null; blocking: string[] }> {
  const doctor = await runCli(['doctor', '--root', root, '--json', ...TEST_OPERATOR_ARGS]);
  const status = await runCli(['status', '--root', root, '--json']);
  const doctorText = (await runCli(['doctor', '--root', root, ...TEST_OPERATOR_ARGS])).stdout;
  const statusText = (await runCli(['status', '--root', root])).stdout;
  // One phase, one wording, in both commands (each judged by the clock when it ran).
  const { judged_at: doctorAt, ...doctorWindow } = doctor.json.window;
  const { judged_at: statusAt, ...statusWindow } = status.json.window;
  expect(doctorWindow).toEqual(statusWindow);
  for (const at of [doctorAt, statusAt]) expect(Math.abs(Date.parse(at) - Date.now())).toBeLessThan(60_000);
  // What the run stage of doctor and the emit stage of status refuse for.
  const runCodes = doctor.json.stages.find((s: { stage: string }) => s.stage === 'run').problems.map((p: { code: string }) => p.code);
  const emitCode = status.json.stages.find((s: { stage: string }) => s.stage === 'emit').code;
  return {
    doctor: doctor.json.window,
    status: status.json.window,
    doctorText,
    statusText,
    doctorNext: doctor.json.next,
    blocking: [...runCodes, emitCode ?? 'emit not blocked'],
  };
}

describe("doctor and status name the window's phase, its times and the next step", () => {
  it('before opens_at: "before", freeze and anchor before opens_at; a drifted file may still be frozen again', async () => {
    const opens = iso(Date.now() + 10 * DAY);
    const root = await withWindow(copyExampleStudy().root, { opens_at: opens, closes_at: FUTURE_CLOSE });
    const w = await phaseOf(root);
    expect(w.doctor).toMatchObject({ phase: 'before', opens_at: opens, closes_at: FUTURE_CLOSE, intake: 'unsealed', seal_by: null });
    expect(w.doctor.next).toContain(opens);
    for (const text of [w.doctorText, w.statusText])
      expect(text).toMatch(new RegExp(`^window: before \\(opens_at ${opens}, closes_at ${FUTURE_CLOSE}`, 'm'));
    const doc = join(root, 'corpus/ccag-travaux.md');
    writeFileSync(doc, `${readFileSync(doc, 'utf8')}\n`);
    const drifted = await runCli(['doctor', '--root', root, '--json', ...TEST_OPERATOR_ARGS]);
    expect(drifted.json.next).toContain('freeze --replace');
  }, 120_000);

  it('open, sealed intake: "open", intake until closes_at, run refused until the seal', async () => {
    const root = await sealedWindowOpen();
    const w = await phaseOf(root);
    expect(w.doctor).toMatchObject({ phase: 'open', closes_at: FUTURE_CLOSE, intake: 'sealed' });
    expect(w.doctor.next).toContain('prereg intake');
    expect(w.blocking).toEqual(['SEAL_MISSING', 'SEAL_MISSING']);
    expect(w.doctorText).toMatch(/^window: open \(/m);
    expect(w.statusText).toMatch(/^window: open \(/m);
  }, 120_000);

  it('open, unsealed intake: "open", collect until closes_at, run refused until then by this machine\'s clock', async () => {
    const w = await phaseOf(await unsealedWindowOpen());
    expect(w.doctor).toMatchObject({ phase: 'open', intake: 'unsealed', seal_by: null });
    expect(w.doctor.next).toContain('WINDOW_OPEN');
    expect(w.blocking).toEqual(['WINDOW_OPEN', 'WINDOW_OPEN']);
  }, 120_000);

  it('closed, sealed intake, no seal: "closed", seal by closes_at + seal_within_s', async () => {
    const s = fixture.built.copy();
    const w = await phaseOf(s.root);
    expect(w.doctor).toMatchObject({
      phase: 'closed',
      closes_at: '2026-11-16T00:00:00Z',
      intake: 'sealed',
      seal_by: '2026-11-16T01:00:00Z',
    });
    expect(w.doctor.next).toContain('prereg seal');
    expect(w.statusText).toMatch(/^window: closed \(/m);
  });

  it('closed, unsealed intake: "closed", reveal and run', async () => {
    const { root } = copyExampleStudy();
    const w = await phaseOf(root);
    expect(w.doctor).toMatchObject({ phase: 'closed', intake: 'unsealed' });
    expect(w.doctor.next).toContain('prereg run');
    expect(w.blocking).toEqual(['emit not blocked']);
  });

  it('sealed: the committed example, "sealed", reveal and run', async () => {
    const { root } = copySealedExampleStudy();
    const w = await phaseOf(root);
    expect(w.doctor).toMatchObject({
      phase: 'sealed',
      opens_at: '2026-11-02T00:00:00Z',
      closes_at: '2026-11-16T00:00:00Z',
      intake: 'sealed',
    });
    expect(w.doctor.next).toContain('prereg run');
    expect(w.doctorText).toMatch(/^window: sealed \(/m);
    expect(w.blocking).toEqual(['emit not blocked']);
  });

  it('after opens_at, doctor never suggests `freeze --replace` for a drifted file: the plan can no longer be replaced', async () => {
    const { root } = copyExampleStudy();
    const doc = join(root, 'corpus/ccag-travaux.md');
    writeFileSync(doc, `${readFileSync(doc, 'utf8')}\n`);
    const r = await runCli(['doctor', '--root', root, '--json', ...TEST_OPERATOR_ARGS]);
    expect(r.code).toBe(3);
    const said = [r.json.next, ...r.json.stages.map((s: { next: string | null }) => s.next), r.json.window?.next].join('\n');
    expect(said).not.toContain('--replace');
    expect(r.json.next).toContain('revert');
    const text = await runCli(['doctor', '--root', root, ...TEST_OPERATOR_ARGS]);
    expect(text.stdout).not.toContain('--replace');
  });
});
