// "Inside / outside the study" is decided on real paths (SPEC §12.8): a path is judged by the
// real path (every symlink resolved) of its nearest existing ancestor, with the part that does
// not exist yet appended as written. A lexical check would let `alias/priv`, where alias is a
// symlink to the study, pass as outside the study while every byte lands inside it.
import { existsSync, realpathSync } from 'node:fs';
import { basename, dirname, join, resolve, sep } from 'node:path';

/** The path with every symlink of its existing part resolved (the rest as written). */
export function realPathOf(path: string): string {
  let existing = resolve(path);
  const rest: string[] = [];
  while (!existsSync(existing) && dirname(existing) !== existing) {
    rest.unshift(basename(existing));
    existing = dirname(existing);
  }
  return join(realpathSync(existing), ...rest);
}

/** Whether `path` is `dir` or lies under it, both judged on their real paths. */
export function isWithin(path: string, dir: string): boolean {
  const p = realPathOf(path);
  const d = realPathOf(dir);
  return p === d || p.startsWith(d.endsWith(sep) ? d : d + sep);
}
