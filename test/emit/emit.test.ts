// emit end to end on a hand-made store, checked with the real tools an auditor would use:
// sha256sum -c, openssl cms -verify, openssl pkeyutl -verify, DuckDB reading the Parquet back.
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { artifactDigestOf, decisionDigest, runIdOf, type Manifest } from '../../pipeline/emit/manifest.ts';
import { canonicalJson, parseJson, type JsonObject } from '../../pipeline/formats/canonical-json.ts';
import { sha256Hex } from '../../pipeline/formats/hash.ts';
import { studyLayout } from '../../pipeline/layout.ts';
import { PreregError } from '../../pipeline/reasons.ts';
import { DATA_FILES } from '../../pipeline/emit/manifest.ts';
import { emitOutputs, type EmitResult } from '../../pipeline/emit/outputs.ts';
import { runCli } from '../support/cli.ts';
import { filesOf, KEY_ARGS, KEY_FILES, KEYS, rowsOf, run, studyWithStore, variantStore } from './helpers.ts';

let study: Awaited<ReturnType<typeof studyWithStore>>;
let first: EmitResult;
const scratch = mkdtempSync(join(tmpdir(), 'prereg-emit-'));

beforeAll(async () => {
  study = await studyWithStore();
  first = await emitOutputs(studyLayout(study.root), { keys: KEYS });
});
afterAll(() => {
  study?.cleanup();
  rmSync(scratch, { recursive: true, force: true });
});

function manifestOf(dir: string): Manifest {
  return JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as Manifest;
}

/** A copy of the output directory with one byte of manifest.json flipped. */
function tamperedCopy(name: string): string {
  const copy = join(scratch, name);
  cpSync(first.dir, copy, { recursive: true });
  const path = join(copy, 'manifest.json');
  const bytes = readFileSync(path);
  bytes[10] = bytes[10]! ^ 0x01;
  writeFileSync(path, bytes);
  return copy;
}

describe('emit: the output directory', () => {
  it('holds exactly the files of SPEC §7, under outputs/<run_id>/, with no temporary left', () => {
    expect(first.dir).toBe(join(study.root, 'outputs', first.run_id));
    expect(first.run_id).toMatch(/^[0-9a-f]{16}$/);
    expect(readdirSync(join(study.root, 'outputs'))).toEqual([first.run_id]);
    expect(readdirSync(first.dir).sort()).toEqual([...DATA_FILES, 'manifest.json', 'SHA256SUMS', 'manifest.sig', 'manifest.p7s'].sort());
  });

  it('passes `sha256sum -c SHA256SUMS`, which covers every file but itself and the signatures', () => {
    const r = run('sha256sum', ['-c', '--strict', 'SHA256SUMS'], first.dir);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const sums = readFileSync(join(first.dir, 'SHA256SUMS'), 'utf8');
    const names = sums
      .trimEnd()
      .split('\n')
      .map((l) => l.split('  ')[1]);
    expect(names).toEqual([...DATA_FILES, 'manifest.json'].sort());
    expect(sums).toMatch(/^([0-9a-f]{64} {2}[a-z0-9_.]+\n)+$/);
    expect(run('sha256sum', ['-c', '--strict', 'SHA256SUMS'], tamperedCopy('sums-tampered')).status).not.toBe(0);
  });

  it('signs manifest.json with the operator Ed25519 key: openssl pkeyutl verifies, and fails on a flipped byte', () => {
    expect(readFileSync(join(first.dir, 'manifest.sig'))).toHaveLength(64);
    const verify = (dir: string) =>
      run('openssl', [
        'pkeyutl',
        '-verify',
        '-pubin',
        '-inkey',
        KEY_FILES.operatorPub,
        '-rawin',
        '-in',
        join(dir, 'manifest.json'),
        '-sigfile',
        join(dir, 'manifest.sig'),
      ]);
    const ok = verify(first.dir);
    expect(ok.stdout + ok.stderr).toContain('Signature Verified Successfully');
    expect(ok.status).toBe(0);
    expect(verify(tamperedCopy('sig-tampered')).status).not.toBe(0);
  });

  it('signs manifest.json with a detached CMS signature: openssl cms -verify passes, and fails on a flipped byte', () => {
    const verify = (dir: string, caFile = KEY_FILES.operatorCert) =>
      run('openssl', [
        'cms',
        '-verify',
        '-binary',
        '-inform',
        'DER',
        '-in',
        join(dir, 'manifest.p7s'),
        '-content',
        join(dir, 'manifest.json'),
        '-CAfile',
        caFile,
        '-purpose',
        'any',
        '-out',
        '/dev/null',
      ]);
    const ok = verify(first.dir);
    expect(ok.stderr).toContain('Verification successful');
    expect(ok.status).toBe(0);
    expect(verify(tamperedCopy('cms-tampered')).status).not.toBe(0);
    // Another root (the TEST-ONLY TSA root) does not anchor the CMS signer.
    const other = join(KEY_FILES.operatorCert, '../../pki/TEST-ONLY-tsa-root.cert.pem');
    expect(verify(first.dir, other).status).not.toBe(0);
  });

  it('embeds the operator certificate, whose key is the pinned operator key', () => {
    const certs = run('openssl', ['pkcs7', '-inform', 'DER', '-in', join(first.dir, 'manifest.p7s'), '-print_certs']);
    expect(certs.status).toBe(0);
    const blocks = certs.stdout.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g) ?? [];
    expect(blocks).toHaveLength(2);
    const certFile = join(scratch, 'embedded-operator.pem');
    writeFileSync(certFile, `${blocks[1]}\n`);
    const pub = run('openssl', ['x509', '-in', certFile, '-noout', '-pubkey']);
    expect(pub.stdout).toBe(readFileSync(join(study.root, 'preregistration/trust/operator/TEST-ONLY-operator.pub.pem'), 'utf8'));
  });
});

describe('emit: manifest.json', () => {
  it('is canonical JSON plus a newline, listing every input digest, the versions and every data file', () => {
    const text = readFileSync(join(first.dir, 'manifest.json'), 'latin1');
    expect(text.endsWith('\n')).toBe(true);
    expect(canonicalJson(parseJson(text.slice(0, -1)))).toBe(text.slice(0, -1));
    const m = manifestOf(first.dir);
    expect(m).toEqual(first.manifest);
    expect(m.format).toBe('prereg.manifest/1');
    expect(m.study_id).toBe('example-procurement-2026');
    expect(m.as_of).toBe('2026-11-20');
    expect(m.run_id).toBe(first.run_id);
    expect(m.tool.name).toBe('prereg');
    expect(m.duckdb_version).toMatch(/^v\d+\.\d+\.\d+/);
    const frozen = JSON.parse(readFileSync(join(study.root, 'preregistration/freeze.json'), 'utf8'));
    expect(m.inputs).toMatchObject({
      corpus_root: frozen.corpus.root,
      section5_sha256: frozen.section5_sha256,
      answer_key_root: frozen.answer_key.root,
      trust_root: frozen.trust.root,
      freeze_digest: sha256Hex(canonicalJson(parseJson(readFileSync(join(study.root, 'preregistration/freeze.json'), 'utf8')))),
      commitments_sha256: sha256Hex(readFileSync(join(study.root, 'inputs/commitments.jsonl'))),
      // Each token and its metadata.
      anchors: ['local-test-tsa.json', 'local-test-tsa.tsr'].map((f) => ({
        file: `preregistration/anchors/${f}`,
        sha256: sha256Hex(readFileSync(join(study.root, 'preregistration/anchors', f))),
      })),
    });
    expect(m.inputs.submissions).toEqual([
      { file: 'inputs/submissions/sys-a.jsonl', sha256: 'a'.repeat(64), bytes: 4096 },
      { file: 'inputs/submissions/sys-b.jsonl', sha256: 'b'.repeat(64), bytes: 2048 },
    ]);
    expect(m.outputs.map((o) => o.file)).toEqual([...DATA_FILES].sort());
    for (const o of m.outputs) {
      const bytes = readFileSync(join(first.dir, o.file));
      expect(o).toEqual({ file: o.file, bytes: bytes.length, sha256: sha256Hex(bytes) });
    }
  });

  it('derives run_id from the inputs alone, and artifact_digest from everything but itself', () => {
    const m = manifestOf(first.dir);
    expect(runIdOf(m.inputs)).toBe(m.run_id);
    expect(sha256Hex(canonicalJson(m.inputs)).slice(0, 16)).toBe(m.run_id);
    expect(artifactDigestOf(m as unknown as Record<string, unknown>)).toBe(m.artifact_digest);
    const { artifact_digest: _a, ...rest } = m;
    expect(sha256Hex(canonicalJson(rest))).toBe(m.artifact_digest);
  });

  it('computes decision_digest over the classes, scores and hypotheses rows of results.json', () => {
    const results = parseJson(readFileSync(join(first.dir, 'results.json'), 'latin1').trimEnd()) as JsonObject;
    const expected = sha256Hex(
      canonicalJson({ assertion_classes: results.assertion_classes, scores: results.scores, hypotheses: results.hypotheses }),
    );
    expect(first.manifest.decision_digest).toBe(expected);
    expect(
      decisionDigest({
        assertion_classes: results.assertion_classes as unknown[],
        scores: results.scores as unknown[],
        hypotheses: results.hypotheses as unknown[],
      }),
    ).toBe(expected);
  });
});

describe('emit: data files', () => {
  it('writes results.json as canonical JSON: rows in total order, every column, exact numbers, escaped unicode', () => {
    const text = readFileSync(join(first.dir, 'results.json'), 'latin1');
    expect(/^[\x20-\x7e]*\n$/.test(text)).toBe(true); // ASCII only: non-ASCII is \u-escaped
    const r = JSON.parse(text);
    expect(Object.keys(r).sort()).toEqual([
      'as_of',
      'assertion_classes',
      'constancy',
      'constancy_flips',
      'coverage',
      'discordant_items',
      'evidence',
      'format',
      'hypotheses',
      'noise_floor',
      'retrieval',
      'run_id',
      'score_intervals',
      'scores',
      'sign_test_adjustments',
      'sign_tests',
      'study_id',
    ]);
    // Coverage, the hidden job and the refusal flag the text contradicts (record 5: flag false, text true).
    expect(r.coverage.systems.map((c: { system_id: string; missing: number }) => [c.system_id, c.missing])).toEqual([
      ['sys-a', 2],
      ['sys-b', 4],
    ]);
    expect(r.coverage.jobs_not_submitted).toEqual([
      {
        system_id: 'sys-b',
        job_id: 'job-hidden',
        reason_code: 'JOB_NOT_SUBMITTED',
        bound_by: ['intake'],
        file: 'inputs/commitments/sys-b.jsonl',
        line_no: 2,
      },
    ]);
    expect(r.coverage.refusal_flags_disagreeing).toEqual([
      {
        system_id: 'sys-b',
        item_id: 'mp-002',
        attempt: 1,
        file: 'inputs/submissions/sys-b.jsonl',
        line_no: 3,
        refused_flag: false,
        refused_by_text: true,
        reason_code: 'REFUSAL_FLAG_DISAGREES',
      },
    ]);
    expect(r.sign_test_adjustments[0]).toMatchObject({
      system_a: 'sys-a',
      system_b: 'sys-b',
      p_holm: 1.0,
      fewest_discordant: 6,
      wins_needed: null,
      caveats: [],
    });
    expect(r.sign_test_adjustments.map((a: { metric: string; caveats: string[] }) => [a.metric, a.caveats])).toEqual([
      ['phantom_count', []],
      ['positives_citing_expected', ['TRUNCATION_GAP']],
    ]);
    // The caveat is shown beside its comparison, the last cell of its sign-test row.
    expect(readFileSync(join(first.dir, 'report.md'), 'utf8')).toContain('| mp-003 | mp-001 | TRUNCATION\\_GAP |\n');
    // Whose evidence is whose: every reuse, and per system what was not bound or reused.
    expect(r.evidence).toEqual({
      registered_systems: [],
      reuse: [
        {
          kind: 'proof_id',
          value: 'prf_copied',
          records: ['sys-a/mp-001/1', 'sys-b/mp-002/1'],
          systems: ['sys-a', 'sys-b'],
          claimed_by: ['sys-a/mp-001/1', 'sys-b/mp-002/1'],
          cancels: true,
        },
      ],
      by_system: [
        {
          system_id: 'sys-a',
          proofs: 1,
          verified: 1,
          proofs_not_bound: 0,
          proofs_reused: 1,
          timelines_reused: 0,
          proofs_seller_not_pinned: 0,
          passages_not_in_corpus: 0,
        },
        {
          system_id: 'sys-b',
          proofs: 2,
          verified: 1,
          proofs_not_bound: 0,
          proofs_reused: 1,
          timelines_reused: 0,
          proofs_seller_not_pinned: 0,
          passages_not_in_corpus: 0,
        },
      ],
      // One request, grouped from the store's rows: each proof with its passages, in order of system and attempt.
      seller_inconsistencies: [
        {
          reason_code: 'SELLER_INCONSISTENT',
          item_id: 'mp-001',
          request_hash: 'c'.repeat(64),
          seller: 'retrieval.example',
          served: [
            {
              system_id: 'sys-a',
              attempt: 1,
              evidence_index: 0,
              passages: [
                { ref: 'R2122-8', text: 't8' },
                { ref: 'R2123-1', text: 't3' },
              ],
            },
            { system_id: 'sys-b', attempt: 1, evidence_index: 0, passages: [{ ref: 'R2121-1', text: 't1' }] },
          ],
        },
      ],
    });
    // The report lists the derived amount (not the one the corpus writes) and names the request.
    const report = readFileSync(join(first.dir, 'report.md'), 'utf8');
    expect(report).toContain('| mp-003 | R2123-1 | 5759000 EUR | the sum of the two thresholds |');
    expect(report).not.toContain('| mp-001 | R2122-8 | 40000 EUR |');
    expect(report).toContain(
      `| mp-001 | ${'c'.repeat(64)} | retrieval.example | sys-a attempt 1: R2122-8, R2123-1; sys-b attempt 1: R2121-1 |`,
    );
    expect(r).toMatchObject({
      format: 'prereg.results/1',
      study_id: 'example-procurement-2026',
      as_of: '2026-11-20',
      run_id: first.run_id,
    });
    expect(r.scores.map((s: { system_id: string; metric: string }) => `${s.system_id}/${s.metric}`)).toEqual([
      'sys-a/phantom_count',
      'sys-a/positives_citing_expected',
      'sys-a/refusal_rate',
      'sys-b/phantom_count',
      'sys-b/positives_citing_expected',
    ]);
    expect(r.scores[1]).toEqual({
      system_id: 'sys-a',
      metric: 'positives_citing_expected',
      declared: 3,
      proven: 2,
      n_declared: 4,
      n_proven: 4,
    });
    expect(r.scores[2]).toEqual({
      system_id: 'sys-a',
      metric: 'refusal_rate',
      declared: null,
      proven: null,
      n_declared: null,
      n_proven: null,
    });
    // Doubles as Python's repr: 1.0 stays 1.0.
    expect(text).toContain('"p_value":1.0');
    expect(text).toContain('"p_value":0.625');
    expect(text).toContain('"observed":0.2833333333333333');
    // The extra columns, a TIMESTAMPTZ in UTC whatever the process time zone, and a list.
    expect(r.hypotheses.map((h: { hypothesis_id: string }) => h.hypothesis_id)).toEqual(['H1', 'H2']);
    expect(r.hypotheses[1]).toMatchObject({ registered_at: '2026-10-01 00:00:00+00', tags: ['gap'] });
    expect(text).toContain('\\u00ab\\u00e9cart\\u00bb');
    expect(r.assertion_classes.map((a: { assertion_id: string }) => a.assertion_id)).toEqual(['a1', 'a2', 'a4', 'a5', 'a3']);
  });

  it('writes scores.csv and rejects.csv with a header, the named columns first, RFC 4180 quoting and NULL as an empty field', () => {
    const scores = readFileSync(join(first.dir, 'scores.csv'), 'utf8');
    expect(scores).toBe(
      [
        // Each score's exact interval follows it (empty where the score has none).
        'system_id,metric,declared,proven,n_declared,n_proven,alpha,declared_lower,declared_upper,proven_lower,proven_upper',
        'sys-a,phantom_count,1,1,5,5,,,,,',
        'sys-a,positives_citing_expected,3,2,4,4,0.05,0.3976354952078,1.0,0.0675865993,0.9324134007',
        'sys-a,refusal_rate,,,,,,,,,',
        'sys-b,phantom_count,0,0,0,0,,,,,',
        'sys-b,positives_citing_expected,2,1,3,3,0.05,0.0942993240502498,0.9915962413184828,0.008403758681517088,0.9057007194831',
        '',
      ].join('\n'),
    );
    const rejects = readFileSync(join(first.dir, 'rejects.csv'), 'utf8');
    expect(rejects).toBe(
      [
        'file,line_no,byte_offset,line_sha256,reason_code,column_no,detail',
        `inputs/submissions/sys-a.jsonl,9,77,${'d'.repeat(64)},LINE_EMPTY,,""`,
        `inputs/submissions/sys-b.jsonl,2,500,${'c'.repeat(64)},SUBMISSION_SCHEMA,17,"missing ""answer"", café; line 2"`,
        '',
      ].join('\n'),
    );
  });

  it('writes Parquet files that DuckDB reads back with the same columns and rows, in total order', async () => {
    for (const table of ['assertions', 'proof_checks', 'chain_checks']) {
      const path = join(first.dir, `${table}.parquet`).replaceAll("'", "''");
      const back = await rowsOf(':memory:', `SELECT * FROM read_parquet('${path}')`);
      const original = await rowsOf(study.store, `SELECT * FROM ${table} ORDER BY ALL`);
      expect(back, table).toEqual(original);
      expect(back.length, table).toBeGreaterThan(1);
      const described = async (db: string, from: string) =>
        (await rowsOf(db, `DESCRIBE SELECT * FROM ${from}`)).map((c) => [c.column_name, c.column_type]);
      expect(await described(':memory:', `read_parquet('${path}')`), table).toEqual(await described(study.store, table));
    }
    const proofs = await rowsOf(':memory:', `SELECT status FROM read_parquet('${join(first.dir, 'proof_checks.parquet')}')`);
    expect(proofs.map((p) => p.status)).toEqual(['VERIFIED', 'UNTRUSTED', 'TAMPERED']); // record_id 1, 4, 5
  });

  it('renders report.md with exact fractions beside rounded percentages', () => {
    const md = readFileSync(join(first.dir, 'report.md'), 'utf8');
    const metric = 'positive answers citing an expected reference (higher is better)';
    // Each rate with its exact interval, widened outwards to one decimal.
    expect(md).toContain(`| sys-a | ${metric} | 3/4 (75.0%) | \\[39.7%, 100.0%\\] | 2/4 (50.0%) | \\[6.7%, 93.3%\\] | −25.0 pts |`);
    expect(md).toContain(`| sys-b | ${metric} | 2/3 (66.7%) | \\[9.4%, 99.2%\\] | 1/3 (33.3%) | \\[0.8%, 90.6%\\] | −33.3 pts |`);
    expect(md).toContain('exact two-sided Clopper–Pearson 95% interval');
    // Coverage beside the scores: what the protocol expected, what came, the hidden job.
    expect(md).toContain('| sys-b | no | INCOMPLETE | 6 | 2 | 4 | 1 | 1 |');
    expect(md).toContain('| sys-b | job-hidden | JOB\\_NOT\\_SUBMITTED | intake | inputs/commitments/sys-b.jsonl | 2 |');
    expect(md).toContain('REFUSAL\\_FLAG\\_DISAGREES');
    // A metric study.json does not name stays as section 5 wrote it.
    expect(md).toContain('| sys-a | phantom\\_count | 1/5 (20.0%) |');
    expect(md).toContain('0/0 (n/a)');
    expect(md).toContain('| total | 7 | 6 | 1 |');
    expect(md).toContain('1 independent witness(es) confirmed the freeze');
    expect(md).toContain('as of 2026-11-20');
  });

  it('leads report.md with its finding: a sentence per system on the primary metric, then the hypotheses', () => {
    const md = readFileSync(join(first.dir, 'report.md'), 'utf8');
    const head = md.split('\n## ')[1]!;
    expect(head.startsWith('Finding\n')).toBe(true);
    expect(head).toContain('Primary metric: positive answers citing an expected reference (higher is better).');
    expect(head).toContain('- sys-a: 3/4 (75.0%) declared, 2/4 (50.0%) proven — proven is 25.0 points below declared.');
    expect(head).toContain('- sys-b: 2/3 (66.7%) declared, 1/3 (33.3%) proven — proven is 33.3 points below declared.');
    // Observed as an exact fraction when section 5 gives one, else a rounded percentage; never the raw double.
    // Beside it, its interval for reading and the Holm-adjusted p-values that decided it, and why.
    expect(head).toContain('| H2 | SUPPORTED | ≈ 28.3% | \\[15.0%, 45.0%\\] | 10% | 0.002 | 1 | the threshold is met |');
    expect(md).not.toContain('0.2833333333333333');
    // sys-a was counted over 3 attempts, sys-b over 2: flagged in the finding, constancy and sign tests.
    expect(head).toContain('different numbers of attempts per item (sys-a 3, sys-b 2)');
    expect(md).toContain(
      '| sys-a | sys-b | positive answers citing an expected reference (higher is better) | 3 / 2 — not comparable | 3 | 1 | 0 | 0.625 | 1 | no | none of 4 | — | mp-003 | mp-001 |',
    );
    expect(md).toContain('the fewest discordant items with which any comparison could reach significance is 6');
  });

  it('renders a self-contained report.html: inline CSS and SVG charts, no script, nothing to load', () => {
    const html = readFileSync(join(first.dir, 'report.html'), 'utf8');
    expect(html).toMatch(/^<!DOCTYPE html>/);
    expect((html.match(/<svg /g) ?? []).length).toBe(4); // the primary metric's, then one chart per metric
    expect(html).toContain('<figure id="primary-chart">');
    expect(html).toContain('<style>');
    expect(html).toContain('class="declared"');
    expect(html).toContain('class="proven"');
    expect(html).not.toMatch(/https?:\/\//i);
    expect(html).not.toMatch(/<script|<link|<img|<iframe|<object|@import|url\(|\bsrc=|\bhref=/i);
    expect(html).toContain('2/3 (66.7%)');
  });
});

describe('emit: reproducibility and refusals', () => {
  it('writes byte-identical directories from the same store (another outputs dir, same run_id)', async () => {
    const other = join(scratch, 'second-outputs');
    const second = await emitOutputs(studyLayout(study.root), { keys: KEYS, outputsDir: other });
    expect(second.run_id).toBe(first.run_id);
    const a = filesOf(first.dir);
    const b = filesOf(second.dir);
    expect([...b.keys()]).toEqual([...a.keys()]);
    for (const [name, bytes] of a) expect(b.get(name)!.equals(bytes), name).toBe(true);
  });

  it('refuses to overwrite an existing outputs/<run_id>/ (OUTPUT_EXISTS, exit 4), writing nothing', async () => {
    const before = filesOf(first.dir);
    const err = await emitOutputs(studyLayout(study.root), { keys: KEYS }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PreregError);
    expect((err as PreregError).code).toBe('OUTPUT_EXISTS');
    expect((err as PreregError).exitCode).toBe(4);
    const cli = await runCli(['emit', '--root', study.root, ...KEY_ARGS, '--json']);
    expect(cli.code).toBe(4);
    expect(cli.json.code).toBe('OUTPUT_EXISTS');
    expect(readdirSync(join(study.root, 'outputs'))).toEqual([first.run_id]);
    expect(filesOf(first.dir)).toEqual(before);
  });

  it('changes decision_digest when a score row changes, and not when only a proof_checks row changes', async () => {
    const layout = studyLayout(study.root);
    const scoresStore = join(scratch, 'scores-changed', 'prereg.duckdb');
    await variantStore(
      study.store,
      scoresStore,
      "UPDATE result_scores SET proven = 1 WHERE system_id = 'sys-a' AND metric = 'positives_citing_expected'",
    );
    const scoresChanged = await emitOutputs(layout, { keys: KEYS, storeFile: scoresStore, outputsDir: join(scratch, 'out-scores') });
    expect(scoresChanged.manifest.decision_digest).not.toBe(first.manifest.decision_digest);

    const proofsStore = join(scratch, 'proofs-changed', 'prereg.duckdb');
    await variantStore(study.store, proofsStore, "UPDATE proof_checks SET status = 'MALFORMED' WHERE record_id = 4");
    const proofsChanged = await emitOutputs(layout, { keys: KEYS, storeFile: proofsStore, outputsDir: join(scratch, 'out-proofs') });
    expect(proofsChanged.run_id).toBe(first.run_id);
    expect(proofsChanged.manifest.decision_digest).toBe(first.manifest.decision_digest);
    expect(proofsChanged.manifest.artifact_digest).not.toBe(first.manifest.artifact_digest);
    const sha = (r: EmitResult, f: string) => r.manifest.outputs.find((o) => o.file === f)!.sha256;
    expect(sha(proofsChanged, 'proof_checks.parquet')).not.toBe(sha(first, 'proof_checks.parquet'));
    expect(sha(proofsChanged, 'results.json')).toBe(sha(first, 'results.json'));
  });

  it('refuses an operator key that is not the pinned one (OPERATOR_KEY_MISMATCH, exit 3) before writing', async () => {
    const outputsDir = join(scratch, 'out-mismatch');
    const wrong = readFileSync(join(KEY_FILES.operatorKey, '../TEST-ONLY-arkforge-2026.key.pem'), 'utf8');
    const err = (await emitOutputs(studyLayout(study.root), { keys: { ...KEYS, operatorKey: wrong }, outputsDir }).catch(
      (e: unknown) => e,
    )) as PreregError;
    expect([err.code, err.exitCode]).toEqual(['OPERATOR_KEY_MISMATCH', 3]);
    expect(existsSync(outputsDir)).toBe(false);
  });

  it('refuses a CMS certificate the operator key did not issue, and a non-RSA CMS key (OPERATOR_CMS_INVALID)', async () => {
    const pki = join(KEY_FILES.operatorKey, '../../pki');
    const outputsDir = join(scratch, 'out-cms');
    const foreign = {
      ...KEYS,
      cmsKey: readFileSync(join(pki, 'TEST-ONLY-tsa-root.key.pem'), 'utf8'),
      cmsCert: readFileSync(join(pki, 'TEST-ONLY-tsa-root.cert.pem'), 'utf8'),
    };
    const e1 = (await emitOutputs(studyLayout(study.root), { keys: foreign, outputsDir }).catch((e: unknown) => e)) as PreregError;
    expect([e1.code, e1.exitCode]).toEqual(['OPERATOR_CMS_INVALID', 3]);
    expect(e1.message).toContain('not issued by the operator key');
    const ec = { ...KEYS, cmsKey: readFileSync(join(pki, 'TEST-ONLY-tsa.key.pem'), 'utf8') };
    const e2 = (await emitOutputs(studyLayout(study.root), { keys: ec, outputsDir }).catch((e: unknown) => e)) as PreregError;
    expect(e2.code).toBe('OPERATOR_CMS_INVALID');
    const mismatched = { ...KEYS, cmsKey: readFileSync(join(pki, 'TEST-ONLY-unpinned-tsa.key.pem'), 'utf8') };
    const e3 = (await emitOutputs(studyLayout(study.root), { keys: mismatched, outputsDir }).catch((e: unknown) => e)) as PreregError;
    expect(e3.message).toContain('does not carry the CMS key');
    expect(existsSync(outputsDir)).toBe(false);
  });

  it('refuses without keys (OPERATOR_KEY_MISSING, exit 3) and reads them from the environment', async () => {
    const outputsDir = join(scratch, 'out-env');
    const none = await runCli(['emit', '--root', study.root, '--outputs', outputsDir, '--json']);
    expect([none.code, none.json.code]).toEqual([3, 'OPERATOR_KEY_MISSING']);
    const env = {
      PREREG_OPERATOR_KEY: KEYS.operatorKey,
      PREREG_OPERATOR_CMS_KEY: KEY_FILES.cmsKey,
      PREREG_OPERATOR_CMS_CERT: KEYS.cmsCert,
    };
    const ok = await runCli(['emit', '--root', study.root, '--outputs', outputsDir, '--json'], env);
    expect(ok.code).toBe(0);
    expect(ok.json).toMatchObject({
      ok: true,
      run_id: first.run_id,
      decision_digest: first.manifest.decision_digest,
      artifact_digest: first.manifest.artifact_digest,
    });
  });

  it('refuses a primary metric that section 5 does not score (REPORT_METRIC_UNKNOWN, exit 3), writing nothing', async () => {
    const renamed = join(scratch, 'metric', 'prereg.duckdb');
    await variantStore(
      study.store,
      renamed,
      "UPDATE result_scores SET metric = 'cites_expected' WHERE metric = 'positives_citing_expected'",
    );
    const outputsDir = join(scratch, 'out-metric');
    const err = (await emitOutputs(studyLayout(study.root), { keys: KEYS, storeFile: renamed, outputsDir }).catch(
      (e: unknown) => e,
    )) as PreregError;
    expect([err.code, err.exitCode]).toEqual(['REPORT_METRIC_UNKNOWN', 3]);
    expect(err.message).toContain('"positives_citing_expected"');
    expect(existsSync(outputsDir)).toBe(false);
  });

  it('reads tables only: a result table that is a view is refused (OUTPUT_STORE_INCOMPLETE), a missing store too', async () => {
    const viewStore = join(scratch, 'view', 'prereg.duckdb');
    await variantStore(
      study.store,
      viewStore,
      'ALTER TABLE result_hypotheses RENAME TO h_rows; CREATE VIEW result_hypotheses AS SELECT * FROM h_rows;',
    );
    const err = (await emitOutputs(studyLayout(study.root), {
      keys: KEYS,
      storeFile: viewStore,
      outputsDir: join(scratch, 'out-view'),
    }).catch((e: unknown) => e)) as PreregError;
    expect([err.code, err.exitCode]).toEqual(['OUTPUT_STORE_INCOMPLETE', 3]);
    expect(err.message).toContain('no table result_hypotheses');
    const colStore = join(scratch, 'col', 'prereg.duckdb');
    await variantStore(study.store, colStore, 'ALTER TABLE result_scores DROP COLUMN n_proven;');
    const err2 = (await emitOutputs(studyLayout(study.root), {
      keys: KEYS,
      storeFile: colStore,
      outputsDir: join(scratch, 'out-col'),
    }).catch((e: unknown) => e)) as PreregError;
    expect(err2.message).toContain('result_scores lacks n_proven');
    const err3 = (await emitOutputs(studyLayout(study.root), {
      keys: KEYS,
      storeFile: join(scratch, 'nope.duckdb'),
      outputsDir: join(scratch, 'out-none'),
    }).catch((e: unknown) => e)) as PreregError;
    expect(err3.code).toBe('OUTPUT_STORE_INCOMPLETE');
  });
});
