// study.json protocol.expected_tools and systems[].tool_names (SPEC §13.3): the protocol names
// the actions each job logs, in order; a system may register its own name for each before the
// freeze. A tool_names key that is none of the expected tools renames nothing: freeze refuses it
// (STUDY_TOOL_NAME_UNKNOWN) and writes nothing, so a misspelt registration cannot leave an
// expected tool looked for under a name the system never logs.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PreregError } from '../../pipeline/reasons.ts';
import { expectedNamesOf, expectedToolsOf, loadStudy, type StudyConfig } from '../../pipeline/study/study.ts';
import { PROJECT_ROOT, runCli, scratchStudies } from '../support/cli.ts';

const example = JSON.parse(readFileSync(join(PROJECT_ROOT, 'preregistration/study.json'), 'utf8')) as {
  protocol?: Record<string, unknown>;
  systems: Array<Record<string, unknown>>;
} & Record<string, unknown>;
const dir = mkdtempSync(join(tmpdir(), 'prereg-expected-tools-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const fresh = scratchStudies();

/** The example with these expected tools (undefined: none) and these systems' tool_names. */
function studyWith(expected: unknown, names: Record<string, unknown> = {}, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const { expected_tools: _none, ...protocol } = example.protocol ?? {};
  return {
    ...example,
    protocol: expected === undefined ? protocol : { ...protocol, expected_tools: expected },
    systems: example.systems.map((s) =>
      names[s.system_id as string] === undefined ? s : { ...s, tool_names: names[s.system_id as string] },
    ),
    ...extra,
  };
}
function load(study: Record<string, unknown>): StudyConfig | string {
  const file = join(dir, 'study.json');
  writeFileSync(file, JSON.stringify(study));
  try {
    return loadStudy(file);
  } catch (err) {
    if (!(err instanceof PreregError)) throw err;
    return err.code;
  }
}
const codeOf = (study: Record<string, unknown>) => {
  const r = load(study);
  return typeof r === 'string' ? r : 'OK';
};

describe('protocol.expected_tools and tool_names', () => {
  it.each([
    ['expected tools, in order', 'OK', ['retrieve', 'generate'], {}],
    [
      "expected tools and a system's own names for them",
      'OK',
      ['retrieve', 'generate'],
      { 'sys-honest': { retrieve: 'search_corpus', generate: 'llm' } },
    ],
    ['a system renaming only one of them', 'OK', ['retrieve', 'generate'], { 'sys-honest': { retrieve: 'search_corpus' } }],
    [
      'a tool_names key that is no expected tool (misspelt)',
      'STUDY_TOOL_NAME_UNKNOWN',
      ['retrieve', 'generate'],
      { 'sys-honest': { retrieval: 'search_corpus' } },
    ],
    ['tool_names in a study that expects no tools', 'STUDY_TOOL_NAME_UNKNOWN', undefined, { 'sys-honest': { retrieve: 'search_corpus' } }],
    ['an empty list of expected tools', 'STUDY_INVALID', [], {}],
    ['an empty tool name', 'STUDY_INVALID', ['retrieve', ''], {}],
    ['an empty own name', 'STUDY_INVALID', ['retrieve'], { 'sys-honest': { retrieve: '' } }],
  ])('%s → %s', (_name, code, expected, names) => {
    expect(codeOf(studyWith(expected, names))).toBe(code);
  });

  it('are prereg.study/2 fields', () => {
    const {
      protocol: _p,
      intake: _i,
      statistics: _s,
      refusal_pattern: _r,
      refusal: _t,
      ...v1
    } = studyWith(undefined, { 'sys-honest': { retrieve: 'search_corpus' } });
    expect(
      codeOf({
        ...v1,
        format: 'prereg.study/1',
        systems: (v1.systems as Array<Record<string, unknown>>).map(({ agent_keys: _k, ...s }) => s),
      }),
    ).toBe('STUDY_INVALID');
  });

  it("each system logs the expected tools under its registered names, the others under the protocol's", () => {
    const study = load(studyWith(['retrieve', 'generate'], { 'sys-honest': { generate: 'llm' } }));
    if (typeof study === 'string') throw new Error(study);
    const expected = expectedToolsOf(study)!;
    expect(expected.tools).toEqual(['retrieve', 'generate']);
    expect(expectedNamesOf(expected, 'sys-honest')).toEqual(['retrieve', 'llm']);
    expect(expectedNamesOf(expected, 'copycat')).toEqual(['retrieve', 'generate']);
    expect(expectedNamesOf(expected, 'not-registered')).toEqual(['retrieve', 'generate']);
    const none = load(studyWith(undefined));
    expect(typeof none !== 'string' && expectedToolsOf(none)).toBe(null);
  });

  it('freeze refuses an unknown tool_names key with STUDY_TOOL_NAME_UNKNOWN and writes nothing', async () => {
    const root = fresh();
    const before = readFileSync(join(root, 'preregistration/freeze.json'));
    writeFileSync(
      join(root, 'preregistration/study.json'),
      JSON.stringify(studyWith(['retrieve', 'generate'], { 'sys-honest': { retrieval: 'search_corpus' } })),
    );
    const r = await runCli(['freeze', '--replace', '--reason', 'test refreeze', '--root', root, '--json']);
    const error = JSON.parse(r.stdout || r.stderr) as { code: string; message: string };
    expect([r.code, error.code]).toEqual([3, 'STUDY_TOOL_NAME_UNKNOWN']);
    expect(error.message).toContain('/systems/1/tool_names: "retrieval" names no tool of protocol.expected_tools ("retrieve", "generate")');
    expect(readFileSync(join(root, 'preregistration/freeze.json'))).toEqual(before);
  });
});

describe('validate tells a participant before sending', () => {
  it('notes every line whose timeline lacks an expected tool (EXPECTED_TOOL_MISSING), and still accepts it', async () => {
    // The example expects retrieve, then answer; sys-truncated's first ten items are timelines cut after retrieve.
    const r = await runCli(['validate', join(PROJECT_ROOT, 'inputs/submissions/sys-truncated.jsonl'), '--root', PROJECT_ROOT, '--json']);
    const out = r.json as { ok: boolean; notes: string[]; totals: { accepted: number; rejected: number } };
    expect([r.code, out.ok, out.totals.accepted, out.totals.rejected]).toEqual([0, true, 40, 0]);
    const tools = out.notes.filter((n) => n.includes(': EXPECTED_TOOL_MISSING: '));
    expect(tools.length).toBe(20);
    expect(tools[0]).toBe(
      `${join(PROJECT_ROOT, 'inputs/submissions/sys-truncated.jsonl')}:1: EXPECTED_TOOL_MISSING: sys-truncated/mp-001/1's timeline logs plan, retrieve; the study expects retrieve, answer in that order, and answer is missing: the line is accepted, but with require_receipts the record earns no proven credit`,
    );
  });
});
