// Hostile served passages, end to end through `run`.
//
// A lone surrogate escape ("\udfff", "\ud800") anywhere in a submission line is not Unicode text:
// ingest refuses the line (SUBMISSION_SCHEMA, with the JSON pointer), so no later stage meets
// it. Before, such a line was accepted and `run` died in DuckDB with INTERNAL_ERROR.
import { auditorFlags, publishedFreezeDigest } from '../support/auditor.ts';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, TEST_OPERATOR_ARGS } from '../support/cli.ts';
import { buildSmallStudy } from '../support/small-study.ts';

const TEXT = "Selon l'article R2122-8, le seuil est de 40 000 euros.";

describe('lone surrogates in an evidence response', () => {
  let study: { root: string; cleanup: () => void };
  beforeAll(async () => {
    study = await buildSmallStudy([
      { system: 'sys-ok', item: 'mp-001', attempt: 1, text: TEXT, passages: [{ ref: 'R2122-8', text: 'seuil de 40 000 euros' }] },
      { system: 'sys-text', item: 'mp-001', attempt: 1, text: TEXT, passages: [{ ref: 'R2122-8', text: 'a \udfff b' }] },
      { system: 'sys-ref', item: 'mp-001', attempt: 1, text: TEXT, passages: [{ ref: 'R2122-8\ud800', text: 'x' }] },
      { system: 'sys-field', item: 'mp-001', attempt: 1, text: TEXT, passages: [{ ref: 'R2122-8', text: 'x' }] },
      { system: 'sys-string', item: 'mp-001', attempt: 1, text: TEXT, passages: [{ ref: 'R2122-8', text: 'x' }] },
      // Accepted: a served passage of 200,000 digits (classify was quadratic in a digit run).
      { system: 'sys-digits', item: 'mp-001', attempt: 1, text: TEXT, passages: [{ ref: 'R2122-8', text: `${'1'.repeat(200_000)} €` }] },
    ]);
    const patch = (system: string, edit: (line: any) => void) => {
      const file = join(study.root, 'inputs/submissions', `${system}.jsonl`);
      const line = JSON.parse(readFileSync(file, 'utf8'));
      edit(line);
      writeFileSync(file, `${JSON.stringify(line)}\n`); // JSON.stringify writes a lone surrogate as its escape
    };
    patch('sys-field', (l) => void (l.evidence[0].response.other = '\udfff'));
    patch('sys-string', (l) => void (l.evidence[0].response = '\ud800'));
  }, 60_000);
  afterAll(() => study.cleanup());

  it('validate rejects each of the four lines with the pointer, and accepts the clean one', async () => {
    const files = ['sys-ok', 'sys-digits', 'sys-text', 'sys-ref', 'sys-field', 'sys-string'].map((s) =>
      join(study.root, 'inputs/submissions', `${s}.jsonl`),
    );
    const r = await runCli(['validate', ...files, '--root', study.root, '--json']);
    expect(r.code).toBe(1);
    const rejects = r.json.rejects as Array<{ file: string; reason_code: string; detail: string }>;
    expect(rejects.map((x) => [x.file.split('/').pop(), x.reason_code, x.detail.split(' contains')[0]])).toEqual([
      ['sys-text.jsonl', 'SUBMISSION_SCHEMA', '/evidence/0/response/passages/0/text'],
      ['sys-ref.jsonl', 'SUBMISSION_SCHEMA', '/evidence/0/response/passages/0/ref'],
      ['sys-field.jsonl', 'SUBMISSION_SCHEMA', '/evidence/0/response/other'],
      ['sys-string.jsonl', 'SUBMISSION_SCHEMA', '/evidence/0/response'],
    ]);
    expect(r.json.totals.accepted).toBe(2);
  });

  it('run goes end to end: four rejects recorded in rejects.csv, the digits classified, no internal error', async () => {
    const r = await runCli(['run', '--root', study.root, ...TEST_OPERATOR_ARGS, '--json']);
    expect(r.stderr).not.toContain('INTERNAL_ERROR');
    expect(r.code).toBe(0);
    const rejects = readFileSync(join(r.json.dir, 'rejects.csv'), 'utf8');
    expect(rejects.trim().split('\n').length).toBe(1 + 4);
    for (const s of ['sys-text', 'sys-ref', 'sys-field', 'sys-string']) expect(rejects).toContain(`inputs/submissions/${s}.jsonl`);
    expect(rejects).toContain('lone surrogate');
    expect(rejects).not.toMatch(/[\ud800-\udfff]/);
    expect(r.json.stages.classify.ok).toBe(true);
    const results = JSON.parse(readFileSync(join(r.json.dir, 'results.json'), 'utf8'));
    const systems = new Set((results.assertion_classes ?? results.views?.assertion_classes ?? []).map((c: any) => c.system_id));
    expect([...systems].sort()).toEqual(['sys-digits', 'sys-ok']);
    // The audit reruns every stage from the same inputs, the four lines and the digits included.
    // The small study was frozen afresh: its auditor saw that digest published (nothing attacks it here).
    const audited = await runCli(['audit', r.json.dir, '--root', study.root, ...auditorFlags(publishedFreezeDigest(study.root)), '--json']);
    expect(audited.code, audited.stdout.slice(0, 600)).toBe(0);
    expect(audited.json.verdict).toBe('valid');
  }, 180_000);
});
