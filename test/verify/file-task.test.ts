// `prereg verify FILE|DIR…` reads most proofs and evidence items with JSON.parse (the fast path of
// formats/json-fast-path.ts, pipeline/verify/file-task.ts): on files made to differ from what the
// fast path can read (number lexemes a double changes, duplicate keys, "__proto__", surrogate
// escapes, nesting, whitespace, disclosures, log entries, timelines, submission lines, single edits
// anywhere), every result is byte for byte the one the canonical parser alone gives.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildVerifyContext, runVerifyTask, verifyParsedDocument } from '../../pipeline/evidence/task/index.ts';
import { canonicalJson, CanonicalText, JsonParseError, parseJson } from '../../pipeline/formats/canonical-json.ts';
import { verifyFile } from '../../pipeline/verify/file-task.ts';
import { UNBOUNDED_WINDOW, verifyContextInputs } from '../../pipeline/verify/inputs.ts';
import { PROJECT_ROOT } from '../support/cli.ts';
import { pick, random } from '../support/seeded-random.ts';

const dir = mkdtempSync(join(tmpdir(), 'prereg-file-task-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const lines = readdirSync(join(PROJECT_ROOT, 'inputs/submissions'))
  .filter((f) => f.endsWith('.jsonl'))
  .flatMap((f) =>
    readFileSync(join(PROJECT_ROOT, 'inputs/submissions', f), 'utf8')
      .trim()
      .split('\n'),
  );
const items = lines.flatMap((l) => (JSON.parse(l) as { evidence: unknown[] }).evidence.map((e) => JSON.stringify(e)));

/** Texts a proof or evidence item may be turned into; each keeps most of the item valid JSON. */
const EDITS: Array<(text: string, r: () => number) => string> = [
  (t) => t,
  (t) => t.replace('"top_k":3', '"top_k":3.0'),
  (t) => t.replace(/"amount":([0-9.]+)/, '"amount":$10'),
  (t) => t.replace(/"amount":[0-9.]+/, '"amount":-0'),
  (t) => t.replace(/"amount":[0-9.]+/, '"amount":1e-1'),
  (t) => t.replace(/"amount":[0-9.]+/, '"amount":9007199254740993'),
  (t) => t.replace('{"proof":{', '{"proof":{"proof_id":"dup",'),
  (t) => t.replace('"request":{', '"request":{"a":1,"a":2,'),
  (t) => t.replace('"request":{', '"request":{"__proto__":{"x":1},'),
  (t) => t.replace('"request":{', '"request":{"s":"\\ud800",'),
  (t) => t.replace('"request":{', '"request":{"s":"\\ud83d\\ude00\\u00e9\\/",'),
  (t) => t.replace('"request":{', '"request":{"deep":[[[[[[[[1]]]]]]]],'),
  (t) => t.replace(/,/g, ' ,\n\t'),
  (t) => t.replace('{"proof":', '{"disclosure":{"disclosed":{}},"proof":'),
  (t) => t.replace('{"proof":', '{"transparency_log_entry":{"log_index":1.0},"proof":'),
  (t) => t.replace('{"proof":', '{"proof":5,"x":'),
  (t) => JSON.stringify((JSON.parse(t) as { proof: unknown }).proof),
  (t) => JSON.stringify({ ...(JSON.parse(t) as object), proof: 'not an object' }),
  (t) =>
    t.replace(
      '"spec_version":',
      '"batch_anchor":{"status":"anchored","leaf_index":1.5,"tree_size":2,"root":"sha256:00","audit_path":[]},"spec_version":',
    ),
  (t) => `[${t}]`,
  (t) => `{"receipt_schema_version":"1","x":${t}}`,
  (t, r) => {
    const i = Math.floor(r() * t.length);
    return t.slice(0, i) + pick(r, ['"', '\\', ',', ':', '{', '}', '0', '.', 'e', '-', ' ', 'x']) + t.slice(i + 1);
  },
  (t, r) => {
    const i = Math.floor(r() * t.length);
    return t.slice(0, i) + t.slice(i + 1);
  },
];

describe('verify FILE: the fast path against the canonical parser', () => {
  const ctx = buildVerifyContext(verifyContextInputs(join(PROJECT_ROOT, 'preregistration/trust'), UNBOUNDED_WINDOW, []));

  it('gives byte-identical results for every file, whichever parser read it', async () => {
    const r = random(26);
    let n = 0;
    for (const item of items) {
      for (const edit of EDITS) {
        for (let k = 0; k < 2; k++) {
          const file = join(dir, `f${n++}.json`);
          writeFileSync(file, edit(item, r));
          const fast = JSON.stringify(await verifyFile(file, ctx));
          const strict = JSON.stringify(await verifyFile(file, ctx, { fastPath: false }));
          if (fast !== strict) expect.fail(`${file}: ${readFileSync(file, 'utf8').slice(0, 400)}\nfast   ${fast}\nstrict ${strict}`);
        }
      }
    }
    expect(n).toBeGreaterThan(100);
  });

  it("the study stage's task: a proof text read by either parser verifies to the same result", async () => {
    const proofEdits: Array<(t: string) => string> = [
      (t) => t,
      (t) => t.replace(/"amount":[0-9.]+/, '"amount":0.10'),
      (t) => t.replace(/"amount":[0-9.]+/, '"amount":-0'),
      (t) => t.replace(/"amount":[0-9.]+/, '"amount":1E-1'),
      (t) => t.replace(/"amount":[0-9.]+/, '"amount":12345678901234567'),
      (t) => t.replace('{', '{"proof_id":"dup",'),
      (t) => t.replace('{', '{"__proto__":{"x":1},'),
      (t) => t.replace('{', '{"x":"\\udfff",'),
      (t) => t.replace(/,/g, ', '),
      (t) =>
        t.replace(
          '"spec_version":',
          '"batch_anchor":{"status":"anchored","leaf_index":1.5,"tree_size":2,"root":"sha256:00","audit_path":[]},"spec_version":',
        ),
    ];
    let n = 0;
    for (const item of items) {
      const { proof, request, response } = JSON.parse(item) as { proof: unknown; request?: unknown; response?: unknown };
      for (const edit of proofEdits) {
        const text = edit(JSON.stringify(proof));
        let parsed;
        try {
          parsed = parseJson(text);
        } catch (e) {
          if (e instanceof JsonParseError) continue; // both refuse it: runVerifyTask reports the canonical parser's code
          throw e;
        }
        const bodies = {
          request: request === undefined ? null : canonicalJson(request),
          response: response === undefined ? null : canonicalJson(response),
        };
        const task = { kind: 'evidence' as const, key: `k${n++}`, proof: text, ...bodies, disclosure: null, transparency_log_entry: null };
        const strict = await verifyParsedDocument(
          {
            kind: 'evidence',
            key: task.key,
            proof: parsed,
            ...(bodies.request !== null ? { request: new CanonicalText(bodies.request) } : {}),
            ...(bodies.response !== null ? { response: new CanonicalText(bodies.response) } : {}),
          },
          ctx,
        );
        expect(JSON.stringify(await runVerifyTask(task, ctx)), text).toBe(JSON.stringify(strict));
      }
    }
    expect(n).toBeGreaterThan(50);
  });

  it('gives byte-identical results for submission files, line by line', async () => {
    const r = random(261);
    // 150 lines and an edited copy of each: under the 2 MiB a verify FILE reads.
    const some = lines.slice(0, 150);
    const edited = some.map((l) => pick(r, EDITS.slice(0, 13))(l, r));
    const file = join(dir, 'submission.jsonl');
    writeFileSync(file, `${[...some, ...edited].join('\n')}\n`);
    const fast = await verifyFile(file, ctx);
    expect(fast.length).toBeGreaterThan(some.length);
    expect(JSON.stringify(fast)).toBe(JSON.stringify(await verifyFile(file, ctx, { fastPath: false })));
  });
});
