// The CI workflow `prereg init` writes (docs/ci.md), kept from rotting: GitHub's own parser
// (@actions/workflow-parser) reads it without an error, and its `run:` steps, taken from the parsed
// template in order, run with bash as GitHub runs them (`bash --noprofile --norc -eo pipefail`) in
// a rehearsal study — before the freeze (a notice, exit 0), after the freeze with its digest
// published (exit 0), after one corpus byte changed, an unpublished or another digest (non-zero).
// `prereg` on PATH runs this checkout's bin/prereg.mjs, and `npm` on PATH records what the install
// step asks for: a real `npm install --global` of the tarball would fetch DuckDB's native binary
// from the registry (tens of MiB, minutes on these machines); scripts/smoke-package.sh installs
// the packed tarball for real. The tarball init copies is a real package tarball (tar + gzip) whose
// package.json is this checkout's.
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { convertWorkflowTemplate, isString, NoOperationTraceWriter, parseWorkflow } from '@actions/workflow-parser';
import { afterAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT, runCli } from '../support/cli.ts';
import { devTsa, ok, stopDevTsas } from '../support/dev-tsa-process.ts';
import { flipByte } from '../audit/helpers.ts';

/** A node of the parsed template (the package's index does not export its class). */
type TemplateToken = Parameters<typeof isString>[0];

const base = mkdtempSync(join(tmpdir(), 'prereg-ci-'));
afterAll(() => {
  stopDevTsas();
  rmSync(base, { recursive: true, force: true });
});

const OPENS = '2026-11-10T10:00:00Z';
const CLOSES = '2026-11-10T10:15:00Z';
const VERSION = (JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string }).version;

/** A package tarball as npm pack lays it out (package/…), carrying `packageJson`. */
function tarball(name: string, packageJson: string): string {
  const dir = mkdtempSync(join(base, 'pack-'));
  mkdirSync(join(dir, 'package'));
  writeFileSync(join(dir, 'package/package.json'), packageJson);
  const file = join(base, name);
  const r = spawnSync('tar', ['-czf', file, '-C', dir, 'package'], { encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
  return file;
}

/** `prereg` (this checkout) and an `npm` that records its arguments, first on PATH. */
const bin = join(base, 'bin');
const npmLog = join(base, 'npm-args');
mkdirSync(bin);
writeFileSync(join(bin, 'prereg'), `#!/bin/sh\nexec "${process.execPath}" "${join(PROJECT_ROOT, 'bin/prereg.mjs')}" "$@"\n`);
writeFileSync(join(bin, 'npm'), `#!/bin/sh\nprintf '%s\\n' "$*" >> "${npmLog}"\n`);
for (const f of ['prereg', 'npm']) chmodSync(join(bin, f), 0o755);

const mapping = (token: TemplateToken): Map<string, TemplateToken> => {
  const m = token.assertMapping('mapping');
  return new Map(Array.from({ length: m.count }, (_, i) => [m.get(i).key.toString(), m.get(i).value]));
};
const text = (token: TemplateToken | undefined): string | undefined => (token && isString(token) ? token.value : undefined);

interface Workflow {
  events: string[];
  env: Record<string, string>;
  shell: string | undefined;
  steps: Array<{ name: string | undefined; run?: string; uses?: string; if?: string; with: Record<string, string> }>;
}

/** The workflow as GitHub's parser reads it: no error, its events, env, default shell and steps in order. */
async function parsedWorkflow(file: string): Promise<Workflow> {
  const parsed = parseWorkflow({ name: '.github/workflows/prereg.yml', content: readFileSync(file, 'utf8') }, new NoOperationTraceWriter());
  expect(parsed.context.errors.getErrors().map((e) => e.message)).toEqual([]);
  const template = await convertWorkflowTemplate(parsed.context, parsed.value!);
  expect(template.errors ?? []).toEqual([]);
  expect(template.jobs).toHaveLength(1);
  const job = template.jobs[0]!;
  if (job.type !== 'job') throw new Error('a reusable-workflow job');
  const root = mapping(parsed.value!);
  const defaults = root.get('defaults');
  return {
    events: Object.keys(template.events).sort(),
    env: Object.fromEntries([...mapping(template.env)].map(([k, v]) => [k, text(v)!])),
    shell: defaults ? text(mapping(mapping(defaults).get('run')!).get('shell')) : undefined,
    steps: job.steps.map((s) => ({
      name: 'name' in s && s.name ? s.name.toString() : undefined,
      ...('run' in s ? { run: s.run.toString() } : {}),
      ...('uses' in s ? { uses: s.uses.value } : {}),
      ...('if' in s && s.if ? { if: s.if.expression } : {}),
      with: 'uses' in s ? withOf(parsed.value!, job.steps.indexOf(s)) : {},
    })),
  };
}

/** A step's `with:` inputs, read from the parsed template (the converted step keeps them as an opaque token). */
function withOf(root: TemplateToken, index: number): Record<string, string> {
  const job = mapping(mapping(root).get('jobs')!).get('check-anchors')!;
  const step = mapping(job).get('steps')!.assertSequence('steps').get(index);
  const w = mapping(step).get('with');
  return w ? Object.fromEntries([...mapping(w)].map(([k, v]) => [k, v.toString()])) : {};
}

/** Runs the workflow's `run:` steps in order as GitHub does; stops at the first that fails. */
function runSteps(
  study: string,
  workflow: Workflow,
  env: Record<string, string> = workflow.env,
): { code: number; output: string; npm: string[] } {
  rmSync(npmLog, { force: true });
  let output = '';
  for (const [i, step] of workflow.steps.entries()) {
    if (step.run === undefined) continue;
    const script = join(base, `step-${i}.sh`);
    writeFileSync(script, step.run);
    const r = spawnSync('bash', ['--noprofile', '--norc', '-eo', 'pipefail', script], {
      cwd: study,
      encoding: 'utf8',
      env: { ...process.env, ...env, PATH: `${bin}:${process.env.PATH}`, CI: 'true', GITHUB_ACTIONS: 'true' },
    });
    output += r.stdout + r.stderr;
    if (r.status !== 0) return { code: r.status ?? -1, output, npm: npmCalls() };
  }
  return { code: 0, output, npm: npmCalls() };
}
const npmCalls = () => (existsSync(npmLog) ? readFileSync(npmLog, 'utf8').trim().split('\n') : []);
const report = (study: string) => JSON.parse(readFileSync(join(study, 'work/ci/check-anchors.json'), 'utf8'));

describe('the CI workflow init writes', () => {
  it("is read by GitHub's parser without an error: push and pull request, Node 20, prereg from PREREG_SOURCE, check-anchors kept as an artifact", async () => {
    const study = join(base, 'plain');
    const created = await ok(['init', study]);
    expect(created.json.files).toContain('.github/workflows/prereg.yml');
    const w = await parsedWorkflow(join(study, '.github/workflows/prereg.yml'));
    expect(w.events).toEqual(['pull_request', 'push']);
    expect(w.env).toEqual({ PREREG_SOURCE: `tools/prereg-${VERSION}.tgz` });
    expect(w.shell).toBe('bash');
    expect(w.steps.map((s) => s.uses ?? s.name)).toEqual([
      'actions/checkout@v4',
      'actions/setup-node@v4',
      'install prereg from PREREG_SOURCE',
      'prereg check-anchors',
      'actions/upload-artifact@v4',
    ]);
    expect(w.steps[1]!.with).toEqual({ 'node-version': '20' });
    expect(w.steps[3]!.run).toContain('prereg check-anchors --root . --expect-freeze "$expected" --json');
    expect(w.steps[4]).toMatchObject({
      if: 'always()',
      with: { name: 'check-anchors', path: 'work/ci/check-anchors.json', 'if-no-files-found': 'ignore' },
    });
    // The source line is the one to change, and init's output says so and where the digest goes.
    expect(
      readFileSync(join(study, '.github/workflows/prereg.yml'), 'utf8')
        .split('\n')
        .filter((l) => l.includes('PREREG_SOURCE:')),
    ).toEqual([`  PREREG_SOURCE: tools/prereg-${VERSION}.tgz`]);
    expect(
      created.json.next.filter((l: string) => l.startsWith('echo FREEZE_DIGEST > ') && l.includes('plain/preregistration/FREEZE-DIGEST ')),
    ).toHaveLength(1);
    // Without the tarball the install step fails and says which line to change.
    const missing = runSteps(study, w);
    expect([missing.code, missing.npm]).toEqual([1, []]);
    expect(missing.output).toContain(
      `::error::PREREG_SOURCE=tools/prereg-${VERSION}.tgz is neither a file of this repository nor an https URL`,
    );
    // init's next: line, as a newcomer runs it with the tarball it installed prereg from, puts it where the workflow looks.
    const copy = (created.json.next as string[]).find((l) => l.startsWith('mkdir -p '))!.split('   (')[0]!;
    const installedFrom = tarball(`prereg-${VERSION}.tgz`, readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8'));
    expect(spawnSync('bash', ['-c', copy.replace(`PATH/TO/prereg-${VERSION}.tgz`, installedFrom)], { encoding: 'utf8' }).status).toBe(0);
    const added = runSteps(study, w);
    expect(added.code, added.output).toBe(0);
    expect(added.npm).toEqual([`install --global --no-audit --no-fund ./tools/prereg-${VERSION}.tgz`]);
    expect(added.output).toContain('::notice title=prereg::not frozen yet');
  });

  it('passes with a notice before the freeze, passes once frozen with its digest published, and fails after one corpus byte changed', async () => {
    const source = tarball(`prereg-${VERSION}.tgz`, readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8'));
    const study = join(base, 'rehearsal');
    const priv = `${study}.private`;
    const created = await ok(['init', study, '--rehearsal', '--opens-at', OPENS, '--closes-at', CLOSES, '--prereg-source', source]);
    expect(created.json.ci).toEqual({
      workflow: '.github/workflows/prereg.yml',
      prereg_source: `tools/prereg-${VERSION}.tgz`,
      prereg_source_kind: 'copied',
      prereg_version: VERSION,
      freeze_digest_file: 'preregistration/FREEZE-DIGEST',
    });
    expect(readFileSync(join(study, `tools/prereg-${VERSION}.tgz`)).equals(readFileSync(source))).toBe(true);
    const w = await parsedWorkflow(join(study, '.github/workflows/prereg.yml'));
    expect(w.env).toEqual({ PREREG_SOURCE: `tools/prereg-${VERSION}.tgz` });

    const before = runSteps(study, w);
    expect(before.code, before.output).toBe(0);
    expect(before.npm).toEqual([`install --global --no-audit --no-fund ./tools/prereg-${VERSION}.tgz`]);
    expect(before.output).toContain(`prereg ${VERSION}`);
    expect(before.output).toContain('::notice title=prereg::not frozen yet');

    const frozen = await ok([
      'freeze',
      '--root',
      study,
      '--answer-key',
      join(priv, 'answer-key.jsonl'),
      '--secret-file',
      join(priv, 'answer-key.secret'),
    ]);
    const digest = frozen.json.freeze_digest as string;
    const tsa = await devTsa(created.json.rehearsal.kit, '2026-11-10T09:50:00Z');
    await ok(['anchor', '--root', study, '--tsa', `dev=${tsa.url}`, '--retries', '0']);
    expect(await tsa.stop()).toBe(0);

    // Frozen, anchored, but no digest published: the CI does not go green on the study's word alone.
    const unpublished = runSteps(study, w);
    expect(unpublished.code).toBe(1);
    expect(unpublished.output).toContain('::error file=preregistration/FREEZE-DIGEST::the study is frozen but publishes no freeze_digest');

    writeFileSync(join(study, 'preregistration/FREEZE-DIGEST'), `${digest}\n`);
    const after = runSteps(study, w);
    expect(after.code, after.output).toBe(0);
    expect(report(study)).toMatchObject({
      schema_version: 'prereg.check-anchors/1',
      ok: true,
      freeze_digest: digest,
      expected_freeze: digest,
      independent_witnesses: 1,
      reason_codes: [],
    });
    expect(after.output).toContain(`check-anchors: every frozen digest recomputed and every anchor verified for freeze_digest ${digest}`);

    // A digest other than the freeze's (a re-freeze the study did not publish): non-zero.
    writeFileSync(join(study, 'preregistration/FREEZE-DIGEST'), `${'0'.repeat(64)}\n`);
    const other = runSteps(study, w);
    expect(other.code).toBe(1);
    expect(report(study).reason_codes).toEqual(['FREEZE_DIGEST_UNEXPECTED']);
    writeFileSync(join(study, 'preregistration/FREEZE-DIGEST'), `${digest}\n`);

    // The operator changes one corpus byte after the freeze, hoping nobody reruns the anchors.
    flipByte(join(study, 'corpus/sample.md'), { needle: '100' });
    const drifted = runSteps(study, w);
    expect(drifted.code).toBe(1);
    expect(drifted.output).toContain('::error::prereg check-anchors exited 1');
    expect(report(study).ok).toBe(false);
    expect(report(study).reason_codes).toContain('CORPUS_DRIFT');

    // And then removes freeze.json, hoping the CI falls back to "not frozen yet": the published digest and the anchors say otherwise.
    rmSync(join(study, 'preregistration/freeze.json'));
    const unfrozen = runSteps(study, w);
    expect(unfrozen.code).toBe(1);
    expect(unfrozen.output).toContain(
      '::error file=preregistration/freeze.json::no preregistration/freeze.json, yet the study publishes a freeze_digest',
    );
    expect(unfrozen.output).not.toContain('not frozen yet');
  });

  it('installs only from a file of the repository or an https URL: a package name in PREREG_SOURCE fails before npm runs', async () => {
    const study = join(base, 'named');
    await ok(['init', study]);
    const w = await parsedWorkflow(join(study, '.github/workflows/prereg.yml'));
    for (const name of ['prereg', 'prereg@0.3.0', 'someone/prereg']) {
      const r = runSteps(study, w, { PREREG_SOURCE: name });
      expect([r.code, r.npm], r.output).toEqual([1, []]);
      expect(r.output).toContain(`PREREG_SOURCE=${name} is neither a file of this repository nor an https URL`);
    }
    const url = runSteps(study, w, { PREREG_SOURCE: 'https://example.org/releases/prereg-0.3.0.tgz' });
    expect(url.npm).toEqual(['install --global --no-audit --no-fund https://example.org/releases/prereg-0.3.0.tgz']);
  });

  it('init refuses a --prereg-source that is a package name, not https, or not a prereg tarball, and writes nothing', async () => {
    const other = tarball('left-pad-1.0.0.tgz', JSON.stringify({ name: 'left-pad', version: '1.0.0' }));
    const notGzip = join(base, 'plain.tgz');
    writeFileSync(notGzip, 'not a tarball');
    // 65 MiB (sparse): refused by its size, never read whole.
    const big = join(base, 'big.tgz');
    writeFileSync(big, '');
    truncateSync(big, 65 * 1024 * 1024);
    for (const [source, says] of [
      ['prereg', 'is neither a file nor an https URL'],
      ['prereg@0.3.0', 'is neither a file nor an https URL'],
      ['http://example.org/prereg-0.3.0.tgz', 'is not an https URL'],
      ['https://example.org/prereg.tgz; curl evil', 'is not an https URL'],
      [other, 'is the package "left-pad", not prereg'],
      [notGzip, 'is not a gzip-compressed package tarball'],
      [big, 'is larger than 64 MiB'],
    ]) {
      const study = join(base, 'refused');
      const r = await runCli(['init', study, '--prereg-source', source!, '--json']);
      expect([r.code, r.json.code], r.stdout).toEqual([2, 'PREREG_SOURCE_INVALID']);
      expect(r.json.message).toContain(says);
      expect([existsSync(study), existsSync(`${study}.private`)]).toEqual([false, false]);
    }
  });

  it("docs/ci.md's GitLab CI job runs the workflow's two run: steps, line for line", async () => {
    const study = join(base, 'gitlab');
    await ok(['init', study]);
    const runs = (await parsedWorkflow(join(study, '.github/workflows/prereg.yml'))).steps.flatMap((s) =>
      s.run === undefined ? [] : [s.run.trimEnd()],
    );
    const doc = readFileSync(join(PROJECT_ROOT, 'docs/ci.md'), 'utf8');
    const job = doc.slice(doc.indexOf('## GitLab CI')).split('```yaml\n')[1]!.split('\n```')[0]!;
    const script = job.slice(job.indexOf('  script:\n') + '  script:\n'.length, job.indexOf('\n  artifacts:'));
    const entries = script
      .split('    - |\n')
      .filter((e) => e !== '')
      .map((e) =>
        e
          .split('\n')
          .map((l) => l.replace(/^ {6}/, ''))
          .join('\n')
          .trimEnd(),
      );
    expect(entries).toEqual(runs);
    expect(job).toContain('PREREG_SOURCE: tools/prereg-');
    expect(job).toContain('- work/ci/check-anchors.json');
  });
});
