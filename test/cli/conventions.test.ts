// CLI conventions: --version, `help CMD`, did-you-mean, explain case-insensitive, one exit code
// per reason, and `verify` on submission files and on directories with nothing to verify.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { version as duckdbLibraryVersion } from '@duckdb/node-api';
import { PROJECT_ROOT, runCli } from '../support/cli.ts';

const scratch = mkdtempSync(join(tmpdir(), 'prereg-cli-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
const packageVersion = (
  JSON.parse((await import('node:fs')).readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string }
).version;

describe('CLI conventions', () => {
  it('--version names the tool, DuckDB and Node versions an audit depends on', async () => {
    const r = await runCli(['--version', '--json']);
    expect(r.code).toBe(0);
    expect(r.json).toEqual({
      schema_version: 'prereg.version/1',
      prereg: packageVersion,
      duckdb: duckdbLibraryVersion(),
      node: process.version,
    });
    const text = await runCli(['--version']);
    expect(text.stdout).toBe(`prereg ${packageVersion}\nduckdb ${duckdbLibraryVersion()}\nnode ${process.version}\n`);
  });

  it("`prereg help CMD` prints the command's help, as `CMD --help` does", async () => {
    const help = await runCli(['help', 'freeze']);
    const flag = await runCli(['freeze', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toBe(flag.stdout);
    expect(help.stdout).toContain('usage: prereg freeze');
    const unknown = await runCli(['help', 'frezee', '--json']);
    expect([unknown.code, unknown.json.code]).toEqual([2, 'USAGE']);
    expect(unknown.json.message).toContain('did you mean `prereg freeze`?');
  });

  it("suggests the nearest command and option instead of parseArgs' raw text", async () => {
    const command = await runCli(['chek-anchors', '--json']);
    expect([command.code, command.json.code]).toEqual([2, 'USAGE']);
    expect(command.json.message).toContain('did you mean `prereg check-anchors`?');
    const option = await runCli(['freeze', '--replce', '--json']);
    expect([option.code, option.json.code]).toEqual([2, 'USAGE']);
    expect(option.json.message).toBe('freeze: unknown option --replce; did you mean --replace? (run `prereg help freeze`)');
    const far = await runCli(['zzzzzzzz', '--json']);
    expect(far.json.message).not.toContain('did you mean');
  });

  it('explain matches codes case-insensitively and hints the nearest known code', async () => {
    const r = await runCli(['explain', 'file_not_found', 'ANCHOR_INVALIDE', '--json']);
    expect(r.code).toBe(1);
    expect(
      r.json.codes.map((c: { code: string; known: boolean; suggestions?: string[] }) => [c.code, c.known, c.suggestions?.[0]]),
    ).toEqual([
      ['ANCHOR_INVALIDE', false, 'ANCHOR_INVALID'],
      ['FILE_NOT_FOUND', true, undefined],
    ]);
  });

  it('explain lists each code once, sorted, with its exit code; suggests a code the given text begins', async () => {
    const r = await runCli(['explain', 'USAGE', 'file_not_found', 'usage', 'FILE_NOT_FOUND', 'proof_time_outside']);
    expect(r.code).toBe(1);
    expect(r.stdout.split('\n').filter((l) => /^[A-Z]/.test(l))).toEqual([
      'FILE_NOT_FOUND (exit 3)',
      'PROOF_TIME_OUTSIDE (unknown)',
      'USAGE (exit 2)',
    ]);
    expect(r.stdout).toContain('did you mean PROOF_TIME_OUTSIDE_WINDOW?');
  });

  it('explain refuses what is not a code (a pasted paragraph, punctuation) as a usage error, echoing at most 40 characters', async () => {
    for (const given of ['A'.repeat(5000), 'not a code', 'FILE-NOT-FOUND']) {
      const r = await runCli(['explain', given, '--json']);
      expect([r.code, r.json.code]).toEqual([2, 'USAGE']);
      expect(r.json.message.length).toBeLessThan(160);
    }
  });

  it('a stray positional argument is a usage error in every command, never ignored', async () => {
    const r = await runCli(['status', scratch, '--json']);
    expect([r.code, r.json.code]).toEqual([2, 'USAGE']);
    expect(r.json.message).toContain(`did you mean \`--root ${scratch}\`?`);
    for (const args of [['doctor', 'x'], ['run', 'x'], ['check-anchors', 'x'], ['audit', 'a', 'b'], ['commitment'], ['init', 'a', 'b']]) {
      const stray = await runCli([...args, '--json']);
      expect([args.join(' '), stray.code, stray.json.code]).toEqual([args.join(' '), 2, 'USAGE']);
    }
  });

  it('--root naming no directory says so (ROOT_NOT_FOUND, exit 2), in every command that takes it', async () => {
    for (const command of ['doctor', 'status', 'check-anchors', 'run']) {
      const r = await runCli([command, '--root', join(scratch, 'no-such-study'), '--json']);
      expect([command, r.code, r.json.code]).toEqual([command, 2, 'ROOT_NOT_FOUND']);
      expect(r.json.message).toContain('no such directory');
    }
  });

  it('`prereg version` suggests --version', async () => {
    const r = await runCli(['version', '--json']);
    expect([r.code, r.json.code]).toEqual([2, 'USAGE']);
    expect(r.json.message).toContain('prereg --version');
  });

  it('FILE_NOT_FOUND is exit 3 in every command', async () => {
    const missing = join(scratch, 'missing.json');
    for (const args of [
      ['verify', missing],
      ['validate', missing],
      ['verify', join(PROJECT_ROOT, 'test/fixtures/real/arkforge-production/proof_2026_07.json'), '--commitments', missing],
    ]) {
      const r = await runCli([...args, '--root', PROJECT_ROOT, '--json']);
      expect([args[0], r.code, r.json.code]).toEqual([args[0], 3, 'FILE_NOT_FOUND']);
    }
  });

  it('verify on a directory with nothing to verify refuses (NOTHING_TO_VERIFY) instead of exiting 0', async () => {
    const empty = mkdtempSync(join(scratch, 'empty-'));
    writeFileSync(join(empty, 'notes.txt'), 'no evidence here\n');
    const r = await runCli(['verify', empty, '--root', PROJECT_ROOT, '--json']);
    expect([r.code, r.json.code]).toEqual([3, 'NOTHING_TO_VERIFY']);
  });

  it('verify on a submission file (*.jsonl) verifies every evidence item and the receipts of every line', async () => {
    const fs = await import('node:fs');
    const file = join(PROJECT_ROOT, 'inputs/submissions/sys-tampered.jsonl');
    const r = await runCli(['verify', file, '--root', PROJECT_ROOT, '--json']);
    expect(r.code).toBe(1);
    const lines = fs
      .readFileSync(file, 'utf8')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as { evidence: unknown[]; receipts?: unknown });
    const expected = lines.flatMap((l, i) => [
      ...l.evidence.map((_, j) => `${i + 1} evidence[${j}]`),
      ...(l.receipts === undefined ? [] : [`${i + 1} receipts`]),
    ]);
    expect(r.jsonLines.filter((x) => x.kind !== 'commitment').map((x) => `${x.line} ${x.part}`)).toEqual(expected);
    // The tampered system's evidence is partly verified, partly not.
    const statuses = new Set(r.jsonLines.filter((x) => x.kind === 'evidence').map((x) => x.status));
    expect(statuses.has('VERIFIED') && statuses.size > 1).toBe(true);
    const honest = await runCli(['verify', join(PROJECT_ROOT, 'inputs/submissions/sys-honest.jsonl'), '--root', PROJECT_ROOT, '--json']);
    expect(honest.code, honest.stdout.slice(0, 2000)).toBe(0);
    expect(honest.jsonLines.every((x) => x.status === 'VERIFIED' || x.status === 'ANCHORED')).toBe(true);
  });
});
