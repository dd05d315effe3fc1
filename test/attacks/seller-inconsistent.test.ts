// A service that answers one request two ways (SPEC §13.1, issue 34 item 8): the same request
// (same request_hash, same item) to the pinned seller, served different sets of (ref, text) — to
// two systems, or to two attempts of one — is listed in results.json
// (evidence.seller_inconsistencies, SELLER_INCONSISTENT) and named in the report. Who gains by
// hiding it: a seller (or an operator who runs it) that serves one system the article and another
// a worse one, so that a comparison of the two measures the service, not the systems. Who gains by
// faking it: a participant who wants a rival's score doubted — a proof that is not VERIFIED, or
// that another system's buyer paid for, must count for nothing. A hand-built registered study,
// run end to end from the CLI (`prereg run`).
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { articlePassages, EXAMPLE_SELLER } from '../../scripts/generate-example-submissions.ts';
import { PROJECT_ROOT, runCli, TEST_OPERATOR_ARGS } from '../support/cli.ts';
import { buildSmallStudy, type HandRecord } from '../support/small-study.ts';

const passages = articlePassages(join(PROJECT_ROOT, 'corpus'), [
  'code-commande-publique/partie-reglementaire.md',
  'code-commande-publique/partie-legislative.md',
  'ccag-travaux.md',
]);
const text = (ref: string) => passages.get(ref)!;
const served = (ref: string) => [{ ref, text: text(ref) }];
/** small-study's request is {query: item}: its hash, written out here, not computed by the pipeline. */
const requestHash = (item: string) => createHash('sha256').update(`{"query":"${item}"}`).digest('hex');

interface Ran {
  inconsistencies: unknown[];
  report: string;
  cleanup: () => void;
}

async function run(records: HandRecord[]): Promise<Ran> {
  const study = await buildSmallStudy(records);
  const r = await runCli(['run', '--root', study.root, '--outputs', join(study.root, 'outputs'), ...TEST_OPERATOR_ARGS, '--json']);
  expect(r.code, r.stdout + r.stderr).toBe(0);
  const results = JSON.parse(readFileSync(join(r.json.dir, 'results.json'), 'utf8')) as { evidence: { seller_inconsistencies: unknown[] } };
  return {
    inconsistencies: results.evidence.seller_inconsistencies,
    report: readFileSync(join(r.json.dir, 'report.md'), 'utf8'),
    cleanup: study.cleanup,
  };
}

describe('the pinned seller answers one request two ways', () => {
  let s: Ran;
  beforeAll(async () => {
    s = await run([
      // Two systems, one request: R2122-8 to one, R2121-1 to the other.
      { system: 'sys-a', item: 'mp-001', attempt: 1, text: "Selon l'article R2122-8, 40 000 euros.", passages: served('R2122-8') },
      { system: 'sys-b', item: 'mp-001', attempt: 1, text: "Selon l'article R2121-1.", passages: served('R2121-1') },
      // Two systems, one request, the same passages: served alike.
      { system: 'sys-a', item: 'mp-002', attempt: 1, text: "Selon l'article R2123-1.", passages: served('R2123-1') },
      { system: 'sys-b', item: 'mp-002', attempt: 1, text: "Selon l'article R2123-1.", passages: served('R2123-1') },
      // Two attempts of one system, one request, two answers from the service.
      { system: 'sys-a', item: 'mp-011', attempt: 1, text: "Selon l'article R2191-32.", passages: served('R2191-32') },
      { system: 'sys-a', item: 'mp-011', attempt: 2, text: "Selon l'article R2192-10.", passages: served('R2192-10') },
      // The fabrications: sys-c's proof was bought with sys-a's key (not bound to sys-c), sys-d's
      // response was altered after signing (TAMPERED). Neither may make the seller inconsistent.
      { system: 'sys-a', item: 'mp-004', attempt: 1, text: "Selon l'article R2131-12.", passages: served('R2131-12') },
      { system: 'sys-c', item: 'mp-004', attempt: 1, text: "Selon l'article R2122-8.", passages: served('R2122-8'), buyer: 'sys-a' },
      { system: 'sys-d', item: 'mp-004', attempt: 1, text: "Selon l'article R2131-12.", passages: served('R2131-12'), tamper: true },
      // sys-c's own genuine proof for mp-002, submitted without its response body: it shows nothing
      // served, which is not "served nothing", and may not make the seller inconsistent either.
      {
        system: 'sys-c',
        item: 'mp-002',
        attempt: 1,
        text: "Selon l'article R2123-1.",
        passages: served('R2123-1'),
        withholdResponse: true,
      },
    ]);
  }, 240_000);
  afterAll(() => s?.cleanup());

  it('lists each request served two ways, with every system and attempt and what it was served; not the request served alike, nor one made inconsistent by a proof that proves nothing', () => {
    const entry = (system_id: string, attempt: number, ref: string) => ({ system_id, attempt, evidence_index: 0, passages: served(ref) });
    expect(s.inconsistencies).toEqual([
      {
        reason_code: 'SELLER_INCONSISTENT',
        item_id: 'mp-001',
        request_hash: requestHash('mp-001'),
        seller: EXAMPLE_SELLER,
        served: [entry('sys-a', 1, 'R2122-8'), entry('sys-b', 1, 'R2121-1')],
      },
      {
        reason_code: 'SELLER_INCONSISTENT',
        item_id: 'mp-011',
        request_hash: requestHash('mp-011'),
        seller: EXAMPLE_SELLER,
        served: [entry('sys-a', 1, 'R2191-32'), entry('sys-a', 2, 'R2192-10')],
      },
    ]);
  });

  it("names them in the report's evidence section, which says what the check cannot show", () => {
    expect(s.report).toContain('SELLER\\_INCONSISTENT: 2 request(s) to a pinned seller were served different sets of passages');
    expect(s.report).toContain(
      `| mp-001 | ${requestHash('mp-001')} | retrieval.example | sys-a attempt 1: R2122-8; sys-b attempt 1: R2121-1 |`,
    );
    expect(s.report).toContain(
      `| mp-011 | ${requestHash('mp-011')} | retrieval.example | sys-a attempt 1: R2191-32; sys-a attempt 2: R2192-10 |`,
    );
    expect(s.report).toContain('this check cannot show that systems sending different requests were served alike');
    expect(s.report).not.toContain(requestHash('mp-004'));
    expect(s.report).not.toContain(requestHash('mp-002'));
  });
});
