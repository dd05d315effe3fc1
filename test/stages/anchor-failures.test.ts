// One mapping from a failing anchor to the code it is reported under, for check-anchors and doctor
// (freeze/anchors.ts): each failing anchor below is played through both commands, and both must
// name the same anchor files with the same codes. Who gains from the two disagreeing: the
// operator, whose doctor would say "ready" (or name a milder code) for a freeze that check-anchors,
// CI and the audit then fail — an amendment anchored once the window had opened above all.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXAMPLE_ANCHOR_GEN_TIME } from '../../scripts/rebuild-example.ts';
import { amend } from '../support/amendment.ts';
import { runCli, scratchStudies } from '../support/cli.ts';
import { startTsaServer } from '../support/tsa/http-tsa.ts';

const study = scratchStudies();
const ANCHORS = 'preregistration/anchors';
const LATE = '2026-11-05T12:00:00Z'; // after the example's opens_at (2026-11-02)
/** The codes a failing anchor is reported under (ANCHOR_INSUFFICIENT is the count, not an anchor). */
const ANCHOR_CODES = ['ANCHOR_INVALID', 'ANCHOR_METADATA_MISMATCH', 'ANCHOR_AFTER_OPEN', 'AMENDMENT_AFTER_OPEN'];

function edit(path: string, from: string, to: string): void {
  const text = readFileSync(path, 'utf8');
  if (!text.includes(from)) throw new Error(`nothing to replace in ${path}`);
  writeFileSync(path, text.replace(from, to));
}

/** A second witness, dated `genTime` by the example's TEST-ONLY TSA. */
async function anchorAgain(root: string, witness: string, genTime: string): Promise<void> {
  const tsa = await startTsaServer({ backend: 'pkijs', genTime });
  try {
    const r = await runCli(['anchor', '--root', root, '--tsa', `${witness}=${tsa.url}`, '--json']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
  } finally {
    await tsa.close();
  }
}

/** [file, code] of each failing anchor, as check-anchors reports them. */
async function byCheckAnchors(root: string): Promise<string[][]> {
  const r = await runCli(['check-anchors', '--root', root, '--json']);
  return r.json.findings
    .filter((f: { code: string }) => ANCHOR_CODES.includes(f.code))
    .map((f: { file: string; code: string }) => [f.file, f.code]);
}

/** [file, code] of each failing anchor, as doctor reports them (under the anchor stage; check-anchors' line repeats it). */
async function byDoctor(root: string): Promise<string[][]> {
  const r = await runCli(['doctor', '--root', root, '--json']);
  const stage = r.json.stages.find((s: { stage: string }) => s.stage === 'anchor');
  return stage.problems
    .filter((p: { code: string }) => ANCHOR_CODES.includes(p.code))
    .map((p: { code: string; message: string }) => [p.message.slice(0, p.message.indexOf(': ')), p.code]);
}

const cases: Array<[string, (root: string) => unknown, string[][]]> = [
  [
    'its metadata names another witness',
    (root) => edit(join(root, ANCHORS, 'local-test-tsa.json'), '"witness": "local-test-tsa"', '"witness": "independent-notary"'),
    [[`${ANCHORS}/local-test-tsa.tsr`, 'ANCHOR_METADATA_MISMATCH']],
  ],
  [
    'its metadata removed',
    (root) => rmSync(join(root, ANCHORS, 'local-test-tsa.json')),
    [[`${ANCHORS}/local-test-tsa.tsr`, 'ANCHOR_METADATA_MISMATCH']],
  ],
  [
    'its token corrupted',
    (root) => writeFileSync(join(root, ANCHORS, 'local-test-tsa.tsr'), Buffer.from('not a token')),
    [[`${ANCHORS}/local-test-tsa.tsr`, 'ANCHOR_INVALID']],
  ],
  [
    'a second witness dated after opens_at',
    (root) => anchorAgain(root, 'late-tsa', LATE),
    [[`${ANCHORS}/late-tsa.tsr`, 'ANCHOR_AFTER_OPEN']],
  ],
  [
    'a second witness dated after opens_at, its metadata edited too (two rules: the token is no anchor)',
    async (root) => {
      await anchorAgain(root, 'late-tsa', LATE);
      edit(join(root, ANCHORS, 'late-tsa.json'), '"witness": "late-tsa"', '"witness": "early-tsa"');
    },
    [[`${ANCHORS}/late-tsa.tsr`, 'ANCHOR_INVALID']],
  ],
  [
    'an amendment anchored once the window had opened',
    (root) => amend(root, LATE),
    [[`${ANCHORS}/local-test-tsa.tsr`, 'AMENDMENT_AFTER_OPEN']],
  ],
  [
    'an amendment whose opens_at is later, anchored after the first opens_at',
    async (root) => {
      edit(join(root, 'preregistration/study.json'), '"opens_at": "2026-11-02T00:00:00Z"', '"opens_at": "2026-11-10T00:00:00Z"');
      await amend(root, LATE);
    },
    [[`${ANCHORS}/local-test-tsa.tsr`, 'AMENDMENT_AFTER_OPEN']],
  ],
  [
    "the kept freeze's token corrupted after an amendment in time",
    async (root) => {
      await amend(root, EXAMPLE_ANCHOR_GEN_TIME);
      writeFileSync(join(root, 'preregistration/amendments/1/anchors/local-test-tsa.tsr'), Buffer.from('not a token'));
    },
    [['preregistration/amendments/1/anchors/local-test-tsa.tsr', 'ANCHOR_INVALID']],
  ],
];

describe('a failing anchor, through check-anchors and doctor', () => {
  it('a kept freeze removed: the chain is broken (FREEZE_CHAIN_BROKEN) for both, naming the freeze that amends it', async () => {
    const root = study();
    await amend(root, EXAMPLE_ANCHOR_GEN_TIME);
    rmSync(join(root, 'preregistration/amendments/1'), { recursive: true });
    const checked = await runCli(['check-anchors', '--root', root, '--json']);
    expect(
      checked.json.findings.filter((f: { code: string }) => f.code === 'FREEZE_CHAIN_BROKEN').map((f: { file: string }) => f.file),
    ).toEqual(['preregistration/freeze.json']);
    const doctor = await runCli(['doctor', '--root', root, '--json']);
    const stage = doctor.json.stages.find((st: { stage: string }) => st.stage === 'check-anchors');
    expect(stage.status).toBe('blocked');
    const broken = stage.problems.filter((p: { code: string }) => p.code === 'FREEZE_CHAIN_BROKEN');
    expect(broken).toHaveLength(1);
    expect(broken[0].message).toMatch(
      /^preregistration\/freeze\.json amends the freeze [0-9a-f]{64}, which no preregistration\/amendments\/<n>\/freeze\.json holds$/,
    );
  }, 120_000);

  it.each(cases)(
    '%s: the same files and codes in both',
    async (_, change, expected) => {
      const root = study();
      await change(root);
      expect(await byCheckAnchors(root)).toEqual(expected);
      expect(await byDoctor(root)).toEqual(expected);
    },
    120_000,
  );
});
