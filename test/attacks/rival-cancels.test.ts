// A rival participant's attacks on an honest system's proven credit (SPEC §12.3, issue 21), each
// replayed on a hand-built registered study run end to end from the CLI (`prereg run`), reading
// results.json. What the rival may do: submit anything under its own system_id, with proofs it
// bought itself from the same service, and write any field no signature covers. The honest
// system's proven score must not move.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { articlePassages } from '../../scripts/generate-example-submissions.ts';
import { PROJECT_ROOT, runCli, TEST_OPERATOR_ARGS } from '../support/cli.ts';
import { buildSmallStudy, type HandRecord, type SmallStudyOptions } from '../support/small-study.ts';

const passages = articlePassages(join(PROJECT_ROOT, 'corpus'), [
  'code-commande-publique/partie-reglementaire.md',
  'code-commande-publique/partie-legislative.md',
  'ccag-travaux.md',
]);
const served = (...refs: string[]) => refs.map((ref) => ({ ref, text: passages.get(ref)! }));

/** Three positives answered with their expected reference, each with the system's own evidence. */
function answers(system: string, extra: Partial<HandRecord> = {}): HandRecord[] {
  return [
    {
      system,
      item: 'mp-001',
      attempt: 1,
      text: "Selon l'article R2122-8, le seuil est de 40 000 euros hors taxes.",
      passages: served('R2122-8'),
      ...extra,
    },
    { system, item: 'mp-014', attempt: 1, text: 'Voir le CCAG Travaux 4.', passages: served('CCAG Travaux 4'), ...extra },
    {
      system,
      item: 'mp-005',
      attempt: 1,
      text: "Selon l'article R2121-1, la valeur estimée du besoin est calculée.",
      passages: served('R2121-1'),
      ...extra,
    },
  ];
}

/** positives_citing_expected per system, "proven/n_proven", over the 48 expected positive records (SPEC §13.1), after `prereg run`. */
async function provenCiting(records: HandRecord[], options: SmallStudyOptions = {}): Promise<Record<string, string>> {
  const study = await buildSmallStudy(records, options);
  try {
    const run = await runCli(['run', '--root', study.root, '--outputs', join(study.root, 'outputs'), ...TEST_OPERATOR_ARGS, '--json']);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const results = JSON.parse(readFileSync(join(run.json.dir, 'results.json'), 'utf8')) as { scores: Array<Record<string, unknown>> };
    return Object.fromEntries(
      results.scores
        .filter((s) => s.metric === 'positives_citing_expected')
        .map((s) => [s.system_id, `${String(s.proven)}/${String(s.n_proven)}`]),
    );
  } finally {
    study.cleanup();
  }
}

const honest = (extra: Partial<HandRecord> = {}) =>
  answers('sys-honest', extra).map((r, i) => ({ ...r, proofId: `prf_honest_${i}`, ...extra }));

describe("a rival cannot cancel an honest system's proven credit", () => {
  it('alone, the honest system has 3/3 proven', async () => {
    expect((await provenCiting(honest()))['sys-honest']).toBe('3/48');
  }, 120_000);

  it('by submitting its own verified, bound proofs with only the unsigned proof_id set to the honest ones', async () => {
    const rival = answers('rival').map((r, i) => ({ ...r, proofId: `prf_honest_${i}` }));
    const scores = await provenCiting([...honest(), ...rival]);
    expect(scores).toEqual({ 'sys-honest': '3/48', rival: '3/48' });
  }, 120_000);

  it('by buying the same queries from a deterministic service (byte-identical responses, its own proofs)', async () => {
    const scores = await provenCiting([...honest({ deterministic: true }), ...answers('rival', { deterministic: true })]);
    expect(scores).toEqual({ 'sys-honest': '3/48', rival: '3/48' });
  }, 120_000);

  it('nor does the honest system cancel itself by two attempts that a deterministic service answered alike', async () => {
    const twice = [...answers('sys-honest', { deterministic: true }), ...answers('sys-honest', { deterministic: true, attempt: 2 })];
    expect((await provenCiting(twice))['sys-honest']).toBe('6/48');
  }, 120_000);
});
