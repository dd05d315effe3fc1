// `prereg status`: current or stale per stage, and why, judged by the rule the stages skip by.
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyExampleStudy, runCli, TEST_OPERATOR_ARGS } from '../support/cli.ts';

let root: string;
let cleanup: () => void;
beforeAll(() => ({ root, cleanup } = copyExampleStudy()));
afterAll(() => cleanup());

const secret = () => TEST_OPERATOR_ARGS.slice(TEST_OPERATOR_ARGS.indexOf('--secret-file'), TEST_OPERATOR_ARGS.indexOf('--secret-file') + 2);
const status = async () => runCli(['status', '--root', root, ...secret(), '--json']);
const states = (r: { json: { stages: Array<{ stage: string; state: string }> } }) =>
  Object.fromEntries(r.json.stages.map((s) => [s.stage, s.state]));

describe('prereg status', () => {
  it('a fresh study: every stage stale, never run; after run: every stage current, and run skips them all', async () => {
    const fresh = await status();
    expect(fresh.code, fresh.stdout + fresh.stderr).toBe(0);
    expect(states(fresh)).toEqual({ ingest: 'stale', verify: 'stale', classify: 'stale', score: 'stale', emit: 'stale' });
    expect(fresh.json.stages[0].reason).toBe('no database yet');
    expect(fresh.json.stages[1].reason).toBe('no recorded run once ingest rebuilds the store');

    const run = await runCli(['run', '--root', root, ...TEST_OPERATOR_ARGS]);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const after = await status();
    expect(states(after)).toEqual({ ingest: 'current', verify: 'current', classify: 'current', score: 'current', emit: 'current' });
    const text = await runCli(['status', '--root', root, ...secret()]);
    expect(text.stdout).toContain('ingest: current, inputs unchanged since the last run');
  });

  it('after a submission file is edited: ingest and every later stage stale, the file named; each rerun says why', async () => {
    const file = join(root, 'inputs/submissions', 'sys-honest.jsonl');
    appendFileSync(file, '\n');
    const r = await status();
    expect(states(r)).toEqual({ ingest: 'stale', verify: 'stale', classify: 'stale', score: 'stale', emit: 'stale' });
    expect(r.json.stages[0].reason).toBe('inputs changed: inputs/submissions/sys-honest.jsonl changed');
    expect(r.json.stages[1].reason).toBe('no recorded run once ingest rebuilds the store');
    const text = (await runCli(['status', '--root', root, ...secret()])).stdout;
    expect(text).toContain('ingest: stale — inputs changed: inputs/submissions/sys-honest.jsonl changed');

    const verify = await runCli(['verify', '--root', root]);
    expect(verify.code, verify.stderr).toBe(0);
    expect(verify.stdout).toContain('verify: rerun — no recorded run');
    expect(states(await status())).toMatchObject({ ingest: 'current', verify: 'current', classify: 'stale' });
    appendFileSync(file, '\n');
    const run = await runCli(['run', '--root', root, ...TEST_OPERATOR_ARGS]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('ingest: rebuilt work/prereg.duckdb (inputs changed: inputs/submissions/sys-honest.jsonl changed)');
    expect(run.stdout).toContain('verify: rerun — no recorded run');
    expect(run.stdout).toContain('classify: rerun — no recorded run');
  });

  it('after the trust policy is edited: verify and later blocked with TRUST_DRIFT naming policy.json; exit 3', async () => {
    const policy = join(root, 'preregistration/trust/policy.json');
    const before = readFileSync(policy, 'utf8');
    writeFileSync(policy, before.replace(/\s*$/, '\n\n'));
    const r = await status();
    expect(r.code).toBe(3);
    expect(states(r)).toEqual({ ingest: 'current', verify: 'blocked', classify: 'blocked', score: 'blocked', emit: 'blocked' });
    expect(r.json.stages[1]).toMatchObject({ code: 'TRUST_DRIFT' });
    expect(r.json.stages[1].reason).toContain('preregistration/trust/policy.json: content changed');
    writeFileSync(policy, before);
  });

  it('emit is judged where run wrote: outputs elsewhere are stale under outputs/ (with the hint) and current under --outputs', async () => {
    const elsewhere = mkdtempSync(join(tmpdir(), 'prereg-status-outputs-'));
    rmSync(join(root, 'outputs'), { recursive: true, force: true }); // the first case's run wrote there
    try {
      const run = await runCli(['run', '--root', root, ...TEST_OPERATOR_ARGS, '--outputs', elsewhere]);
      expect(run.code, run.stdout + run.stderr).toBe(0);
      const runId = run.json?.run_id ?? /run_id (\w+)/.exec(run.stdout)![1];
      const there = await runCli(['status', '--root', root, ...secret(), '--outputs', elsewhere, '--json']);
      expect(states(there).emit).toBe('current');
      expect(there.json.stages[4].reason).toBe(`${join(elsewhere, runId)}/ exists`);
      const here = await status();
      expect(states(here)).toMatchObject({ score: 'current', emit: 'stale' });
      expect(here.json.stages[4].reason).toBe(`outputs/${runId}/ does not exist (if run wrote elsewhere, pass its --outputs DIR)`);
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });
});

describe('describeChanges (the reason a stage reruns)', () => {
  it('names a changed trust file, an added and a removed submission, and a changed limit', async () => {
    const { describeChanges, judge } = await import('../../pipeline/run/stage-inputs.ts');
    const a = 'a'.repeat(64);
    const b = 'b'.repeat(64);
    const before = {
      stage: 'verify',
      trust: [{ file: 'preregistration/trust/policy.json', sha256: a }],
      files: [{ file: 'x.jsonl', sha256: a }],
      max: 1,
    };
    const after = {
      stage: 'verify',
      trust: [{ file: 'preregistration/trust/policy.json', sha256: b }],
      files: [{ file: 'y.jsonl', sha256: a }],
      max: 2,
    };
    expect(describeChanges(before, after, { max: 'limits.max' })).toEqual([
      'preregistration/trust/policy.json changed',
      'y.jsonl added',
      'x.jsonl removed',
      'limits.max 1 → 2',
    ]);
    const previous = { digest: 'old', inputs: before, outputs: {} };
    expect(judge(previous, after).reason).toMatch(/^inputs changed: preregistration\/trust\/policy.json changed; /);
    expect(judge(previous, before, {}, true)).toMatchObject({ current: false, reason: '--force' });
  });
});
