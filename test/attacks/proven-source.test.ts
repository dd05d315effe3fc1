// Proven from the pinned source, as the frozen corpus writes it (SPEC §12.4, issue 21): a
// participant's own verified, bound, anchored proof counts in the proven column only when the
// seller it binds is the study's pinned retrieval service, when each passage is frozen corpus text
// of the section its ref names, and only for that ref — a mention is not a served ref. Each attack
// is a hand-built registered study run end to end from the CLI (`prereg run`), read from
// results.json (and the store for the codes). The declared column never moves.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { articlePassages } from '../../scripts/generate-example-submissions.ts';
import { PROJECT_ROOT, runCli, TEST_OPERATOR_ARGS } from '../support/cli.ts';
import { buildSmallStudy, type HandRecord, type SmallStudyOptions } from '../support/small-study.ts';
import { queryStore } from '../support/store-query.ts';

const passages = articlePassages(join(PROJECT_ROOT, 'corpus'), [
  'code-commande-publique/partie-reglementaire.md',
  'code-commande-publique/partie-legislative.md',
  'ccag-travaux.md',
]);
const R2122_8 = passages.get('R2122-8')!;
const R2121_1 = passages.get('R2121-1')!;
const CCAG_4 = passages.get('CCAG Travaux 4')!;
/** The corpus says 40 000 euros; the forger's passage says what its answer needs. */
const FORGED = R2122_8.replace('40 000', '99 999');
const CITES_99 = "Selon l'article R2122-8, le seuil est de 99 999 euros hors taxes.";
const CITES_40 = "Selon l'article R2122-8, le seuil est de 40 000 euros hors taxes.";
const ROGUE = 'rogue-retrieval.example';

interface Classes {
  /** "system/item/attempt kind ref-or-value" → [declared, proven]. */
  classes: Record<string, [string, string]>;
  /** results.json evidence.by_system, by system id; and the report's text. */
  bySystem: Record<string, Record<string, unknown>>;
  report: string;
  root: string;
  cleanup: () => void;
}

/** `prereg run` on a small study; the assertion classes of results.json, the study kept for store queries. */
async function run(records: HandRecord[], options: SmallStudyOptions = {}): Promise<Classes> {
  const study = await buildSmallStudy(records, options);
  const r = await runCli(['run', '--root', study.root, '--outputs', join(study.root, 'outputs'), ...TEST_OPERATOR_ARGS, '--json']);
  expect(r.code, r.stdout + r.stderr).toBe(0);
  const results = JSON.parse(readFileSync(join(r.json.dir, 'results.json'), 'utf8')) as {
    assertion_classes: Array<Record<string, string | number | null>>;
    evidence: { by_system: Array<Record<string, unknown>> };
  };
  const bySystem = Object.fromEntries(results.evidence.by_system.map((x) => [String(x.system_id), x]));
  const report = readFileSync(join(r.json.dir, 'report.md'), 'utf8');
  const classes: Classes['classes'] = {};
  for (const a of results.assertion_classes) {
    if (a.kind === 'record') continue;
    classes[`${a.system_id}/${a.item_id}/${a.attempt} ${a.kind} ${a.ref ?? ''}`.trimEnd()] = [
      String(a.class_declared),
      String(a.class_proven),
    ];
  }
  return { classes, bySystem, report, ...study };
}

const cls = (c: Classes, system: string, item: string, what: string) => c.classes[`${system}/${item}/1 ${what}`];

describe('(a) a seller nobody pinned', () => {
  let s: Classes;
  beforeAll(async () => {
    s = await run([
      { system: 'sys-honest', item: 'mp-001', attempt: 1, text: CITES_40, passages: [{ ref: 'R2122-8', text: R2122_8 }] },
      // The participant's own call, bought with its own key, from a service of its own: verified, bound, anchored.
      { system: 'forger', item: 'mp-001', attempt: 1, text: CITES_99, passages: [{ ref: 'R2122-8', text: FORGED }], seller: ROGUE },
      // Even verbatim corpus text from an unpinned seller proves nothing served.
      { system: 'mirror', item: 'mp-001', attempt: 1, text: CITES_40, passages: [{ ref: 'R2122-8', text: R2122_8 }], seller: ROGUE },
    ]);
  }, 180_000);
  afterAll(() => s?.cleanup());

  it('serving R2122-8 as "99 999 euros": declared grounded and supported, proven neither', () => {
    expect(cls(s, 'forger', 'mp-001', 'citation R2122-8')).toEqual(['GROUNDED_EXPECTED', 'OUT_OF_CONTEXT']);
    expect(cls(s, 'forger', 'mp-001', 'amount')).toEqual(['AMOUNT_SUPPORTED', 'AMOUNT_INVENTED']);
  });

  it('verbatim corpus text from the unpinned seller: still nothing proven (EVIDENCE_SELLER_UNPINNED), the proof VERIFIED', async () => {
    expect(cls(s, 'mirror', 'mp-001', 'citation R2122-8')).toEqual(['GROUNDED_EXPECTED', 'OUT_OF_CONTEXT']);
    expect(cls(s, 'mirror', 'mp-001', 'amount')).toEqual(['AMOUNT_SUPPORTED', 'AMOUNT_NOT_SERVED']);
    const rows = await queryStore(
      s.root,
      `SELECT o.system_id, p.status, p.seller, p.seller_source, o.seller_pinned, o.reason_codes, o.owned, sp.in_corpus, sp.proven, sp.reason_codes AS passage_codes
      FROM evidence_ownership o JOIN proof_checks p USING (record_id, evidence_index) JOIN served_passages sp USING (record_id, evidence_index)
      WHERE o.evidence_kind = 'proof' ORDER BY o.system_id`,
    );
    expect(rows).toEqual([
      {
        system_id: 'forger',
        status: 'VERIFIED',
        seller: ROGUE,
        seller_source: 'preimage',
        seller_pinned: false,
        reason_codes: ['EVIDENCE_SELLER_UNPINNED'],
        owned: true,
        in_corpus: false,
        proven: false,
        passage_codes: ['EVIDENCE_SELLER_UNPINNED', 'PASSAGE_NOT_IN_CORPUS'],
      },
      {
        system_id: 'mirror',
        status: 'VERIFIED',
        seller: ROGUE,
        seller_source: 'preimage',
        seller_pinned: false,
        reason_codes: ['EVIDENCE_SELLER_UNPINNED'],
        owned: true,
        in_corpus: true,
        proven: false,
        passage_codes: ['EVIDENCE_SELLER_UNPINNED'],
      },
      {
        system_id: 'sys-honest',
        status: 'VERIFIED',
        seller: 'retrieval.example',
        seller_source: 'preimage',
        seller_pinned: true,
        reason_codes: [],
        owned: true,
        in_corpus: true,
        proven: true,
        passage_codes: [],
      },
    ]);
    expect([s.bySystem.mirror?.proofs_seller_not_pinned, s.bySystem['sys-honest']?.proofs_seller_not_pinned]).toEqual([1, 0]);
  });

  it('the honest system, from the pinned seller, keeps declared = proven', () => {
    expect(cls(s, 'sys-honest', 'mp-001', 'citation R2122-8')).toEqual(['GROUNDED_EXPECTED', 'GROUNDED_EXPECTED']);
    expect(cls(s, 'sys-honest', 'mp-001', 'amount')).toEqual(['AMOUNT_SUPPORTED', 'AMOUNT_SUPPORTED']);
  });
});

describe('(b) the pinned seller, fabricated text', () => {
  let s: Classes;
  beforeAll(async () => {
    s = await run([{ system: 'forger', item: 'mp-001', attempt: 1, text: CITES_99, passages: [{ ref: 'R2122-8', text: FORGED }] }]);
  }, 180_000);
  afterAll(() => s?.cleanup());

  it('is PASSAGE_NOT_IN_CORPUS: no proven credit, the declared column unchanged', async () => {
    expect(cls(s, 'forger', 'mp-001', 'citation R2122-8')).toEqual(['GROUNDED_EXPECTED', 'OUT_OF_CONTEXT']);
    expect(cls(s, 'forger', 'mp-001', 'amount')).toEqual(['AMOUNT_SUPPORTED', 'AMOUNT_INVENTED']);
    const rows = await queryStore(
      s.root,
      'SELECT proof_status, seller_pinned, in_corpus, corpus_match, corpus_text, reason_codes, declared, proven FROM served_passages',
    );
    expect(rows).toEqual([
      {
        proof_status: 'VERIFIED',
        seller_pinned: true,
        in_corpus: false,
        corpus_match: 'not_found',
        corpus_text: null,
        reason_codes: ['PASSAGE_NOT_IN_CORPUS'],
        declared: true,
        proven: false,
      },
    ]);
    // results.json and the report's "Whose evidence is whose" count it per system.
    expect(s.bySystem.forger).toMatchObject({ proofs_seller_not_pinned: 0, passages_not_in_corpus: 1 });
    expect(s.report).toMatch(/\| forger \| 1 \| 1 \| 0 \| 0 \| 0 \| 0 \| 1 \|/);
  });
});

/** An editCorpus that appends `sentence` to a section of `file`, after the text that ends it. */
const appendAfter =
  (file: string, end: string, sentence: string) =>
  (corpus: string): void => {
    const path = join(corpus, file);
    const text = readFileSync(path, 'utf8');
    if (!text.includes(end)) throw new Error(`${file} no longer holds ${JSON.stringify(end)}: update the test`);
    writeFileSync(path, text.replace(end, end + sentence));
  };

/** A sentence mentioning R2122-8 added to R2121-1's section (the corpus then relays R2122-8 from R2121-1). */
const MENTION = " Le seuil en deçà duquel l'acheteur peut passer un marché sans publicité est fixé à l'article R2122-8.";
const mentionR2122_8 = appendAfter(
  'code-commande-publique/partie-reglementaire.md',
  'y compris les options et les reconductions.',
  MENTION,
);
/** Then a mention of CCAG Travaux 4 after it. */
const CCAG_MENTION = ' Voir aussi le CCAG Travaux 4.';
const mentionBoth = (corpus: string) => {
  mentionR2122_8(corpus);
  appendAfter('code-commande-publique/partie-reglementaire.md', MENTION, CCAG_MENTION)(corpus);
};

describe('(c) a served passage that only mentions the cited article', () => {
  const ANSWER = "Selon l'article R2122-8, l'acheteur peut passer un marché sans publicité.";
  let s: Classes;
  beforeAll(async () => {
    s = await run(
      [
        // R2121-1's section, verbatim from the (edited) frozen corpus: it mentions R2122-8.
        { system: 'relayer', item: 'mp-001', attempt: 1, text: ANSWER, passages: [{ ref: 'R2121-1', text: R2121_1 + MENTION }] },
        // The honest way: R2122-8 served under its own ref.
        { system: 'sys-honest', item: 'mp-001', attempt: 1, text: ANSWER, passages: [{ ref: 'R2122-8', text: R2122_8 }] },
        // The section served with a line break inside "CCAG Travaux 4": the served bytes do not write it, the corpus does.
        {
          system: 'wrapper',
          item: 'mp-014',
          attempt: 1,
          text: 'Voir le CCAG Travaux 4.',
          passages: [{ ref: 'R2121-1', text: R2121_1 + MENTION + CCAG_MENTION.replace('CCAG ', 'CCAG\n') }],
        },
      ],
      { editCorpus: mentionBoth },
    );
  }, 180_000);
  afterAll(() => s?.cleanup());

  it('R2122-8 is RELAYED in both columns, never grounded: a mention is not a served ref', async () => {
    expect(cls(s, 'relayer', 'mp-001', 'citation R2122-8')).toEqual(['RELAYED', 'RELAYED']);
    expect(cls(s, 'sys-honest', 'mp-001', 'citation R2122-8')).toEqual(['GROUNDED_EXPECTED', 'GROUNDED_EXPECTED']);
    const refs = await queryStore(
      s.root,
      'SELECT r.system_id, s.ref, s.declared, s.proven_owned FROM served_refs s JOIN records r USING (record_id) ORDER BY r.system_id',
    );
    expect(refs).toEqual([
      { system_id: 'relayer', ref: 'R2121-1', declared: true, proven_owned: true },
      { system_id: 'sys-honest', ref: 'R2122-8', declared: true, proven_owned: true },
      { system_id: 'wrapper', ref: 'R2121-1', declared: true, proven_owned: true },
    ]);
    const mentions = await queryStore(
      s.root,
      "SELECT m.ref, m.declared, m.proven, m.owned FROM passage_mentions m JOIN records r USING (record_id) WHERE r.system_id = 'relayer'",
    );
    expect(mentions).toEqual([{ ref: 'R2122-8', declared: true, proven: true, owned: true }]);
  });

  it('the proven column reads mentions from the matched corpus span, not from the served bytes', () => {
    expect(cls(s, 'wrapper', 'mp-014', 'citation CCAG Travaux 4')).toEqual(['OUT_OF_CONTEXT', 'RELAYED']);
  });
});

describe('(c) the same mention written into a passage the corpus does not contain', () => {
  let s: Classes;
  beforeAll(async () => {
    s = await run([
      { system: 'relayer', item: 'mp-001', attempt: 1, text: CITES_40, passages: [{ ref: 'R2121-1', text: R2121_1 + MENTION }] },
    ]);
  }, 180_000);
  afterAll(() => s?.cleanup());

  it('is RELAYED declared, OUT_OF_CONTEXT proven (the mention is not in the corpus span)', () => {
    expect(cls(s, 'relayer', 'mp-001', 'citation R2122-8')).toEqual(['RELAYED', 'OUT_OF_CONTEXT']);
  });
});

/** A figure NFKC would fold: CCAG Travaux 4 then says "10⁵". */
const SUPERSCRIPT = ' Le nombre de pièces est limité à 10⁵.';
const withSuperscript = appendAfter('ccag-travaux.md', 'puis le présent cahier.', SUPERSCRIPT);

describe('(d) a passage is proven only as the frozen corpus writes it', () => {
  const EXCERPT = R2122_8.slice(R2122_8.indexOf('sans publicité'));
  const SHORT = '40 000 euros hors ta';
  const CCAG = CCAG_4 + SUPERSCRIPT;
  let s: Classes;
  beforeAll(async () => {
    expect([...EXCERPT].length).toBeGreaterThanOrEqual(80);
    expect([...SHORT].length).toBe(20);
    const r = (system: string, text: string): HandRecord => ({
      system,
      item: 'mp-001',
      attempt: 1,
      text: CITES_40,
      passages: [{ ref: 'R2122-8', text }],
    });
    const c = (system: string, text: string): HandRecord => ({
      system,
      item: 'mp-014',
      attempt: 1,
      text: 'Voir le CCAG Travaux 4.',
      passages: [{ ref: 'CCAG Travaux 4', text }],
    });
    s = await run(
      [
        r('whole', R2122_8),
        r('excerpt', EXCERPT),
        r('short', SHORT),
        // Line breaks, tabs and runs of spaces, and every accent decomposed (NFD): the same text.
        r('respaced', R2122_8.replace('peut passer', 'peut  \t passer').replace('répondre à', 'répondre à\n\n').normalize('NFD')),
        // Cut inside the amount by a line break: folded, the corpus text; read as served, "000 euros".
        r('wrapped', R2122_8.replace('40 000', '40\n000')),
        c('ccag', CCAG),
        // What NFKC makes of the corpus (10⁵ → 105): equal only under compatibility folding.
        c('nfkc', CCAG.replace('10⁵', '105')),
        // The ref names a section; the text is another section's, verbatim.
        { system: 'misfiled', item: 'mp-001', attempt: 1, text: CITES_40, passages: [{ ref: 'R2122-8', text: R2121_1 }] },
      ],
      { editCorpus: withSuperscript },
    );
  }, 240_000);
  afterAll(() => s?.cleanup());

  it('the whole section and an excerpt of at least passages.min_chars (80) are proven', () => {
    for (const system of ['whole', 'excerpt', 'respaced']) {
      expect(cls(s, system, 'mp-001', 'citation R2122-8'), system).toEqual(['GROUNDED_EXPECTED', 'GROUNDED_EXPECTED']);
      expect(cls(s, system, 'mp-001', 'amount'), system).toEqual(['AMOUNT_SUPPORTED', 'AMOUNT_SUPPORTED']);
    }
    expect(cls(s, 'ccag', 'mp-014', 'citation CCAG Travaux 4')).toEqual(['GROUNDED_EXPECTED', 'GROUNDED_EXPECTED']);
  });

  it("a 20-character excerpt, an NFKC-only match and another section's text are not", () => {
    expect('105'.normalize('NFKC')).toBe('10⁵'.normalize('NFKC'));
    expect(cls(s, 'short', 'mp-001', 'citation R2122-8')).toEqual(['GROUNDED_EXPECTED', 'OUT_OF_CONTEXT']);
    expect(cls(s, 'short', 'mp-001', 'amount')).toEqual(['AMOUNT_SUPPORTED', 'AMOUNT_NOT_SERVED']);
    expect(cls(s, 'nfkc', 'mp-014', 'citation CCAG Travaux 4')).toEqual(['GROUNDED_EXPECTED', 'OUT_OF_CONTEXT']);
    expect(cls(s, 'misfiled', 'mp-001', 'citation R2122-8')).toEqual(['GROUNDED_EXPECTED', 'OUT_OF_CONTEXT']);
  });

  it('the proven column reads amounts from the matched corpus span, not from the served bytes', () => {
    // Served "40\n000 euros": as served, the amount is "000"; the corpus span writes "40 000 euros".
    expect(cls(s, 'wrapped', 'mp-001', 'amount')).toEqual(['AMOUNT_NOT_SERVED', 'AMOUNT_SUPPORTED']);
  });

  it('served_passages says how each passage matched', async () => {
    const rows = await queryStore(
      s.root,
      'SELECT r.system_id, s.corpus_match, s.in_corpus, s.reason_codes FROM served_passages s JOIN records r USING (record_id) ORDER BY r.system_id',
    );
    expect(Object.fromEntries(rows.map((row) => [row.system_id, [row.corpus_match, row.in_corpus, row.reason_codes]]))).toEqual({
      ccag: ['section', true, []],
      excerpt: ['excerpt', true, []],
      misfiled: ['not_found', false, ['PASSAGE_NOT_IN_CORPUS']],
      nfkc: ['not_found', false, ['PASSAGE_NOT_IN_CORPUS']],
      respaced: ['section', true, []],
      short: ['too_short', false, ['PASSAGE_NOT_IN_CORPUS']],
      whole: ['section', true, []],
      wrapped: ['section', true, []],
    });
  });
});

describe('a 3.1 proof binds its seller only through an opened commitment', () => {
  let s: Classes;
  beforeAll(async () => {
    s = await run([
      // As ArkForge's real 3.1 proofs: the served `seller` is the pinned one, but no opening binds it.
      { system: 'unopened', item: 'mp-001', attempt: 1, text: CITES_40, passages: [{ ref: 'R2122-8', text: R2122_8 }], proof: '3.1' },
      {
        system: 'opened',
        item: 'mp-001',
        attempt: 1,
        text: CITES_40,
        passages: [{ ref: 'R2122-8', text: R2122_8 }],
        proof: '3.1',
        openSeller: true,
      },
    ]);
  }, 180_000);
  afterAll(() => s?.cleanup());

  it('unopened: EVIDENCE_SELLER_UNBOUND, proven nothing; opened: proven', async () => {
    expect(cls(s, 'unopened', 'mp-001', 'citation R2122-8')).toEqual(['GROUNDED_EXPECTED', 'OUT_OF_CONTEXT']);
    expect(cls(s, 'opened', 'mp-001', 'citation R2122-8')).toEqual(['GROUNDED_EXPECTED', 'GROUNDED_EXPECTED']);
    const rows = await queryStore(
      s.root,
      "SELECT o.system_id, p.status, p.seller, p.seller_source, o.reason_codes FROM evidence_ownership o JOIN proof_checks p USING (record_id, evidence_index) WHERE o.evidence_kind = 'proof' ORDER BY o.system_id",
    );
    expect(rows).toEqual([
      { system_id: 'opened', status: 'VERIFIED', seller: 'retrieval.example', seller_source: 'opening', reason_codes: [] },
      { system_id: 'unopened', status: 'VERIFIED', seller: null, seller_source: null, reason_codes: ['EVIDENCE_SELLER_UNBOUND'] },
    ]);
  });
});

describe('"sellers": "any", the weakened mode', () => {
  let s: Classes;
  beforeAll(async () => {
    s = await run(
      [
        { system: 'mirror', item: 'mp-001', attempt: 1, text: CITES_40, passages: [{ ref: 'R2122-8', text: R2122_8 }], seller: ROGUE },
        { system: 'unopened', item: 'mp-001', attempt: 1, text: CITES_40, passages: [{ ref: 'R2122-8', text: R2122_8 }], proof: '3.1' },
        { system: 'forger', item: 'mp-001', attempt: 1, text: CITES_99, passages: [{ ref: 'R2122-8', text: FORGED }], seller: ROGUE },
      ],
      { sellers: 'any' },
    );
  }, 180_000);
  afterAll(() => s?.cleanup());

  it('checks no seller (neither code), and still proves only frozen corpus text', async () => {
    expect(cls(s, 'mirror', 'mp-001', 'citation R2122-8')).toEqual(['GROUNDED_EXPECTED', 'GROUNDED_EXPECTED']);
    expect(cls(s, 'unopened', 'mp-001', 'citation R2122-8')).toEqual(['GROUNDED_EXPECTED', 'GROUNDED_EXPECTED']);
    expect(cls(s, 'forger', 'mp-001', 'citation R2122-8')).toEqual(['GROUNDED_EXPECTED', 'OUT_OF_CONTEXT']);
    const rows = await queryStore(
      s.root,
      "SELECT system_id, seller_pinned, reason_codes FROM evidence_ownership WHERE evidence_kind = 'proof' ORDER BY system_id",
    );
    expect(rows).toEqual([
      { system_id: 'forger', seller_pinned: true, reason_codes: [] },
      { system_id: 'mirror', seller_pinned: true, reason_codes: [] },
      { system_id: 'unopened', seller_pinned: true, reason_codes: [] },
    ]);
  });
});
