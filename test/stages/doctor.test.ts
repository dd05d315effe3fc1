// `prereg doctor`: readiness of each stage, running nothing and writing nothing.
import { readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { exitCodeOf } from '../../pipeline/reasons.ts';
import { runCli, scratchStudies, TEST_OPERATOR_ARGS } from '../support/cli.ts';

const study = scratchStudies();

function tree(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of readdirSync(root, { recursive: true, encoding: 'utf8' })) {
    if (statSync(join(root, f)).isFile()) out[f] = readFileSync(join(root, f)).toString('base64');
  }
  return out;
}

const statuses = (json: { stages: Array<{ stage: string; status: string }> }) =>
  Object.fromEntries(json.stages.map((s) => [s.stage, s.status]));
const codesOf = (json: { stages: Array<{ stage: string; problems: Array<{ code: string }> }> }, stage: string) =>
  json.stages.find((s) => s.stage === stage)!.problems.map((p) => p.code);

describe('prereg doctor', () => {
  it('says ready (exit 0) for the example study with its keys, and writes nothing', async () => {
    const root = study();
    const before = tree(root);
    const r = await runCli(['doctor', '--root', root, '--json', ...TEST_OPERATOR_ARGS]);
    expect([r.code, r.json.status, r.json.next]).toEqual([0, 'ready', null]);
    // Frozen: freeze is done (freezing again would refuse, FREEZE_EXISTS).
    expect(statuses(r.json)).toEqual({ freeze: 'done', anchor: 'ready', 'check-anchors': 'ready', run: 'ready' });
    expect(tree(root)).toEqual(before);
  });

  it('is blocked (exit 3) when run would be: no keys, no commitments, naming what is missing next', async () => {
    const root = study();
    rmSync(join(root, 'inputs/commitments.jsonl'));
    const before = tree(root);
    const r = await runCli(['doctor', '--root', root, '--json']);
    expect([r.code, r.json.status]).toEqual([3, 'blocked']);
    expect(codesOf(r.json, 'run')).toEqual(['COMMITMENTS_MISSING', 'OPERATOR_KEY_MISSING']);
    expect(r.json.next).toMatch(/^run: /);
    expect(tree(root)).toEqual(before);
  });

  it('is blocked before the freeze, and names freeze as the next step', async () => {
    const root = study();
    rmSync(join(root, 'preregistration/freeze.json'));
    const r = await runCli(['doctor', '--root', root, '--json']);
    expect([r.code, statuses(r.json).freeze, statuses(r.json).anchor]).toEqual([3, 'ready', 'blocked']);
    expect(codesOf(r.json, 'anchor')).toEqual(['FREEZE_MISSING']);
  });

  it('reports a plan freeze would refuse, with its code', async () => {
    const root = study();
    const plan = join(root, 'preregistration/PREREGISTRATION.md');
    writeFileSync(plan, readFileSync(plan, 'utf8').replace('CREATE OR REPLACE VIEW hypotheses AS', 'CREATE OR REPLACE VIEW hypothesis AS'));
    const r = await runCli(['doctor', '--root', root, '--json', ...TEST_OPERATOR_ARGS]);
    // The plan's problem, and the drift from the freeze it also is.
    expect(codesOf(r.json, 'freeze')).toEqual(['SECTION5_VIEW_MISSING', 'SECTION5_DRIFT']);
    // The edit also drifted section 5 from the freeze: blocked, exit 3, as SECTION5_DRIFT is in every command.
    expect([r.code, r.json.status]).toEqual([3, 'blocked']);
    expect(codesOf(r.json, 'run')).toContain('SECTION5_DRIFT');
  });

  it("is blocked (exit 3) when a frozen file changed: the drift code's exit in the catalogue", async () => {
    const root = study();
    const doc = join(root, 'corpus/ccag-travaux.md');
    writeFileSync(doc, `${readFileSync(doc, 'utf8')}\n`);
    const r = await runCli(['doctor', '--root', root, '--json', ...TEST_OPERATOR_ARGS]);
    expect([r.code, r.json.status, statuses(r.json).anchor]).toEqual([3, 'blocked', 'blocked']);
    expect(codesOf(r.json, 'anchor')).toContain('CORPUS_DRIFT');
    expect(exitCodeOf('CORPUS_DRIFT')).toBe(3);
  });
});

describe('prereg doctor: conflict is a code that exits 4, as in every command', () => {
  it('is in conflict (exit 4) when the corpus holds a symlink out of the study (CORPUS_PATH_UNSAFE)', async () => {
    const root = study();
    symlinkSync('/etc/hostname', join(root, 'corpus/outside.md'));
    const r = await runCli(['doctor', '--root', root, '--json', ...TEST_OPERATOR_ARGS]);
    expect(exitCodeOf('CORPUS_PATH_UNSAFE')).toBe(4);
    expect(r.json.stages.flatMap((s: { problems: Array<{ code: string }> }) => s.problems.map((p) => p.code))).toContain(
      'CORPUS_PATH_UNSAFE',
    );
    expect([r.code, r.json.status]).toEqual([4, 'conflict']);
  });
});
