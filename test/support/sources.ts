// The project's own sources as the house rules (test/house/) read them: every .ts file under a
// folder, named from the repository root with "/", and their text without comments (a rule is
// about code, not about what a comment says of it).
import { readdirSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { PROJECT_ROOT } from './cli.ts';

export const PIPELINE_DIR = join(PROJECT_ROOT, 'pipeline');

/** Every .ts file under `dir`, as absolute paths. */
export function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => join(e.parentPath, e.name));
}

/** Repository-relative, "/"-separated. */
export const repoRelative = (abs: string): string => relative(PROJECT_ROOT, abs).split(sep).join('/');

/** The text without block and line comments. */
export const withoutComments = (text: string): string => text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
