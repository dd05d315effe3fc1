// The operator rewriting the plan after the freeze (SPEC §13.3, issue 35 point 1): a sentence added
// to section 1 after seeing the results ("the primary metric is now whichever favours sys-honest").
// The operator holds every file of the study; what it cannot change is the freeze its anchors
// witnessed. Every section of PREREGISTRATION.md is digested at freeze, so check-anchors, doctor,
// run and the audit refuse the rewritten plan, naming the section.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AuditReport } from '../../pipeline/audit/rails.ts';
import { auditorFlags } from '../support/auditor.ts';
import { runCli, scratchStudies, TEST_OPERATOR_ARGS } from '../support/cli.ts';

const study = scratchStudies();
const PLAN = 'preregistration/PREREGISTRATION.md';
const REWRITE = 'verified evidence rather than declared by the submission?\n\nThe primary metric is now whichever favours sys-honest.\n';

function edit(root: string, change: (text: string) => string): void {
  const path = join(root, PLAN);
  const text = readFileSync(path, 'utf8');
  const next = change(text);
  if (next === text) throw new Error('nothing changed');
  writeFileSync(path, next);
}
const rewriteSection1 = (t: string) => t.replace('verified evidence rather than declared by the submission?\n', REWRITE);

describe('a plan rewritten after the freeze', () => {
  it('section 1 rewritten: check-anchors (exit 1), doctor and run (exit 3) refuse with PREREGISTRATION_DRIFT naming section 1 and its line', async () => {
    const root = study();
    edit(root, rewriteSection1);
    const checked = await runCli(['check-anchors', '--root', root, '--json']);
    expect([checked.code, checked.json.reason_codes]).toEqual([1, ['PREREGISTRATION_DRIFT']]);
    expect(checked.json.findings).toEqual([
      expect.objectContaining({ code: 'PREREGISTRATION_DRIFT', file: PLAN, section: '## 1. Question', line: 8 }),
    ]);
    expect(checked.json.digests.plan_sections.ok).toBe(false);
    expect(checked.json.digests.section5_sha256.ok).toBe(true);
    const text = await runCli(['check-anchors', '--root', root]);
    expect(text.stdout).toContain(`PREREGISTRATION_DRIFT: ${PLAN}: plan_sections: ${PLAN}:8: section "1. Question" hashes to`);

    const doctor = await runCli(['doctor', '--root', root, '--json']);
    const codes = (doctor.json.stages as Array<{ stage: string; problems: Array<{ code: string; message: string }> }>).find(
      (s) => s.stage === 'run',
    )!.problems;
    expect([doctor.code, codes.map((p) => p.code)]).toEqual([3, expect.arrayContaining(['PREREGISTRATION_DRIFT'])]);
    expect(codes.find((p) => p.code === 'PREREGISTRATION_DRIFT')!.message).toContain('section "1. Question"');

    const run = await runCli(['run', '--root', root, ...TEST_OPERATOR_ARGS, '--json']);
    expect([run.code, run.json.code]).toEqual([3, 'PREREGISTRATION_DRIFT']);
    expect(run.json.message).toContain('section "1. Question"');
  }, 120_000);

  it('section 1 rewritten after the run: the audit is INVALID (anchors rail: PREREGISTRATION_DRIFT)', async () => {
    const root = study();
    const r = await runCli(['run', '--root', root, ...TEST_OPERATOR_ARGS, '--json']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    edit(root, rewriteSection1);
    const a = await runCli(['audit', r.json.dir as string, '--root', root, ...auditorFlags(), '--json']);
    const report = a.json as AuditReport;
    expect([a.code, report.verdict]).toEqual([1, 'invalid']);
    const anchors = report.rails.find((x) => x.name === 'anchors')!;
    expect([anchors.ok, anchors.reason_codes]).toEqual([false, ['PREREGISTRATION_DRIFT']]);
    expect(JSON.stringify(anchors.differences)).toContain('section \\"1. Question\\"');
  }, 180_000);

  it.each([
    ['the title block', (t: string) => t.replace('frozen whole', 'frozen, mostly'), [''], [1]],
    [
      'a section added',
      (t: string) => t.replace('## 6. Interpretation', '## 5b. Exploratory\n\nAnything goes.\n\n## 6. Interpretation'),
      ['## 5b. Exploratory'],
      [expect.any(Number)],
    ],
    ['a section removed', (t: string) => t.replace(/## 6\. Interpretation\n[\s\S]*?(?=## 7)/, ''), ['## 6. Interpretation'], [undefined]],
    [
      'section 7 (deviations) edited',
      (t: string) => t.replace('never written here', 'written here'),
      ['## 7. Deviations'],
      [expect.any(Number)],
    ],
  ])(
    '%s: PREREGISTRATION_DRIFT naming it',
    async (_, change, sections, lines) => {
      const root = study();
      edit(root, change);
      const r = await runCli(['check-anchors', '--root', root, '--json']);
      expect([r.code, r.json.reason_codes]).toEqual([1, ['PREREGISTRATION_DRIFT']]);
      expect(r.json.findings.map((f: { section: string; line?: number }) => [f.section, f.line])).toEqual(
        sections.map((s, i) => [s, lines[i]]),
      );
    },
    60_000,
  );

  it('two sections swapped: drift (their order is frozen too); CRLF line endings: no drift (normalised, as section 5)', async () => {
    const root = study();
    edit(root, (t) => {
      const s2 = t.slice(t.indexOf('## 2.'), t.indexOf('## 3.'));
      const s3 = t.slice(t.indexOf('## 3.'), t.indexOf('## 4.'));
      return t.replace(s2 + s3, s3 + s2);
    });
    const swapped = await runCli(['check-anchors', '--root', root, '--json']);
    expect([swapped.code, swapped.json.reason_codes]).toEqual([1, ['PREREGISTRATION_DRIFT']]);
    expect(swapped.json.findings[0].message).toContain('another order');

    const crlf = study();
    edit(crlf, (t) => t.replace(/\n/g, '\r\n'));
    expect((await runCli(['check-anchors', '--root', crlf, '--json'])).code).toBe(0);
  }, 60_000);

  it('section 5 edited: SECTION5_DRIFT, not PREREGISTRATION_DRIFT, and run refuses with SECTION5_DRIFT first when both drifted', async () => {
    const root = study();
    edit(root, (t) => t.replace("at least 80% of its positive answers', 0.8,", "at least 80% of its positive answers', 0.7,"));
    const r = await runCli(['check-anchors', '--root', root, '--json']);
    expect([r.code, r.json.reason_codes]).toEqual([1, ['SECTION5_DRIFT']]);
    edit(root, rewriteSection1);
    const both = await runCli(['check-anchors', '--root', root, '--json']);
    expect(both.json.reason_codes).toEqual(['PREREGISTRATION_DRIFT', 'SECTION5_DRIFT']);
    const run = await runCli(['run', '--root', root, ...TEST_OPERATOR_ARGS, '--json']);
    expect([run.code, run.json.code]).toEqual([3, 'SECTION5_DRIFT']);
  }, 60_000);
});
