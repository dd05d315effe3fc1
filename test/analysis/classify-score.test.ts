// The pre-registered analysis on a hand-built study where the class of every assertion is known,
// and on the example study (sign tests checked against Python's math.comb).
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { articlePassages } from '../../scripts/generate-example-submissions.ts';
import { copyExampleStudy, PROJECT_ROOT, runCli } from '../support/cli.ts';
import { buildSmallStudy, type HandRecord } from '../support/small-study.ts';
import { queryStore } from '../support/store-query.ts';

const passages = articlePassages(join(PROJECT_ROOT, 'corpus'), [
  'code-commande-publique/partie-reglementaire.md',
  'code-commande-publique/partie-legislative.md',
  'ccag-travaux.md',
]);
const served = (...refs: string[]) => refs.map((ref) => ({ ref, text: passages.get(ref)! }));
// L2113-10 quotes another code's article: what an answer relays from it is never a phantom. Served
// verbatim from the frozen corpus, as a proven passage must be (SPEC §12.4).
const quoting = { ref: 'L2113-10', text: passages.get('L2113-10')! };

const RECORDS: HandRecord[] = [
  {
    system: 'sys-a',
    item: 'mp-001',
    attempt: 1,
    text: "Selon l'article R2122-8, le seuil est de 40 000 euros hors taxes.",
    passages: served('R2122-8'),
  },
  {
    system: 'sys-a',
    item: 'mp-001',
    attempt: 2,
    text: "Selon l'article L2122-8, le seuil est de 40 000 euros.",
    passages: served('R2122-8'),
  },
  { system: 'sys-a', item: 'mp-001', attempt: 3, text: "Voir l'article R2152-2 et un seuil de 45 000 euros.", passages: served('R2122-8') },
  { system: 'sys-a', item: 'mp-014', attempt: 1, text: 'Le CCAG Travaux 41 règle la réception.', passages: served('CCAG Travaux 4') },
  { system: 'sys-a', item: 'mp-014', attempt: 2, text: 'Voir le CCAG Travaux 4.', passages: served('CCAG Travaux 4') },
  { system: 'sys-a', item: 'mp-012', attempt: 1, text: "Selon l'article R2192-", truncated: true, passages: served('R2192-10') },
  { system: 'sys-a', item: 'mp-017', attempt: 1, text: 'Le corpus ne permet pas de répondre.', refused: true, passages: served('R2123-1') },
  { system: 'sys-a', item: 'mp-018', attempt: 1, text: 'La durée est de cinq ans.', passages: served('R2123-1') },
  { system: 'sys-a', item: 'mp-002', attempt: 1, text: 'Je ne peux pas répondre.', refused: true, passages: served('R2123-1') },
  {
    system: 'sys-a',
    item: 'mp-003',
    attempt: 1,
    text: "Selon l'article R2123-1, le seuil des travaux est de 5 538 000 euros.",
    passages: served('R2123-1'),
    tamper: true,
  },
  // A participant's new system relays L5132-4 from its served passage and invents L9999-9; once under
  // verified evidence, once under evidence altered after signing (declared served, not proven).
  {
    system: 'sys-r',
    item: 'mp-007',
    attempt: 1,
    text: "Selon l'article L2113-10, un lot peut être réservé (article L5132-4 du code du travail, voir aussi l'article L9999-9).",
    passages: [quoting],
  },
  {
    system: 'sys-r',
    item: 'mp-007',
    attempt: 2,
    text: "Selon l'article L2113-10, un lot peut être réservé (article L5132-4 du code du travail, voir aussi l'article L9999-9).",
    passages: [quoting],
    tamper: true,
  },
  // L5132-41 is not L5132-4: the literal match is bounded.
  { system: 'sys-r', item: 'mp-007', attempt: 3, text: "Selon l'article L2113-10, voir l'article L5132-41.", passages: [quoting] },
  {
    system: 'sys-b',
    item: 'mp-001',
    attempt: 1,
    text: "Selon l'article R2122-8, le seuil est de 40 000 euros.",
    passages: served('R2122-8'),
  },
  {
    system: 'sys-b',
    item: 'mp-001',
    attempt: 2,
    text: "Selon l'article R2122-8, le seuil est de 40 000 euros.",
    passages: served('R2122-8'),
  },
  {
    system: 'sys-b',
    item: 'mp-001',
    attempt: 3,
    text: "Selon l'article R2122-8, le seuil est de 40 000 euros.",
    passages: served('R2122-8'),
  },
];

// The expected class of every assertion, by (system, item, attempt, kind, ref or value): [declared, proven].
const EXPECTED: Array<[string, string, string | null, string | null, string, string]> = [
  ['sys-a/mp-001/1', 'citation', 'R2122-8', null, 'GROUNDED_EXPECTED', 'GROUNDED_EXPECTED'],
  ['sys-a/mp-001/1', 'amount', null, '40000', 'AMOUNT_SUPPORTED', 'AMOUNT_SUPPORTED'],
  ['sys-a/mp-001/2', 'citation', 'L2122-8', null, 'PHANTOM', 'PHANTOM'],
  ['sys-a/mp-001/2', 'amount', null, '40000', 'AMOUNT_SUPPORTED', 'AMOUNT_SUPPORTED'],
  ['sys-a/mp-001/3', 'citation', 'R2152-2', null, 'OUT_OF_CONTEXT', 'OUT_OF_CONTEXT'],
  ['sys-a/mp-001/3', 'amount', null, '45000', 'AMOUNT_INVENTED', 'AMOUNT_INVENTED'],
  ['sys-a/mp-014/1', 'citation', 'CCAG Travaux 41', null, 'OUT_OF_CONTEXT', 'OUT_OF_CONTEXT'],
  ['sys-a/mp-014/2', 'citation', 'CCAG Travaux 4', null, 'GROUNDED_EXPECTED', 'GROUNDED_EXPECTED'],
  ['sys-a/mp-012/1', 'citation', 'R2192-', null, 'NOT_JUDGED', 'NOT_JUDGED'],
  ['sys-a/mp-003/1', 'citation', 'R2123-1', null, 'GROUNDED_EXPECTED', 'OUT_OF_CONTEXT'],
  // The key's own amount for mp-003, written but not proven served: not an invention (SPEC §13.1).
  ['sys-a/mp-003/1', 'amount', null, '5538000', 'AMOUNT_SUPPORTED', 'AMOUNT_NOT_SERVED'],
  ['sys-a/mp-017/1', 'record', null, null, 'REFUSAL_CORRECT', 'REFUSAL_CORRECT'],
  ['sys-a/mp-018/1', 'record', null, null, 'ANSWERED_NEGATIVE', 'ANSWERED_NEGATIVE'],
  ['sys-a/mp-002/1', 'record', null, null, 'REFUSAL_WRONG', 'REFUSAL_WRONG'],
  ['sys-r/mp-007/1', 'citation', 'L5132-4', null, 'RELAYED', 'RELAYED'],
  ['sys-r/mp-007/1', 'citation', 'L9999-9', null, 'PHANTOM', 'PHANTOM'],
  ['sys-r/mp-007/2', 'citation', 'L5132-4', null, 'RELAYED', 'PHANTOM'],
  ['sys-r/mp-007/2', 'citation', 'L9999-9', null, 'PHANTOM', 'PHANTOM'],
  ['sys-r/mp-007/3', 'citation', 'L5132-41', null, 'PHANTOM', 'PHANTOM'],
];

describe('classify and score on a hand-built study', () => {
  let root: string;
  let cleanup: () => void;
  let run: Awaited<ReturnType<typeof runCli>>;
  beforeAll(async () => {
    ({ root, cleanup } = await buildSmallStudy(RECORDS));
    run = await runCli(['score', '--root', root, '--json']);
  });
  afterAll(() => cleanup());

  it('runs', () => {
    expect(run.code, run.stdout + run.stderr).toBe(0);
  });

  it('classes every assertion as expected, in both columns', async () => {
    const rows = await queryStore(
      root,
      `SELECT c.system_id || '/' || c.item_id || '/' || CAST(c.attempt AS VARCHAR) AS rec, c.kind, c.ref, a.value, c.class_declared, c.class_proven
       FROM result_assertion_classes c LEFT JOIN assertions a ON a.assertion_id = c.assertion_id`,
    );
    for (const [rec, kind, ref, value, declared, proven] of EXPECTED) {
      const row = rows.find(
        (r) => r.rec === rec && r.kind === kind && (kind === 'record' || (ref !== null ? r.ref === ref : r.value === value)),
      );
      expect(row, `${rec} ${kind} ${ref ?? value ?? ''}`).toBeDefined();
      expect([row!.class_declared, row!.class_proven], `${rec} ${kind} ${ref ?? value ?? ''}`).toEqual([declared, proven]);
    }
    // CCAG Travaux 41 never matched as CCAG Travaux 4; the stub R2192- is not a phantom.
    expect(rows.filter((r) => r.rec === 'sys-a/mp-014/1' && r.kind === 'citation').map((r) => r.ref)).toEqual(['CCAG Travaux 41']);
    expect(rows.filter((r) => r.rec === 'sys-a/mp-012/1' && r.kind === 'citation').map((r) => r.class_declared)).toEqual(['NOT_JUDGED']);
  });

  it('scores as numerator and denominator; a stub is not counted as a judged citation', async () => {
    const s = await queryStore(
      root,
      "SELECT metric, declared, proven, n_declared, n_proven FROM result_scores WHERE system_id = 'sys-a' ORDER BY metric",
    );
    const by = Object.fromEntries(s.map((r) => [r.metric, [r.declared, r.proven, r.n_declared, r.n_proven]]));
    // Judged citations of sys-a: R2122-8, L2122-8, R2152-2, CCAG 41, CCAG 4, R2123-1 = 6 (the stub is not one).
    expect(by.phantom_citations).toEqual(['1', '1', '6', '6']);
    expect(by.out_of_context_citations).toEqual(['2', '3', '6', '6']);
    expect(by.not_judged_citations).toEqual(['1', '1', '7', '7']);
    // Amounts of sys-a: 40000 twice (served), 45000 (nobody's: invented), 5538000 (the key's,
    // served as declared only): 1 invented in both columns; 1 key amount not served, proven only.
    expect(by.invented_amounts).toEqual(['1', '1', '4', '4']);
    expect(by.amounts_not_served).toEqual(['0', '1', '4', '4']);
    // Over the expected records (SPEC §13.1): 16 positives × 3 attempts = 48, 4 negatives × 3 = 12,
    // 60 in all, the missing ones failures. Citing expected: mp-001#1, mp-014#2, mp-003 (declared only).
    expect(by.positives_citing_expected).toEqual(['3', '2', '48', '48']);
    expect(by.refusal_rate_negatives).toEqual(['1', '1', '12', '12']);
    expect(by.truncated_answers).toEqual(['1', '1', '60', '60']);
  });

  it('finds where the served passages write what the answer cites (passage_mentions), bounded', async () => {
    const rows = await queryStore(
      root,
      `SELECT r.attempt, m.ref, m.declared, m.proven FROM passage_mentions m JOIN records r ON r.record_id = m.record_id
       WHERE r.system_id = 'sys-r' ORDER BY ALL`,
    );
    // The passage's own ref is not in its text; L5132-41 (attempt 3) is not written there.
    expect(rows).toEqual([
      { attempt: 1, ref: 'L5132-4', declared: true, proven: true },
      { attempt: 2, ref: 'L5132-4', declared: true, proven: false },
    ]);
  });

  it('counts constancy with the number of attempts it was counted over: sometimes is not always', async () => {
    const c = await queryStore(
      root,
      "SELECT system_id, attempts, always, sometimes, never FROM result_constancy WHERE metric = 'positives_citing_expected/declared' ORDER BY ALL",
    );
    // Over the 3 expected attempts of each of the 16 positives (a missing attempt is a failed one):
    // sys-a: mp-001, mp-014 and mp-003 sometimes (1 of 3 each), the 13 others never; sys-b mp-001
    // always; sys-r mp-007 always (declared).
    expect(c).toEqual([
      { system_id: 'sys-a', attempts: 3, always: '0', sometimes: '3', never: '13' },
      { system_id: 'sys-b', attempts: 3, always: '1', sometimes: '0', never: '15' },
      { system_id: 'sys-r', attempts: 3, always: '1', sometimes: '0', never: '15' },
    ]);
  });

  it('lists the discordant items behind each sign test, compared over every expected attempt', async () => {
    const d = await queryStore(
      root,
      "SELECT system_a, system_b, item_id, winner FROM result_discordant_items WHERE metric = 'positives_citing_expected/declared' ORDER BY ALL",
    );
    // mp-001: sys-b cites R2122-8 in all three attempts, sys-a in one of three; mp-007: sys-r in all
    // three, the others never attempted it (a missing attempt is a failure).
    expect(d).toEqual([
      { system_a: 'sys-a', system_b: 'sys-b', item_id: 'mp-001', winner: 'sys-b' },
      { system_a: 'sys-a', system_b: 'sys-r', item_id: 'mp-007', winner: 'sys-r' },
      { system_a: 'sys-b', system_b: 'sys-r', item_id: 'mp-001', winner: 'sys-b' },
      { system_a: 'sys-b', system_b: 'sys-r', item_id: 'mp-007', winner: 'sys-r' },
    ]);
    const t = await queryStore(
      root,
      "SELECT wins_a, wins_b, ties FROM result_sign_tests WHERE system_a = 'sys-a' AND system_b = 'sys-b' AND metric = 'positives_citing_expected/declared'",
    );
    expect(t).toEqual([{ wins_a: '0', wins_b: '1', ties: '15' }]);
  });

  it('refuses to run a changed section 5 (exit 3, SECTION5_DRIFT)', async () => {
    const s = copyExampleStudy();
    try {
      const plan = join(s.root, 'preregistration/PREREGISTRATION.md');
      writeFileSync(plan, readFileSync(plan, 'utf8').replace("'H1' AS hypothesis_id", "'H1 ' AS hypothesis_id"));
      const r = await runCli(['score', '--root', s.root, '--json']);
      expect(r.code).toBe(3);
      expect(r.json.code).toBe('SECTION5_DRIFT');
    } finally {
      s.cleanup();
    }
  });

  it('refuses a revealed key that does not reproduce the commitment (exit 3)', async () => {
    const s = copyExampleStudy();
    try {
      const key = join(s.root, 'inputs/answer-key.jsonl');
      writeFileSync(key, readFileSync(key, 'utf8').replace('"negative"', '"positive"'));
      const r = await runCli(['classify', '--root', s.root, '--json']);
      expect(r.code).toBe(3);
      expect(r.json.code).toBe('ANSWER_KEY_COMMITMENT_MISMATCH');
    } finally {
      s.cleanup();
    }
  });
});

describe('a hypothesis over constancy on the example study', () => {
  it('is decided over the expected attempts (a missing one a failure), without the systems that withdrew; each observed value names its system', async () => {
    const h5 = async (root: string) => {
      const r = await runCli(['score', '--root', root, '--json']);
      expect(r.code, r.stdout + r.stderr).toBe(0);
      return queryStore(
        root,
        "SELECT outcome, observed_num, observed_den, observed_system FROM result_hypotheses WHERE hypothesis_id = 'H5'",
      );
    };
    const all = copyExampleStudy();
    const equal = copyExampleStudy();
    try {
      // sys-truncated makes two attempts per item, the others three: its third attempts are failures,
      // so every system counts over three (the lowest: the copycat's 0 of 16 proven, 5 items answered).
      expect(await h5(all.root)).toEqual([{ outcome: 'NOT_SUPPORTED', observed_num: '0', observed_den: '16', observed_system: 'copycat' }]);
      // Without their files sys-truncated and the copycat are WITHDRAWN, out of the hypothesis:
      // sys-tampered's 7 of 16 proven is below half, but not by the exact test: P(X ≤ 7 | 16, ½) =
      // 0.40, times the 2 systems considered, is far above alpha — INCONCLUSIVE, not NOT_SUPPORTED.
      rmSync(join(equal.root, 'inputs/submissions/sys-truncated.jsonl'));
      rmSync(join(equal.root, 'inputs/submissions/copycat.jsonl'));
      expect(await h5(equal.root)).toEqual([
        { outcome: 'INCONCLUSIVE', observed_num: '7', observed_den: '16', observed_system: 'sys-tampered' },
      ]);
      // "At least one system" names the system it is: the best share (H1), the widest gap (H2); none over all systems.
      const named = await queryStore(
        all.root,
        'SELECT hypothesis_id, observed_num, observed_den, observed_system FROM result_hypotheses ORDER BY hypothesis_id',
      );
      expect(named.filter((h) => h.hypothesis_id !== 'H5')).toEqual([
        { hypothesis_id: 'H1', observed_num: '47', observed_den: '48', observed_system: 'sys-honest' },
        { hypothesis_id: 'H2', observed_num: '24', observed_den: '48', observed_system: 'sys-tampered' },
        { hypothesis_id: 'H3', observed_num: '3', observed_den: '157', observed_system: null },
        { hypothesis_id: 'H4', observed_num: '28', observed_den: '48', observed_system: null },
      ]);
    } finally {
      all.cleanup();
      equal.cleanup();
    }
  });
});

describe('hypotheses decided by exact tests with Holm on the example study (SPEC §13.2)', () => {
  it('H3, 3 phantoms of 157 against "at most 5%", is INCONCLUSIVE: its exact p 0.0431, times 3 under Holm, is above alpha', async () => {
    const s = copyExampleStudy();
    try {
      const r = await runCli(['score', '--root', s.root, '--json']);
      expect(r.code, r.stdout + r.stderr).toBe(0);
      const rows = await queryStore(
        s.root,
        'SELECT hypothesis_id, outcome, observed_num, observed_den, observed_system, p_value, p_holm, p_value_against, p_holm_against, observed_lower, observed_upper, decision_reason FROM result_hypotheses ORDER BY hypothesis_id',
      );
      const h = Object.fromEntries(rows.map((x) => [String(x.hypothesis_id), x]));
      // By hand, H3: X ~ Binomial(157, 1/20), the null "at least 5% phantoms", p = P(X ≤ 3):
      //   (19/20)^157 = e^(157·ln 0.95) = e^(−8.05305)            = 0.000318131
      //   i = 1: 157 · (1/19) · 0.000318131                      = 0.00262877
      //   i = 2: C(157,2) = 12246;  12246 / 19² = 33.9224 → ×     = 0.0107918
      //   i = 3: C(157,3) = 632710; 632710 / 19³ = 92.2452 → ×    = 0.0293461
      //   sum                                                    = 0.0430848  (the "≈ 0.045")
      // Holm across the five: sorted, H2 (≈ 1e-11) and H1 (below) come first, so H3 is the third
      // smallest and is multiplied by 5 − 3 + 1 = 3: 0.129 > 0.05, not SUPPORTED. Against it,
      // P(X ≥ 3) = 1 − (0.000318 + 0.002629 + 0.010792) = 0.98626: not NOT_SUPPORTED either.
      expect([h.H3!.observed_num, h.H3!.observed_den, h.H3!.outcome]).toEqual(['3', '157', 'INCONCLUSIVE']);
      expect(Number(h.H3!.p_value)).toBeCloseTo(0.0430848, 6);
      expect(Number(h.H3!.p_holm)).toBeCloseTo(3 * 0.0430848, 6);
      expect(Number(h.H3!.p_value_against)).toBeCloseTo(0.98626, 5);
      expect(String(h.H3!.decision_reason)).toContain('neither direction reaches alpha 0.05 after Holm across 5 hypotheses');
      // Its interval, two-sided at 0.05 / 5, holds the threshold: 5% is not excluded.
      expect(Number(h.H3!.observed_lower)).toBeLessThan(0.05);
      expect(Number(h.H3!.observed_upper)).toBeGreaterThan(0.05);
      // By hand, H1 ("at least one system ≥ 80%"), decided on its best system, sys-honest's 47/48:
      //   P(X ≥ 47 | 48, 0.8) = 48 · 0.8^47 · 0.2 + 0.8^48 = 0.8^47 · 10.4 = 2.7868e-5 · 10.4 = 2.8983e-4,
      //   times the 4 systems considered (Bonferroni) = 1.1593e-3; Holm, second smallest: × 4 = 4.637e-3 ≤ 0.05.
      expect([h.H1!.observed_system, h.H1!.outcome]).toEqual(['sys-honest', 'SUPPORTED']);
      expect(Number(h.H1!.p_value)).toBeCloseTo(1.1593e-3, 6);
      expect(Number(h.H1!.p_holm)).toBeCloseTo(4.637e-3, 5);
    } finally {
      s.cleanup();
    }
  });
});

describe('sign tests on the example study', () => {
  it('match an exact binomial test computed independently by Python (math.comb)', async () => {
    const s = copyExampleStudy();
    try {
      const r = await runCli(['score', '--root', s.root, '--json']);
      expect(r.code).toBe(0);
      const rows = await queryStore(s.root, 'SELECT wins_a, wins_b, p_value FROM result_sign_tests');
      // 4 systems and sys-honest's replicate: 6 pairs and the replicate with its original, 2 metrics each.
      expect(rows.length).toBe(14);
      const pairs = rows.map((x) => [Number(x.wins_a), Number(x.wins_b)]);
      const python = JSON.parse(
        execFileSync(
          'python3',
          [
            '-c',
            'import json,sys; from math import comb\nprint(json.dumps([min(1.0, 2*sum(comb(a+b,i) for i in range(min(a,b)+1))/2**(a+b)) if a+b else 1.0 for a,b in json.load(sys.stdin)]))',
          ],
          {
            input: JSON.stringify(pairs),
          },
        ).toString(),
      ) as number[];
      rows.forEach((x, i) => {
        expect(Math.abs(Number(x.p_value) - python[i]!) / python[i]!, `wins ${pairs[i]}`).toBeLessThan(1e-12);
      });
      expect(rows.some((x) => Number(x.p_value) < 0.05)).toBe(true);
    } finally {
      s.cleanup();
    }
  });
});
