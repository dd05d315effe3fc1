// Data flows one way (README, "Layout"): the stage commands sit on top and nothing below imports
// them; evidence/ and formats/ are pure, so nothing they reach, however indirectly, does I/O;
// io/ reads files and knows nothing of the evidence it feeds. Read from the sources' import
// statements, so a new back-edge fails here rather than in review.
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../support/cli.ts';
import { PIPELINE_DIR, repoRelative, sourceFiles, withoutComments } from '../support/sources.ts';

/** Modules that reach outside the process: files, processes, the network, the database. */
const IO_MODULES = new Set([
  'fs',
  'node:fs',
  'node:fs/promises',
  'node:child_process',
  'node:net',
  'node:http',
  'node:https',
  'node:http2',
  'node:dgram',
  'node:dns',
  'node:tls',
  '@duckdb/node-api',
]);
/** Rooms whose every file does I/O (reads or writes files, the network, the store). */
const IO_ROOMS = ['pipeline/io/', 'pipeline/net/', 'pipeline/store/'];
/** Rooms that must stay pure. */
const PURE_ROOMS = ['pipeline/evidence/', 'pipeline/formats/'];
/**
 * Known I/O inside a pure room, each with the reason and what removes it. The test fails too when
 * an entry is no longer needed, so the list only shrinks.
 */
const KNOWN_IO: ReadonlyArray<{ file: string; module: string; why: string }> = [];

/** Every module a file imports, re-exports, imports dynamically or starts as a worker (new URL('./x.ts', import.meta.url)). */
function importsOf(text: string): string[] {
  const code = withoutComments(text);
  const found: string[] = [];
  for (const re of [
    /\b(?:import|export)\s[^;'"]*?\bfrom\s*['"]([^'"]+)['"]/g,
    /\bimport\s*['"]([^'"]+)['"]/g,
    /\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g,
    /\bnew URL\(\s*['"](\.{1,2}\/[^'"]+\.ts)['"]\s*,\s*import\.meta\.url\s*\)/g,
  ]) {
    for (const m of code.matchAll(re)) found.push(m[1]!);
  }
  return found;
}

interface Graph {
  /** file (repository-relative) → the local files it imports (repository-relative). */
  local: Map<string, string[]>;
  /** file → the package or node: modules it imports. */
  external: Map<string, string[]>;
}

function graphOf(files: string[]): Graph {
  const local = new Map<string, string[]>();
  const external = new Map<string, string[]>();
  for (const abs of files) {
    const specs = importsOf(readFileSync(abs, 'utf8'));
    local.set(
      repoRelative(abs),
      specs.filter((s) => s.startsWith('.')).map((s) => repoRelative(resolve(dirname(abs), s))),
    );
    external.set(
      repoRelative(abs),
      specs.filter((s) => !s.startsWith('.')),
    );
  }
  return { local, external };
}

/** The first chain of imports from `start` to a module that does I/O, or null. */
function ioChain(graph: Graph, start: string, known: ReadonlySet<string>): string[] | null {
  const seen = new Set<string>();
  const walk = (file: string, path: string[]): string[] | null => {
    if (seen.has(file)) return null;
    seen.add(file);
    const here = [...path, file];
    if (IO_ROOMS.some((room) => file.startsWith(room))) return here;
    for (const m of graph.external.get(file) ?? []) {
      if (IO_MODULES.has(m) && !known.has(`${file} ${m}`)) return [...here, m];
    }
    for (const next of graph.local.get(file) ?? []) {
      const chain = walk(next, here);
      if (chain) return chain;
    }
    return null;
  };
  return walk(start, []);
}

/** The commands on top: the pipeline's stages (pipeline/stages/) and the utilities beside them (pipeline/commands/). */
const isStage = (file: string): boolean => file.startsWith('pipeline/stages/') || file.startsWith('pipeline/commands/');
const mayImportStages = (file: string): boolean => isStage(file) || file === 'pipeline/cli.ts';

/** The list of commands cli.ts reads: it names every command (and loads each only when it runs), it is none. */
const COMMAND_LIST = 'pipeline/stages/registry.ts';
/** What `file` counts as in the graph of folders: its folder under pipeline/, or itself for a file at the top. */
const folderOf = (file: string): string => {
  const parts = file.split('/');
  return parts.length > 2 ? `${parts[0]}/${parts[1]}/` : file;
};

/**
 * Every circle of `edges` (a node → the nodes it imports), each once, as "a → b → … → a" starting
 * at its smallest node: the strongly connected components (Tarjan), each walked back to its start.
 */
function circlesOf(edges: ReadonlyMap<string, readonly string[]>): string[] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const connect = (v: string): void => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) {
        connect(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || (edges.get(v) ?? []).includes(v)) components.push(component);
    }
  };
  for (const v of [...edges.keys()].sort()) if (!index.has(v)) connect(v);
  // One circle through each component, by the shortest way back to its smallest node.
  return components
    .map((component) => {
      const inside = new Set(component);
      const start = [...component].sort()[0]!;
      const from = new Map<string, string>();
      const queue = [start];
      for (let i = 0; i < queue.length; i++) {
        for (const w of edges.get(queue[i]!) ?? []) {
          if (w === start) {
            const path = [queue[i]!];
            while (path[0] !== start) path.unshift(from.get(path[0]!)!);
            return [...path, start].join(' → ');
          }
          if (inside.has(w) && !from.has(w)) {
            from.set(w, queue[i]!);
            queue.push(w);
          }
        }
      }
      return start;
    })
    .sort();
}

/** Folder → the folders it imports (a file at the top of pipeline/ is its own node), and file → the files it imports. */
function circles(graph: Graph): string[] {
  const folders = new Map<string, string[]>();
  for (const [file, imports] of graph.local) {
    const from = folderOf(file);
    const to = new Set([...(folders.get(from) ?? []), ...imports.map(folderOf).filter((f) => f !== from)]);
    folders.set(from, [...to].sort());
  }
  return [
    ...circlesOf(folders).map((c) => `folders import each other in a circle: ${c}`),
    ...circlesOf(graph.local).map((c) => `modules import each other in a circle: ${c}`),
  ];
}

/** Every rule broken in `graph`, one line each. */
function violations(graph: Graph, known = KNOWN_IO): string[] {
  const knownKeys = new Set(known.map((k) => `${k.file} ${k.module}`));
  const found: string[] = [];
  for (const [file, imports] of graph.local) {
    if (!mayImportStages(file)) {
      for (const target of imports.filter(isStage))
        found.push(`${file} imports the command ${target}: only pipeline/stages/, pipeline/commands/ and pipeline/cli.ts may`);
    }
    if (PURE_ROOMS.some((room) => file.startsWith(room))) {
      const chain = ioChain(graph, file, knownKeys);
      if (chain) found.push(`${file} is in a pure room but reaches I/O: ${chain.join(' → ')}`);
    }
    if (file.startsWith('pipeline/io/')) {
      for (const target of imports.filter((t) => t.startsWith('pipeline/evidence/')))
        found.push(`${file} reads files and must not import ${target}`);
    }
  }
  for (const [file, imports] of graph.local) {
    if (!isStage(file) || file === COMMAND_LIST) continue;
    for (const target of imports.filter(isStage))
      found.push(`${file} imports the command ${target}: a command imports no command; what two share lives below them`);
  }
  found.push(...circles(graph));
  for (const k of known) {
    if (!(graph.external.get(k.file) ?? []).includes(k.module))
      found.push(`KNOWN_IO lists ${k.file} → ${k.module}, which no longer exists: remove the entry`);
  }
  return found;
}

describe('import direction', () => {
  const graph = graphOf(sourceFiles(PIPELINE_DIR));

  it('reads the imports of every pipeline source', () => {
    expect(graph.local.size).toBeGreaterThan(100);
    expect(graph.local.get('pipeline/stages/audit.ts')).toContain('pipeline/run/pipeline.ts');
    expect(graph.external.get('pipeline/store/db.ts')).toContain('@duckdb/node-api');
  });

  it('no file outside pipeline/stages/ and cli.ts imports a stage, no command imports a command, no circle of folders or modules; evidence/ and formats/ reach no I/O; io/ imports no evidence', () => {
    expect(violations(graph)).toEqual([]);
  });

  // The rules themselves, on the real graph with one bad edge added each time.
  const withEdge = (from: string, to: string, externalModule = false): Graph => {
    const local = new Map([...graph.local].map(([k, v]) => [k, [...v]]));
    const external = new Map([...graph.external].map(([k, v]) => [k, [...v]]));
    (externalModule ? external : local).get(from)!.push(to);
    return { local, external };
  };

  it('fails when a room below the stages imports a stage', () => {
    expect(violations(withEdge('pipeline/audit/recorded.ts', 'pipeline/stages/emit.ts'))).toContain(
      'pipeline/audit/recorded.ts imports the command pipeline/stages/emit.ts: only pipeline/stages/, pipeline/commands/ and pipeline/cli.ts may',
    );
  });

  it('fails when a command imports a command, even a type, and names the edge', () => {
    expect(violations(withEdge('pipeline/stages/run.ts', 'pipeline/stages/emit.ts'))).toEqual([
      'pipeline/stages/run.ts imports the command pipeline/stages/emit.ts: a command imports no command; what two share lives below them',
    ]);
    expect(violations(withEdge('pipeline/commands/validate.ts', 'pipeline/stages/anchor.ts'))).toContain(
      'pipeline/commands/validate.ts imports the command pipeline/stages/anchor.ts: a command imports no command; what two share lives below them',
    );
  });

  it('fails on a circle of folders or of modules, an `import type` included', () => {
    // report/ renders the shapes of results/: a type of report/ read by results/ closes a circle of folders.
    const typeBack = graphOf(sourceFiles(PIPELINE_DIR));
    expect(importsOf("import type { Block } from '../report/document.ts';")).toEqual(['../report/document.ts']);
    typeBack.local.get('pipeline/results/shapes.ts')!.push('pipeline/report/document.ts');
    expect(violations(typeBack)).toEqual([
      'folders import each other in a circle: pipeline/report/ → pipeline/results/ → pipeline/report/',
      'modules import each other in a circle: pipeline/report/document.ts → pipeline/results/shapes.ts → pipeline/report/document.ts',
    ]);
    // Two modules of one folder importing each other.
    expect(violations(withEdge('pipeline/study/file-tree.ts', 'pipeline/study/loaded-study.ts'))).toEqual([
      'modules import each other in a circle: pipeline/study/file-tree.ts → pipeline/study/loaded-study.ts → pipeline/study/file-tree.ts',
    ]);
  });

  it('names every circle once, from its smallest node', () => {
    const edges = new Map([
      ['b', ['c']],
      ['c', ['a', 'b']],
      ['a', ['b']],
      ['d', ['d']],
      ['e', ['a']],
    ]);
    expect(circlesOf(edges)).toEqual(['a → b → c → a', 'd → d']);
    expect(
      circlesOf(
        new Map([
          ['a', ['b']],
          ['b', ['c']],
        ]),
      ),
    ).toEqual([]);
  });

  it('fails when a pure file imports node:fs, or reaches pipeline/io/ through another file', () => {
    // Every file that imports keys.ts, directly or not, now reaches node:fs too.
    expect(violations(withEdge('pipeline/evidence/tlog/keys.ts', 'node:fs', true))).toContain(
      'pipeline/evidence/tlog/keys.ts is in a pure room but reaches I/O: pipeline/evidence/tlog/keys.ts → node:fs',
    );
    const reached = violations(withEdge('pipeline/formats/merkle.ts', 'pipeline/study/trust.ts'));
    expect(reached.find((v) => v.startsWith('pipeline/formats/merkle.ts '))).toMatch(
      /^pipeline\/formats\/merkle\.ts is in a pure room but reaches I\/O: pipeline\/formats\/merkle\.ts → pipeline\/study\/trust\.ts → .*(pipeline\/io\/|node:fs)/,
    );
  });

  it('fails when io/ imports the evidence it feeds', () => {
    expect(violations(withEdge('pipeline/io/trust-files.ts', 'pipeline/evidence/trust/index.ts'))).toEqual([
      'pipeline/io/trust-files.ts reads files and must not import pipeline/evidence/trust/index.ts',
    ]);
  });

  it('fails when a known exception is no longer needed', () => {
    expect(violations(graph, [...KNOWN_IO, { file: 'pipeline/formats/merkle.ts', module: 'node:fs', why: 'test' }])).toEqual([
      'KNOWN_IO lists pipeline/formats/merkle.ts → node:fs, which no longer exists: remove the entry',
    ]);
  });

  it('no pure file names an exit code: the catalogue (reasons.ts) maps codes to exits, cli.ts applies them', () => {
    const naming = [...graph.local.keys()]
      .filter((file) => [...PURE_ROOMS, 'pipeline/classify/'].some((room) => file.startsWith(room)))
      .filter((file) => /\bimport\s*\{[^}]*\bEXIT\b[^}]*\}\s*from/.test(readFileSync(join(PROJECT_ROOT, file), 'utf8')));
    expect(naming).toEqual([]);
  });

  it('reads multi-line, type-only, re-exporting, dynamic and worker imports, not commented ones', () => {
    const text = [
      "import {\n  a,\n  type B,\n} from './a.ts';",
      "import type { C } from '../c.ts';",
      "export { d } from './d.ts';",
      "const e = await import('./e.ts');",
      "const W = new URL('./worker.ts', import.meta.url);",
      "// import { x } from './commented.ts';",
      "/* import { y } from './block.ts'; */",
      "import 'node:fs';",
    ].join('\n');
    expect(importsOf(text).sort()).toEqual(['../c.ts', './a.ts', './d.ts', './e.ts', './worker.ts', 'node:fs'].sort());
  });
});
