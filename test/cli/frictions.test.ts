// Frictions a new user met (issue 25), each with the behaviour that replaces it: global options
// before the command, a closed stdout, doctor's next steps after the freeze and on drift, anchor
// with no TSA configured.
import { spawnSync } from 'node:child_process';
import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REASONS } from '../../pipeline/reasons.ts';
import { PROJECT_ROOT, runCli } from '../support/cli.ts';

const base = mkdtempSync(join(tmpdir(), 'prereg-frictions-'));
afterAll(() => rmSync(base, { recursive: true, force: true }));

describe('CLI conventions', () => {
  it('takes global options before the command: `prereg --root DIR doctor`, `prereg --json --root DIR doctor`', async () => {
    const study = join(base, 'global');
    expect((await runCli(['init', study, '--json'])).code).toBe(0);
    // The window is judged at the machine's clock (window.judged_at): the same document but for that second.
    const judged = (doc: { window: { judged_at: string } }) => ({ ...doc, window: { ...doc.window, judged_at: '(clock)' } });
    const before = await runCli(['--root', study, 'doctor', '--json']);
    const after = await runCli(['doctor', '--root', study, '--json']);
    expect(before.code).toBe(after.code);
    expect(judged(before.json)).toEqual(judged(after.json));
    const jsonFirst = await runCli(['--json', '--root', study, 'doctor']);
    expect(judged(JSON.parse(jsonFirst.stdout))).toEqual(judged(after.json));
  });

  it("ends quietly when stdout is closed early (`prereg explain … | head -c 1`): no EPIPE, the command's own exit code", () => {
    const reason_codes = Array.from({ length: 20 }, () => Object.keys(REASONS)).flat();
    const r = spawnSync(
      'bash',
      ['-c', `node bin/prereg.mjs explain ${reason_codes.join(' ')} | head -c 1 >/dev/null; echo "rc=\${PIPESTATUS[0]}" >&2`],
      { cwd: PROJECT_ROOT, encoding: 'utf8' },
    );
    expect(r.stderr).not.toContain('EPIPE');
    expect(r.stderr).toContain('rc=0');
  });
});

describe('doctor and anchor say the right next step', () => {
  it('after the freeze: freeze is done, not ready; on a corpus edit: the path once, and revert or freeze --replace (not anchor)', async () => {
    const study = join(base, 'doctor');
    const created = await runCli(['init', study, '--seller', 'retrieval.example', '--system', 'sys-a=fp-a', '--json']);
    const priv = created.json.private_dir as string;
    expect(
      (
        await runCli([
          'freeze',
          '--root',
          study,
          '--answer-key',
          join(priv, 'answer-key.jsonl'),
          '--secret-file',
          join(priv, 'answer-key.secret'),
          '--json',
        ])
      ).code,
    ).toBe(0);
    const frozen = await runCli(['doctor', '--root', study, '--json']);
    expect(frozen.json.stages[0]).toEqual({ stage: 'freeze', status: 'done', problems: [], next: null });
    expect(frozen.json.next).toMatch(/^anchor: `prereg anchor`/);
    const text = await runCli(['doctor', '--root', study]);
    expect(text.stdout).toMatch(/^done {5}freeze$/m);

    appendFileSync(join(study, 'corpus/sample.md'), '\nAn edit after the freeze.\n');
    const drifted = await runCli(['doctor', '--root', study, '--json']);
    // A drift is blocked (exit 3), CORPUS_DRIFT's exit in the catalogue, as in every command.
    expect([drifted.code, drifted.json.status]).toEqual([3, 'blocked']);
    const problem = drifted.json.stages[0].problems[0];
    expect(problem.code).toBe('CORPUS_DRIFT');
    expect(problem.message.match(/corpus\/sample\.md/g)).toHaveLength(1);
    expect(drifted.json.next).toMatch(/^freeze: revert the changed files .*`prereg freeze --replace --reason TEXT`/);
    expect(drifted.json.stages[1].next).not.toMatch(/^`prereg anchor`/);
  });

  it('anchor with no TSA configured says --tsa NAME=URL or --import', async () => {
    const study = join(base, 'no-tsa');
    const created = await runCli(['init', study, '--seller', 'retrieval.example', '--system', 'sys-a=fp-a', '--json']);
    const priv = created.json.private_dir as string;
    await runCli([
      'freeze',
      '--root',
      study,
      '--answer-key',
      join(priv, 'answer-key.jsonl'),
      '--secret-file',
      join(priv, 'answer-key.secret'),
    ]);
    const r = await runCli(['anchor', '--root', study]);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('TSA_UNAVAILABLE');
    expect(r.stderr).toMatch(/next: .*--tsa NAME=URL.*--import FILE\.tsr/);
  });
});

describe('init: safe defaults', () => {
  it('asks for require_receipts (default false, --require-receipts sets it), writes a report block and min_witnesses ≥ 1', async () => {
    const plain = join(base, 'defaults');
    const made = await runCli(['init', plain, '--json']);
    expect(made.json.require_receipts).toBe(false);
    const read = (dir: string, f: string) => JSON.parse(spawnSync('cat', [join(dir, f)], { encoding: 'utf8' }).stdout);
    expect(read(plain, 'preregistration/trust/policy.json').require_receipts).toBe(false);
    const study = read(plain, 'preregistration/study.json');
    expect(study.report.primary_metric).toBe(read(PROJECT_ROOT, 'preregistration/study.json').report.primary_metric);
    expect(study.anchors.min_witnesses).toBeGreaterThanOrEqual(1);
    const asked = join(base, 'receipts');
    await runCli(['init', asked, '--require-receipts', '--json']);
    expect(read(asked, 'preregistration/trust/policy.json').require_receipts).toBe(true);
  });
});
