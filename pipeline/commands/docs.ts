// `prereg docs [NAME]`: where the package's own docs are, so every `docs/*.md` that --help, init
// and a `next:` line name is found from an installed package (which has no checkout to look in).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { EXIT, PreregError } from '../reasons.ts';
import { suggestions } from '../text/nearest.ts';
import { shown } from '../text/display.ts';
import type { Command } from '../command.ts';

/** docs/ of the package: two folders up from pipeline/commands/ and from dist/commands/ alike. */
const DOCS_DIR = fileURLToPath(new URL('../../docs/', import.meta.url));

/** Every doc, by name (`intake` for docs/intake.md), sorted: the only files NAME can select. */
function listDocs(): { name: string; path: string }[] {
  // A package packed without its docs (package.json `files`) says so, not an internal error.
  if (!existsSync(DOCS_DIR)) throw new PreregError('FILE_NOT_FOUND', `docs: the package has no docs/ at ${DOCS_DIR}`, { path: DOCS_DIR });
  return readdirSync(DOCS_DIR)
    .filter((file) => file.endsWith('.md'))
    .sort()
    .map((file) => ({ name: file.slice(0, -'.md'.length), path: join(DOCS_DIR, file) }));
}

export const docs: Command = {
  name: 'docs',
  summary: "list the package's docs with their installed paths, or locate (--print: print) one by NAME",
  help: [
    'usage: prereg docs [--json]',
    '       prereg docs NAME [--print] [--json]',
    '',
    'Without NAME, every doc of the installed package (docs/*.md), one per line: its name and its',
    'absolute path. With NAME (`intake`, `intake.md` or `docs/intake.md`, as --help and `next:` lines',
    "write it), that doc's path; --print prints its text instead. An unknown NAME is a usage error",
    '(exit 2) naming the nearest docs.',
  ].join('\n'),
  options: { print: { type: 'boolean' } },
  stage: false,
  operands: { min: 0, max: 1 },
  jsonSchema: () => 'prereg.docs/1',
  async run(ctx) {
    const all = listDocs();
    const given = ctx.positionals[0];
    if (given === undefined) {
      if (ctx.values.print === true) throw new PreregError('USAGE', 'docs: --print needs a NAME (prereg docs NAME --print)');
      const width = Math.max(...all.map((d) => d.name.length));
      return { exitCode: EXIT.ok, json: { docs: all }, text: all.map((d) => `${d.name.padEnd(width)}  ${d.path}`).join('\n') };
    }
    // Matched against the listed names only: NAME never becomes a path of its own.
    const name = given
      .replace(/^docs\//, '')
      .replace(/\.md$/i, '')
      .toLowerCase();
    const doc = all.find((d) => d.name.toLowerCase() === name);
    if (doc === undefined) {
      const near = suggestions(
        name,
        all.map((d) => d.name),
      );
      const hint = near.length > 0 ? `did you mean ${near.join(' or ')}?` : `the docs are ${all.map((d) => d.name).join(', ')}`;
      throw new PreregError('USAGE', `docs: no doc named "${shown(given.length > 40 ? `${given.slice(0, 40)}…` : given)}"; ${hint}`);
    }
    if (ctx.values.print !== true) return { exitCode: EXIT.ok, json: { docs: [doc] }, text: doc.path };
    const text = readFileSync(doc.path, 'utf8');
    return { exitCode: EXIT.ok, json: { docs: [{ ...doc, text }] }, text: text.replace(/\n$/, '') };
  },
};
