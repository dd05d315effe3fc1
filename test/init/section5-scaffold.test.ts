// init scaffolds the example's section 5 into every new study (SPEC §12.6): the same code, byte
// for byte, whose hypotheses speak of the study's registered systems, never of the example's names.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { extractSection5 } from '../../pipeline/study/section5.ts';
import { PROJECT_ROOT, runCli } from '../support/cli.ts';

const scratch = mkdtempSync(join(tmpdir(), 'prereg-init-section5-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

it("a new study's section 5 is the example's, and names no system of the example", async () => {
  const dir = join(scratch, 'new-study');
  const r = await runCli([
    'init',
    dir,
    '--private-dir',
    join(scratch, 'private'),
    '--system',
    `team-a=${'a'.repeat(64)}`,
    '--system',
    `team-b=${'b'.repeat(64)}`,
  ]);
  expect(r.code, r.stdout + r.stderr).toBe(0);
  const scaffolded = extractSection5(readFileSync(join(dir, 'preregistration/PREREGISTRATION.md'), 'utf8'))!;
  const example = extractSection5(readFileSync(join(PROJECT_ROOT, 'preregistration/PREREGISTRATION.md'), 'utf8'))!;
  expect(scaffolded.sha256).toBe(example.sha256);
  const sql = example.sqlBlocks.map((b) => b.sql).join('\n');
  for (const name of ['sys-honest', 'sys-tampered', 'sys-truncated', 'copycat']) expect(sql).not.toContain(name);
  // Over the study's systems and the records the protocol expects (SPEC §13.1), refusals judged
  // from the answer, with a reason for every threshold, and no fixed-width 2^n.
  expect(sql).toContain('FROM coverage');
  expect(sql).toContain('FROM expected_records');
  expect(sql).toContain('JOIN record_refusals');
  expect(sql).toContain('v(hypothesis_id, statement, threshold, direction, quantifier, reason)');
  // Hypotheses decided by the exact test and Holm across the family (SPEC §13.2), with the functions prereg registers.
  for (const f of [
    'prereg_binomial_at_least(',
    'prereg_binomial_at_most(',
    'prereg_holm(',
    'prereg_clopper_pearson_lower(',
    "getvariable('alpha')",
  ])
    expect(sql).toContain(f);
  expect(sql).not.toMatch(/<<|HUGEINT/);
  // The facts that section 5 reads are declared in every new study: a refusal pattern and its tail, the attempts.
  const study = JSON.parse(readFileSync(join(dir, 'preregistration/study.json'), 'utf8')) as Record<string, unknown>;
  expect(study).toMatchObject({ protocol: { attempts_per_item: 1 }, refusal: { max_tail_chars: 200 } });
  expect(new RegExp(String(study.refusal_pattern), 'u').test('I cannot answer this from the corpus.')).toBe(true);
});

it('init --attempts N writes protocol.attempts_per_item; a value out of 1–1000 is a usage error', async () => {
  const dir = join(scratch, 'three-attempts');
  const r = await runCli([
    'init',
    dir,
    '--private-dir',
    join(scratch, 'three-private'),
    '--system',
    `team-a=${'a'.repeat(64)}`,
    '--attempts',
    '3',
  ]);
  expect(r.code, r.stdout + r.stderr).toBe(0);
  expect(JSON.parse(readFileSync(join(dir, 'preregistration/study.json'), 'utf8')).protocol).toEqual({ attempts_per_item: 3 });
  const bad = await runCli(['init', join(scratch, 'zero-attempts'), '--private-dir', join(scratch, 'zero-private'), '--attempts', '0']);
  expect(bad.code).toBe(2);
});

it('doctor flags a section 5 that names a system study.json does not register (SECTION5_SYSTEM_UNKNOWN)', async () => {
  const dir = join(scratch, 'named-study');
  const r = await runCli(['init', dir, '--private-dir', join(scratch, 'named-private'), '--system', `team-a=${'a'.repeat(64)}`]);
  expect(r.code, r.stdout + r.stderr).toBe(0);
  const clean = await runCli(['doctor', '--root', dir, '--json']);
  expect(clean.json.warnings.filter((w: string) => w.startsWith('SECTION5_SYSTEM_UNKNOWN'))).toEqual([]);
  const plan = join(dir, 'preregistration/PREREGISTRATION.md');
  const text = readFileSync(plan, 'utf8');
  // A hypothesis written over the example's name, as the scaffold once did, and one over a registered system.
  const edited = text.replace(
    "FROM s WHERE metric = 'positives_citing_expected'\nUNION ALL\n-- A proven citation",
    "FROM s WHERE metric = 'positives_citing_expected' AND system_id IN ('sys-honest', 'team-a')\nUNION ALL\n-- A proven citation",
  );
  expect(edited).not.toBe(text);
  writeFileSync(plan, edited);
  const doctor = await runCli(['doctor', '--root', dir, '--json']);
  const flagged = doctor.json.warnings.filter((w: string) => w.startsWith('SECTION5_SYSTEM_UNKNOWN'));
  expect(flagged).toHaveLength(1);
  expect(flagged[0]).toMatch(/^SECTION5_SYSTEM_UNKNOWN: preregistration\/PREREGISTRATION\.md:\d+: section 5 names the system "sys-honest"/);
});
