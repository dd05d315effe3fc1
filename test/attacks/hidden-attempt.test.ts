// An attempt made and hidden (SPEC §12.5): a system commits to a job — its AER-1 timeline's final
// digest, before closes_at — and then does not submit it, keeping only its better attempts. Only
// a commitment that binds the system (signed by one of its agent keys, or received from it
// through intake) can say the job was its own: JOB_NOT_SUBMITTED, in coverage. A rival who
// publishes commitments in an honest system's name, unsigned or signed by its own key, can make
// nobody but itself look as if it hid an attempt, and nobody's score moves.
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { signCanonical } from '../../pipeline/evidence/intake/ed25519.ts';
import { canonicalJson } from '../../pipeline/formats/canonical-json.ts';
import { articlePassages } from '../../scripts/generate-example-submissions.ts';
import { PROJECT_ROOT, runCli, TEST_OPERATOR_ARGS } from '../support/cli.ts';
import { buildSmallStudy, type HandRecord } from '../support/small-study.ts';

const passages = articlePassages(join(PROJECT_ROOT, 'corpus'), ['code-commande-publique/partie-reglementaire.md', 'ccag-travaux.md']);
const served = (...refs: string[]) => refs.map((ref) => ({ ref, text: passages.get(ref)! }));
const RECORDS: HandRecord[] = [
  {
    system: 'sys-honest',
    item: 'mp-001',
    attempt: 1,
    text: "Selon l'article R2122-8, le seuil est de 40 000 euros hors taxes.",
    passages: served('R2122-8'),
  },
  { system: 'sys-honest', item: 'mp-014', attempt: 1, text: 'Voir le CCAG Travaux 4.', passages: served('CCAG Travaux 4') },
  {
    system: 'rival',
    item: 'mp-001',
    attempt: 1,
    text: "Selon l'article R2122-8, le seuil est de 40 000 euros hors taxes.",
    passages: served('R2122-8'),
  },
];
const keys: Record<string, KeyObject> = {
  'sys-honest': generateKeyPairSync('ed25519').privateKey,
  rival: generateKeyPairSync('ed25519').privateKey,
};

/** A commitment to a job, as its owner would publish it before closes_at. */
const commitment = (job_id: string) => ({
  job_id,
  final_entry_digest: 'a'.repeat(64),
  entry_count: 2,
  published_at: '2026-11-10T12:00:00Z',
});
const signedBy = (system: string, c: Record<string, unknown>) => ({ ...c, signature: signCanonical(keys[system]!, c) });
const lines = (cs: readonly unknown[]) => `${cs.map((c) => canonicalJson(c)).join('\n')}\n`;

interface Coverage {
  systems: Array<{ system_id: string; expected: number; submitted: number; missing: number; jobs_not_submitted: number }>;
  jobs_not_submitted: Array<{ system_id: string; job_id: string; reason_code: string; bound_by: string[]; file: string; line_no: number }>;
}

/** `prereg run` on the small study after `publish`; its coverage and its proven scores, from results.json. */
async function runWith(publish: (root: string) => void): Promise<{ coverage: Coverage; proven: Record<string, string> }> {
  const study = await buildSmallStudy(RECORDS, { agentKeys: keys });
  try {
    publish(study.root);
    const run = await runCli(['run', '--root', study.root, '--outputs', join(study.root, 'outputs'), ...TEST_OPERATOR_ARGS, '--json']);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const results = JSON.parse(readFileSync(join(run.json.dir, 'results.json'), 'utf8')) as {
      coverage: Coverage;
      scores: Array<Record<string, unknown>>;
    };
    const proven = Object.fromEntries(
      results.scores
        .filter((s) => s.metric === 'positives_citing_expected')
        .map((s) => [String(s.system_id), `${String(s.proven)}/${String(s.n_proven)}`]),
    );
    return { coverage: results.coverage, proven };
  } finally {
    study.cleanup();
  }
}

describe('coverage: what the protocol expected, and the attempts made and not submitted', () => {
  it('counts expected, submitted and missing records per system, and no hidden job without a commitment that binds one', async () => {
    const out = await runWith(() => {});
    // The example's protocol: 20 items, 3 attempts each.
    expect(out.coverage.systems.map((s) => [s.system_id, s.expected, s.submitted, s.missing, s.jobs_not_submitted])).toEqual([
      ['rival', 60, 1, 59, 0],
      ['sys-honest', 60, 2, 58, 0],
    ]);
    expect(out.coverage.jobs_not_submitted).toEqual([]);
    expect(out.proven).toEqual({ rival: '1/48', 'sys-honest': '2/48' });
  }, 240_000);

  it("lists a job the system signed a commitment to and did not submit; a rival's commitments in its name count for nobody but the rival", async () => {
    const out = await runWith((root) =>
      appendFileSync(
        join(root, 'inputs/commitments.jsonl'),
        lines([
          // sys-honest's own signed commitment to a job it then kept back.
          signedBy('sys-honest', commitment('job-sys-honest-hidden')),
          // A rival frames sys-honest: unsigned, anyone could have published it.
          commitment('job-sys-honest-framed'),
          // The same, signed with the rival's own key: it binds the rival, so it is the rival's hidden job.
          signedBy('rival', commitment('job-sys-honest-framed-2')),
        ]),
      ),
    );
    expect(out.coverage.jobs_not_submitted.map((j) => [j.system_id, j.job_id, j.reason_code, j.bound_by])).toEqual([
      ['rival', 'job-sys-honest-framed-2', 'JOB_NOT_SUBMITTED', ['signature']],
      ['sys-honest', 'job-sys-honest-hidden', 'JOB_NOT_SUBMITTED', ['signature']],
    ]);
    expect(out.coverage.jobs_not_submitted[1]).toMatchObject({ file: 'inputs/commitments.jsonl' });
    expect(out.coverage.systems.map((s) => [s.system_id, s.jobs_not_submitted])).toEqual([
      ['rival', 1],
      ['sys-honest', 1],
    ]);
    // Listed, never scored: nobody's proven score moves.
    expect(out.proven).toEqual({ rival: '1/48', 'sys-honest': '2/48' });
  }, 240_000);

  it("lists a job in a system's own intake commitments file, and a rival's intake file naming the honest system's submitted job binds only the rival", async () => {
    const out = await runWith((root) => {
      mkdirSync(join(root, 'inputs/commitments'), { recursive: true });
      writeFileSync(join(root, 'inputs/commitments/sys-honest.jsonl'), lines([commitment('job-kept-back')]));
      // The honest system's real jobs, named in the rival's own file: the rival's records claim none of them.
      const honestJobs = readFileSync(join(root, 'inputs/commitments.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { job_id: string })
        .filter((c) => c.job_id.startsWith('job-sys-honest/'));
      expect(honestJobs.length).toBe(2);
      writeFileSync(join(root, 'inputs/commitments/rival.jsonl'), lines(honestJobs));
    });
    const hidden = out.coverage.jobs_not_submitted.map((j) => [
      j.system_id,
      j.job_id.startsWith('job-sys-honest/') ? 'an honest job' : j.job_id,
      j.bound_by,
      j.file,
    ]);
    expect(hidden).toEqual([
      ['rival', 'an honest job', ['intake'], 'inputs/commitments/rival.jsonl'],
      ['rival', 'an honest job', ['intake'], 'inputs/commitments/rival.jsonl'],
      ['sys-honest', 'job-kept-back', ['intake'], 'inputs/commitments/sys-honest.jsonl'],
    ]);
    expect(out.proven).toEqual({ rival: '1/48', 'sys-honest': '2/48' });
  }, 240_000);
});
