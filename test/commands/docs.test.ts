// `prereg docs [NAME]`, and the promise it keeps: every docs/*.md that a `next:` line, a command's
// --help, init's output or the README names exists and ships in the package (package.json `files`),
// so a user of an installed package finds it. scripts/smoke-package.sh checks the same from a
// packed, globally installed tarball.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REASONS } from '../../pipeline/reasons.ts';
import { COMMANDS } from '../../pipeline/stages/registry.ts';
import { PROJECT_ROOT, runCli } from '../support/cli.ts';

const scratch = mkdtempSync(join(tmpdir(), 'prereg-docs-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Every `docs/NAME.md` a text names. */
const docPaths = (text: string): string[] => [...text.matchAll(/\bdocs\/[A-Za-z0-9_.-]+\.md\b/g)].map((m) => m[0]);
const onDisk = readdirSync(join(PROJECT_ROOT, 'docs'))
  .filter((f) => f.endsWith('.md'))
  .sort();

describe('prereg docs', () => {
  it('lists every docs/*.md with its absolute path, sorted by name', async () => {
    const r = await runCli(['docs', '--json']);
    expect(r.code).toBe(0);
    expect(r.json.docs.map((d: { name: string }) => `${d.name}.md`)).toEqual(onDisk);
    for (const d of r.json.docs as { name: string; path: string }[]) {
      expect(isAbsolute(d.path)).toBe(true);
      expect(d.path).toBe(join(PROJECT_ROOT, 'docs', `${d.name}.md`));
    }
    const text = await runCli(['docs']);
    expect(text.stdout.split('\n').filter(Boolean)).toHaveLength(onDisk.length);
    expect(text.stdout).toMatch(/^intake +\/.*\/docs\/intake\.md$/m);
  });

  it('locates one doc by NAME as --help and next: lines write it, and --print prints its text', async () => {
    for (const name of ['intake', 'intake.md', 'docs/intake.md', 'INTAKE']) {
      const r = await runCli(['docs', name]);
      expect([r.code, r.stdout.trim()]).toEqual([0, join(PROJECT_ROOT, 'docs/intake.md')]);
    }
    const printed = await runCli(['docs', 'participating', '--print', '--json']);
    expect(printed.json.docs[0].text).toBe(readFileSync(join(PROJECT_ROOT, 'docs/participating.md'), 'utf8'));
  });

  it('an unknown NAME is a usage error naming the nearest doc', async () => {
    const r = await runCli(['docs', 'intak', '--json']);
    expect([r.code, r.json.code]).toEqual([2, 'USAGE']);
    expect(r.json.message).toContain('did you mean intake?');
  });

  // Who gains: anyone who can put words on a command line an agent or a script runs (`prereg docs
  // "$NAME" --print`) would read files outside docs/ — the operator's private key beside the study.
  it('never reads a file outside docs/: a NAME is only ever one of the listed docs', async () => {
    for (const name of ['../package.json', '../README', '../../../../etc/passwd', '/etc/passwd', 'docs/../README.md', '.']) {
      const r = await runCli(['docs', name, '--print', '--json']);
      expect([r.code, r.json.code], name).toEqual([2, 'USAGE']);
      expect(r.stdout).not.toContain('"text"');
    }
  });
});

describe('every doc a user is sent to ships in the package', () => {
  const files = (JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { files: string[] }).files;
  const shipped = (path: string): boolean => files.some((f) => (f.endsWith('/') ? path.startsWith(f) : path === f));

  it('the docs named by next: lines, --help texts, init and the README exist and are listed in package.json files', async () => {
    const helps = await Promise.all(COMMANDS.map(async (c) => (await c.load()).help));
    const init = await runCli(['init', join(scratch, 'study')]);
    expect(init.code).toBe(0);
    const named = new Map<string, string[]>([
      ['reasons.ts next', Object.values(REASONS).flatMap((r) => docPaths(r.next))],
      ['--help', helps.flatMap(docPaths)],
      ['init', docPaths(init.stdout)],
      ['README.md', docPaths(readFileSync(join(PROJECT_ROOT, 'README.md'), 'utf8'))],
    ]);
    for (const [where, paths] of named) {
      expect(paths.length, `${where} names docs`).toBeGreaterThan(0);
      for (const path of new Set(paths)) {
        expect(existsSync(join(PROJECT_ROOT, path)), `${path} (named by ${where}) exists`).toBe(true);
        expect(shipped(path), `${path} (named by ${where}) is in package.json files`).toBe(true);
      }
    }
  });
});
