// The tool is part of the frozen plan (docs/preregistration.md, "The tool version"): a study frozen
// by another prereg version is refused by run, emit, classify, score and the audit (TOOL_DRIFT,
// exit 3), writing nothing. Who gains otherwise: an operator who runs two versions after the
// deadline and publishes the kinder result.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { requireFrozenTool } from '../../pipeline/study/drift.ts';
import { TOOL_VERSION } from '../../pipeline/version.ts';
import { auditorFlags } from '../support/auditor.ts';
import { runCli, scratchStudies, TEST_OPERATOR_ARGS } from '../support/cli.ts';

const study = scratchStudies();

/** freeze.json as if another prereg version had frozen it (the anchors then no longer witness it: the version is refused first). */
function frozenByAnotherVersion(root: string, version = '0.0.1-elsewhere'): void {
  const path = join(root, 'preregistration/freeze.json');
  const record = JSON.parse(readFileSync(path, 'utf8'));
  expect(record.tool.version).toBe(TOOL_VERSION);
  record.tool.version = version;
  writeFileSync(path, `${JSON.stringify(record, null, 2)}\n`);
}

describe('TOOL_DRIFT', () => {
  it('requireFrozenTool passes the freezing version and refuses any other, naming the one to install', () => {
    expect(() => requireFrozenTool({ tool: { name: 'prereg', version: '1.2.3' } }, '1.2.3')).not.toThrow();
    expect(() => requireFrozenTool({ tool: { name: 'prereg', version: '1.2.3' } }, '1.2.4')).toThrow(/install prereg 1\.2\.3/);
  });

  it('run refuses a study frozen by another version before any work (exit 3), writing no work/ and no outputs', async () => {
    const root = study();
    frozenByAnotherVersion(root);
    const r = await runCli(['run', '--root', root, '--json', ...TEST_OPERATOR_ARGS]);
    expect(r.code).toBe(3);
    expect(r.json.code).toBe('TOOL_DRIFT');
    expect(r.json.message).toContain('install prereg 0.0.1-elsewhere');
    expect(existsSync(join(root, 'work/prereg.duckdb'))).toBe(false);
    expect(existsSync(join(root, 'outputs')) ? readdirSync(join(root, 'outputs')) : []).toEqual([]);
  });

  it('classify, score and emit refuse it too, and the audit cannot audit its outputs (exit 3)', async () => {
    const root = study();
    const outputs = join(root, 'outputs');
    const ran = await runCli(['run', '--root', root, '--outputs', outputs, '--json', ...TEST_OPERATOR_ARGS]);
    expect(ran.code, ran.stdout.slice(0, 400)).toBe(0);
    const [runDir] = readdirSync(outputs);
    frozenByAnotherVersion(root);
    for (const stage of ['classify', 'score']) {
      const r = await runCli([stage, '--root', root, '--json']);
      expect([stage, r.code, r.json.code]).toEqual([stage, 3, 'TOOL_DRIFT']);
    }
    const emitted = await runCli(['emit', '--root', root, '--outputs', join(root, 'other-outputs'), '--json', ...TEST_OPERATOR_ARGS]);
    expect([emitted.code, emitted.json.code]).toEqual([3, 'TOOL_DRIFT']);
    expect(existsSync(join(root, 'other-outputs'))).toBe(false);
    const audited = await runCli(['audit', join(outputs, runDir!), '--root', root, '--json', ...auditorFlags()]);
    expect([audited.code, audited.json.code]).toEqual([3, 'TOOL_DRIFT']);
  });
});
