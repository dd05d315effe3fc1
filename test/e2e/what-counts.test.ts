// Issue 34's table, replayed through the public CLI on a rehearsal built from
// docs/getting-started.md (init --rehearsal, its corpus replaced by three articles and four items,
// two attempts per item; dev issue, submission build, commitment, sign, intake, seal, run), each
// answer as the table writes it (in English: the scaffold's refusal pattern is English). The last
// column of each row is what results.json must say:
// - a refusal cut inside its formula, flagged refused and truncated: TRUNCATED in both columns
//   (a system flagging wrong answers as truncated gains nothing: a failed answer);
// - a hedge followed by an invented amount and a citation of an article not served:
//   ANSWERED_NEGATIVE in both columns (a boilerplate phrase does not buy a refusal);
// - the key's amount written while the service served another article: AMOUNT_NOT_SERVED in both
//   columns, not AMOUNT_INVENTED;
// - a system submitting only what it gets right (1 record of the 8 expected): 1/4 positives
//   citing an expected reference, 3 missing, not 1/1.
// And the classes are part of the frozen plan: a section 5 classing an amount AMOUNT_UNHEARD_OF
// is refused at freeze (exit 3), before anything is anchored.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.ts';
import { devTsa, ok, sealAndRun, stopDevTsas } from '../support/dev-tsa-process.ts';

const base = mkdtempSync(join(tmpdir(), 'prereg-what-counts-'));
afterAll(() => {
  stopDevTsas();
  rmSync(base, { recursive: true, force: true });
});

const CORPUS = `# Sample document

## Article A-1

The first sample article. A fee of 100 EUR applies.

## Article A-2

The second sample article. A deadline of 30 days applies to every request.

## Article A-3

The third sample article. Requests are filed with the registry office.
`;
const ITEMS = [
  { item_id: 'q-001', question: 'What fee does Article A-1 set?' },
  { item_id: 'q-002', question: 'What deadline does Article A-2 set?' },
  { item_id: 'q-003', question: 'What does the corpus say about the nomination of the registrar?' },
  { item_id: 'q-004', question: 'What VAT applies per file?' },
];
const KEY = [
  { item_id: 'q-001', kind: 'positive', expected_refs: ['A-1'], expected_amounts: [{ ref: 'A-1', value: '100', unit: 'EUR' }] },
  { item_id: 'q-002', kind: 'positive', expected_refs: ['A-2'], expected_amounts: [] },
  { item_id: 'q-003', kind: 'negative', expected_refs: [], expected_amounts: [] },
  { item_id: 'q-004', kind: 'negative', expected_refs: [], expected_amounts: [] },
];
const jsonl = (rows: readonly unknown[]) => `${rows.map((r) => JSON.stringify(r)).join('\n')}\n`;

interface Answer {
  system: string;
  item: string;
  attempt: number;
  text: string;
  /** What the retrieval service served. */
  ref: string;
  refused?: boolean;
  truncated?: boolean;
}

const ANSWERS: Answer[] = [
  { system: 'sys-a', item: 'q-003', attempt: 1, text: 'I cannot answer th', refused: true, truncated: true, ref: 'A-3' },
  {
    system: 'sys-a',
    item: 'q-004',
    attempt: 1,
    text: 'I cannot answer with certainty, but the VAT is 20 EUR per file according to Article A-1.',
    ref: 'A-2',
  },
  { system: 'sys-a', item: 'q-001', attempt: 1, text: 'Article A-1 sets a fee of 100 EUR.', ref: 'A-2' },
  // sys-b submits only the one record it gets right, of the 8 the protocol expects.
  { system: 'sys-b', item: 'q-001', attempt: 1, text: 'Article A-1 sets a fee of 100 EUR.', ref: 'A-1' },
];

type Row = Record<string, unknown>;

describe("issue 34's table on a rehearsal, through the CLI", () => {
  const study = join(base, 'what-counts');
  const priv = `${study}.private`;
  let kit: string;
  let results: { assertion_classes: Row[]; scores: Row[]; coverage: { systems: Row[] } };

  beforeAll(async () => {
    const created = await ok([
      'init',
      study,
      '--rehearsal',
      '--require-receipts',
      '--attempts',
      '2',
      '--opens-at',
      '2026-11-10T10:00:00Z',
      '--closes-at',
      '2026-11-10T10:15:00Z',
    ]);
    kit = created.json.rehearsal.kit as string;
    // "Replace this file with the study's corpus": three articles, four items, their key.
    writeFileSync(join(study, 'corpus/sample.md'), CORPUS);
    writeFileSync(join(study, 'corpus/items.jsonl'), jsonl(ITEMS));
    writeFileSync(join(priv, 'answer-key.jsonl'), jsonl(KEY));
  }, 120_000);

  it('freeze refuses a section 5 that classes an amount AMOUNT_UNHEARD_OF (exit 3, SECTION5_VALUE_INVALID), before anything is anchored', async () => {
    const plan = join(study, 'preregistration/PREREGISTRATION.md');
    const text = readFileSync(plan, 'utf8');
    expect(text).toContain("ELSE 'AMOUNT_INVENTED' END;");
    writeFileSync(plan, text.replace("ELSE 'AMOUNT_INVENTED' END;", "ELSE 'AMOUNT_UNHEARD_OF' END;"));
    const r = await runCli([
      'freeze',
      '--root',
      study,
      '--answer-key',
      join(priv, 'answer-key.jsonl'),
      '--secret-file',
      join(priv, 'answer-key.secret'),
      '--json',
    ]);
    expect([r.code, r.json.code], r.stdout).toEqual([3, 'SECTION5_VALUE_INVALID']);
    expect(r.json.message).toContain('AMOUNT_UNHEARD_OF');
    expect(readdirSync(join(study, 'preregistration')).sort()).not.toContain('freeze.json');
    writeFileSync(plan, text);
  });

  it("runs the rehearsal of the table's answers", async () => {
    await ok(['freeze', '--root', study, '--answer-key', join(priv, 'answer-key.jsonl'), '--secret-file', join(priv, 'answer-key.secret')]);
    let tsa = await devTsa(kit, '2026-11-10T09:50:00Z');
    await ok(['anchor', '--root', study, '--tsa', `dev=${tsa.url}`, '--retries', '0']);
    expect(await tsa.stop()).toBe(0);

    tsa = await devTsa(kit, '2026-11-10T10:05:00Z');
    for (const system of ['sys-a', 'sys-b']) {
      const agentKey = join(kit, `TEST-ONLY-agent-${system}.key.pem`);
      const file = join(base, `${system}.jsonl`);
      const commitments = join(base, `${system}.commitments.jsonl`);
      for (const [i, a] of ANSWERS.filter((x) => x.system === system).entries()) {
        const evidence = join(base, `evidence-${system}-${a.item}-${a.attempt}`);
        await ok([
          'dev',
          'issue',
          '--kit',
          kit,
          '--root',
          study,
          '--system',
          system,
          '--item',
          a.item,
          '--ref',
          a.ref,
          '--at',
          `2026-11-10T10:01:${String(10 * i).padStart(2, '0')}Z`,
          '--job',
          `job-${system}-${a.item}-${a.attempt}`,
          '--out',
          evidence,
        ]);
        await ok([
          'submission',
          'build',
          '--root',
          study,
          '--system',
          system,
          '--item',
          a.item,
          '--attempt',
          String(a.attempt),
          '--answer',
          a.text,
          ...(a.refused ? ['--refused'] : []),
          ...(a.truncated ? ['--truncated'] : []),
          '--proof',
          join(evidence, 'proof.json'),
          '--request',
          join(evidence, 'request.json'),
          '--response',
          join(evidence, 'response.json'),
          '--timeline',
          join(evidence, 'timeline.json'),
          '--out',
          file,
        ]);
        await ok([
          'commitment',
          join(evidence, 'timeline.json'),
          '--published-at',
          '2026-11-10T10:02:00Z',
          '--sign',
          agentKey,
          '--out',
          commitments,
        ]);
      }
      for (const [f, kind] of [
        [file, 'submissions'],
        [commitments, 'commitments'],
      ] as const) {
        await ok(['submission', 'sign', f, '--key', agentKey, '--system', system, '--kind', kind, '--root', study]);
        await ok([
          'intake',
          `${f}.intake.json`,
          '--operator-key',
          join(priv, 'operator.key.pem'),
          '--tsa',
          `dev=${tsa.url}`,
          '--retries',
          '0',
          '--root',
          study,
        ]);
      }
    }
    expect(await tsa.stop()).toBe(0);

    const ran = await sealAndRun(kit, study, priv, '2026-11-10T10:20:00Z');
    results = JSON.parse(readFileSync(join(ran.json.dir, 'results.json'), 'utf8'));
  }, 300_000);

  const classes = (system: string, item: string, kind: string) =>
    results.assertion_classes
      .filter((c) => c.system_id === system && c.item_id === item && c.kind === kind)
      .map((c) => [c.class_declared, c.class_proven]);
  const score = (system: string, metric: string) => {
    const s = results.scores.find((x) => x.system_id === system && x.metric === metric)!;
    return [s.declared, s.n_declared, s.proven, s.n_proven, s.missing];
  };

  it('a refusal cut inside its formula, flagged refused and truncated: TRUNCATED in both columns, a failed answer', () => {
    expect(classes('sys-a', 'q-003', 'record')).toEqual([['TRUNCATED', 'TRUNCATED']]);
  });

  it('a hedge followed by an invented amount and a citation of an article not served: ANSWERED_NEGATIVE in both columns', () => {
    expect(classes('sys-a', 'q-004', 'record')).toEqual([['ANSWERED_NEGATIVE', 'ANSWERED_NEGATIVE']]);
    expect(classes('sys-a', 'q-004', 'amount')).toEqual([['AMOUNT_INVENTED', 'AMOUNT_INVENTED']]);
    expect(classes('sys-a', 'q-004', 'citation')).toEqual([['OUT_OF_CONTEXT', 'OUT_OF_CONTEXT']]);
    // No refusal on either negative item: 0 of the 4 negative records expected (2 items × 2 attempts), 2 missing.
    expect(score('sys-a', 'refusal_rate_negatives')).toEqual([0, 4, 0, 4, 2]);
  });

  it("the key's amount written while the service served another article: AMOUNT_NOT_SERVED in both columns", () => {
    expect(classes('sys-a', 'q-001', 'amount')).toEqual([['AMOUNT_NOT_SERVED', 'AMOUNT_NOT_SERVED']]);
    expect(classes('sys-a', 'q-001', 'citation')).toEqual([['OUT_OF_CONTEXT', 'OUT_OF_CONTEXT']]);
    expect(score('sys-a', 'amounts_not_served')).toEqual([1, 2, 1, 2, null]);
  });

  it('a system submitting only what it gets right: 1/4 positives citing an expected reference, 3 missing, not 1/1', () => {
    expect(classes('sys-b', 'q-001', 'citation')).toEqual([['GROUNDED_EXPECTED', 'GROUNDED_EXPECTED']]);
    expect(score('sys-b', 'positives_citing_expected')).toEqual([1, 4, 1, 4, 3]);
    const coverage = results.coverage.systems.find((s) => s.system_id === 'sys-b')!;
    expect([coverage.expected, coverage.submitted, coverage.missing, coverage.status]).toEqual([8, 1, 7, 'INCOMPLETE']);
  });
});
