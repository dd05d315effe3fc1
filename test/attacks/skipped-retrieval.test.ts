// A system that skips retrieval and answers from memory while claiming grounded answers (SPEC
// §13.3): its job logs only "generate", yet the record carries a real, VERIFIED proof of a
// retrieval — bought elsewhere — whose response bytes it logged under "generate", so the proof
// links to an entry of an ANCHORED timeline. The study's protocol expects retrieve, then generate
// (study.json protocol.expected_tools), and the trust policy requires receipts: the record earns no
// proven credit, is EXPECTED_TOOL_MISSING in coverage, and its timeline stays ANCHORED (anchoring
// and coverage are two objects). A system that registered its own tool names is judged by them,
// and only by them. Played through `prereg run` on a hand-built study; counts written by hand.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { articlePassages } from '../../scripts/generate-example-submissions.ts';
import { PROJECT_ROOT } from '../support/cli.ts';
import { buildSmallStudy, runSmallStudy, type HandRecord } from '../support/small-study.ts';
import { queryStore } from '../support/store-query.ts';

const passages = articlePassages(join(PROJECT_ROOT, 'corpus'), ['code-commande-publique/partie-reglementaire.md', 'ccag-travaux.md']);
const served = (...refs: string[]) => refs.map((ref) => ({ ref, text: passages.get(ref)! }));
const R2122_8 = {
  item: 'mp-001',
  attempt: 1,
  text: "Selon l'article R2122-8, le seuil est de 40 000 euros hors taxes.",
  passages: served('R2122-8'),
};
const CCAG_4 = { item: 'mp-014', attempt: 1, text: 'Voir le CCAG Travaux 4.', passages: served('CCAG Travaux 4') };
const RECORDS: HandRecord[] = [
  // Retrieves, then generates: what the protocol expects.
  {
    system: 'sys-honest',
    ...R2122_8,
    tools: [
      { tool: 'retrieve', bytes: 'response' },
      { tool: 'generate', bytes: 'answer' },
    ],
  },
  // Skips retrieval: one "generate" entry, whose bytes are a bought response (the proof links).
  { system: 'sys-memory', ...R2122_8, tools: [{ tool: 'generate', bytes: 'response' }] },
  // Registered its own names (search_corpus, llm) and logs them, with a step nobody expects.
  {
    system: 'sys-renamed',
    ...R2122_8,
    tools: [
      { tool: 'search_corpus', bytes: 'response' },
      { tool: 'web_search', bytes: 'answer' },
      { tool: 'llm', bytes: 'answer' },
    ],
  },
  // The same system logging the protocol's names instead of the ones it registered: not its actions.
  {
    system: 'sys-renamed',
    ...CCAG_4,
    tools: [
      { tool: 'retrieve', bytes: 'response' },
      { tool: 'generate', bytes: 'answer' },
    ],
  },
];

/** The example study, registering the records' systems, with the protocol's expected tools and sys-renamed's own names for them. */
function expectingTools(studyText: string): string {
  const study = JSON.parse(studyText) as { protocol: Record<string, unknown>; systems: Array<Record<string, unknown>> };
  study.protocol.expected_tools = ['retrieve', 'generate'];
  for (const s of study.systems) if (s.system_id === 'sys-renamed') s.tool_names = { retrieve: 'search_corpus', generate: 'llm' };
  return `${JSON.stringify(study, null, 2)}\n`;
}

interface Results {
  scores: Array<Record<string, unknown>>;
  coverage: {
    systems: Array<{ system_id: string; expected_tools_missing: number | null; unexpected_tools: string[] | null }>;
    expected_tools_missing: Array<Record<string, unknown>>;
  };
}

/** `prereg run` on the hand-built study expecting tools, with the policy's require_receipts; its results.json, and the study's root while `inspect` runs. */
async function runStudy(requireReceipts: boolean, inspect: (results: Results, root: string, dir: string) => Promise<void>): Promise<void> {
  const study = await buildSmallStudy(RECORDS, { editStudy: expectingTools, requireReceipts });
  try {
    const { dir, results } = await runSmallStudy<Results>(study.root);
    await inspect(results, study.root, dir);
  } finally {
    study.cleanup();
  }
}

const citingExpected = (results: Results) =>
  Object.fromEntries(
    results.scores
      .filter((s) => s.metric === 'positives_citing_expected')
      .map((s) => [String(s.system_id), `${String(s.declared)} declared, ${String(s.proven)} proven`]),
  );

describe('expected tools: a job that skipped retrieval earns no proven credit', () => {
  it('with require_receipts: no proven credit, counted and listed in coverage, the timeline still ANCHORED; registered names honoured', async () => {
    await runStudy(true, async (results, root, dir) => {
      const citing = citingExpected(results);
      // The declared column takes the submission at its word; the proven one does not credit a job that skipped an expected action.
      expect(citing).toEqual({
        'sys-honest': '1 declared, 1 proven',
        'sys-memory': '1 declared, 0 proven',
        'sys-renamed': '2 declared, 1 proven',
      });
      expect(results.coverage.systems.map((s) => [s.system_id, s.expected_tools_missing, s.unexpected_tools])).toEqual([
        ['sys-honest', 0, []],
        ['sys-memory', 1, []],
        ['sys-renamed', 1, ['generate', 'retrieve', 'web_search']],
      ]);
      expect(
        results.coverage.expected_tools_missing.map((r) => [
          r.system_id,
          r.item_id,
          r.attempt,
          r.missing_tools,
          r.logged_tools,
          r.reason_code,
          r.file,
        ]),
      ).toEqual([
        ['sys-memory', 'mp-001', 1, ['retrieve'], ['generate'], 'EXPECTED_TOOL_MISSING', 'inputs/submissions/sys-memory.jsonl'],
        [
          'sys-renamed',
          'mp-014',
          1,
          ['retrieve', 'generate'],
          ['retrieve', 'generate'],
          'EXPECTED_TOOL_MISSING',
          'inputs/submissions/sys-renamed.jsonl',
        ],
      ]);
      // Anchoring is another object: every timeline is as ANCHORED as before.
      const chains = await queryStore(root, 'SELECT system_id, item_id, status FROM chain_checks ORDER BY system_id, item_id');
      expect(chains.map((c) => `${String(c.system_id)}/${String(c.item_id)} ${String(c.status)}`)).toEqual([
        'sys-honest/mp-001 ANCHORED',
        'sys-memory/mp-001 ANCHORED',
        'sys-renamed/mp-001 ANCHORED',
        'sys-renamed/mp-014 ANCHORED',
      ]);
      // The attack's premise holds: sys-memory's proof is VERIFIED and linked to an entry of its anchored timeline; only the missing tool withholds the credit.
      const passages = await queryStore(
        root,
        "SELECT system_id, item_id, proof_status, anchored_link, proven, reason_codes FROM served_passages WHERE system_id = 'sys-memory'",
      );
      expect(passages).toEqual([
        {
          system_id: 'sys-memory',
          item_id: 'mp-001',
          proof_status: 'VERIFIED',
          anchored_link: true,
          proven: false,
          reason_codes: ['EXPECTED_TOOL_MISSING'],
        },
      ]);
      // The report says it too.
      const report = readFileSync(join(dir, 'report.md'), 'utf8');
      const section = report.slice(report.indexOf('Expected tools:'));
      expect(section).toMatch(/EXPECTED\\_TOOL\\_MISSING/);
      expect(section).toContain('| sys-memory | 1 |  |');
      expect(section).toContain('| sys-memory | mp-001 | 1 | job-sys-memory/mp-001/1 | retrieve | generate |');
    });
  }, 300_000);

  it('without require_receipts: the proofs alone decide the proven column, and coverage still counts and lists the missing tools', async () => {
    await runStudy(false, async (results) => {
      expect(citingExpected(results)).toEqual({
        'sys-honest': '1 declared, 1 proven',
        'sys-memory': '1 declared, 1 proven',
        'sys-renamed': '2 declared, 2 proven',
      });
      expect(results.coverage.systems.map((s) => [s.system_id, s.expected_tools_missing])).toEqual([
        ['sys-honest', 0],
        ['sys-memory', 1],
        ['sys-renamed', 1],
      ]);
      expect(results.coverage.expected_tools_missing.map((r) => `${String(r.system_id)}/${String(r.item_id)}`)).toEqual([
        'sys-memory/mp-001',
        'sys-renamed/mp-014',
      ]);
    });
  }, 300_000);
});
