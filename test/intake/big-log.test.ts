// A big or malformed intake log (issue 33, item 6), through the CLI on a copy of the sealed
// example: the log is read line by line up to its first bad line — refused there with its line,
// never listed line by line — and a log over the limit is refused before a byte of it is read.
// Who gains by breaking this: the operator, who writes the log. A log padded with junk used to
// crash a participant's `intake --verify-receipt --json` (RangeError, exit 1) and take the audit
// to gigabytes: a check that cannot finish says nothing against the operator.
import { appendFileSync, readFileSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { AuditReport, Rail } from '../../pipeline/audit/rails.ts';
import { entryDigest, type IntakeEntry } from '../../pipeline/evidence/intake/records.ts';
import { loadTsaTrust } from '../../pipeline/evidence/timestamp/index.ts';
import { MAX_LISTED_FINDINGS } from '../../pipeline/intake/capped-findings.ts';
import { MAX_INTAKE_LOG_BYTES } from '../../pipeline/intake/log.ts';
import { verifyIntakeLog } from '../../pipeline/intake/verify-log.ts';
import { studyLayout } from '../../pipeline/layout.ts';
import { freezeDigest, loadFreezeRecord } from '../../pipeline/study/freeze-record.ts';
import { intakeOf, loadStudy } from '../../pipeline/study/study.ts';
import { AUDITOR_TSA_ROOT, auditorFlags, EXAMPLE_AUDITOR_DIR, sealedExampleFreezeDigest } from '../support/auditor.ts';
import { copySealedExampleStudy, runCli, TEST_OPERATOR_ARGS } from '../support/cli.ts';

const RECEIPT = join(EXAMPLE_AUDITOR_DIR, 'receipts/sys-honest.receipt.json');
/** The sealed example's log has 5 entries (one per system): the first line after them is line 6. */
const FIRST_PADDED_LINE = 6;
const PADDING = 20_000;

let cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups) c();
  cleanups = [];
});
function sealedCopy(): string {
  const s = copySealedExampleStudy();
  cleanups.push(s.cleanup);
  return s.root;
}
const logOf = (root: string) => join(root, 'inputs/intake.jsonl');
/** The operator's padding: the genuine entries, then PADDING lines of `{}`. */
const pad = (root: string) => appendFileSync(logOf(root), '{}\n'.repeat(PADDING));
const verifyReceipt = (root: string, json: boolean) =>
  runCli(['intake', '--verify-receipt', RECEIPT, '--root', root, '--tsa-root', AUDITOR_TSA_ROOT, ...(json ? ['--json'] : [])]);

describe('intake --verify-receipt on a malformed or oversized log', () => {
  it('a log padded with 20,000 `{}` lines is refused at its first bad line (with and without --json), not line by line; the log is untouched', async () => {
    const root = sealedCopy();
    pad(root);
    const before = readFileSync(logOf(root));
    const json = await verifyReceipt(root, true);
    expect([json.code, json.json.code, json.json.details.file, json.json.details.line]).toEqual([
      3,
      'INTAKE_LOG_INVALID',
      'inputs/intake.jsonl',
      FIRST_PADDED_LINE,
    ]);
    expect(json.json.message).toContain(`inputs/intake.jsonl:${FIRST_PADDED_LINE}:`);
    // One line named, not 20,000 (the old refusal listed every bad line in its details).
    expect(json.stdout.length).toBeLessThan(2_000);
    const text = await verifyReceipt(root, false);
    expect(text.code).toBe(3);
    expect(text.stderr).toContain('INTAKE_LOG_INVALID');
    expect(text.stderr).toContain(`inputs/intake.jsonl:${FIRST_PADDED_LINE}:`);
    expect(text.stderr.length).toBeLessThan(2_000);
    expect(readFileSync(logOf(root)).equals(before)).toBe(true);
  });

  it('the first bad line in the middle is the one refused; a later bad line is not reached', async () => {
    const root = sealedCopy();
    const lines = readFileSync(logOf(root), 'utf8').trimEnd().split('\n');
    lines[1] = lines[1]!.replace('"seq":1,', '"seq":7,');
    lines[3] = 'not json';
    writeFileSync(logOf(root), `${lines.join('\n')}\n`);
    const r = await verifyReceipt(root, true);
    expect([r.code, r.json.code, r.json.details.line]).toEqual([3, 'INTAKE_LOG_INVALID', 2]);
    expect(r.json.message).toContain('seq is 7; entry 1 expected');
  });

  it('a log cut short (no final newline) is refused at its last line', async () => {
    const root = sealedCopy();
    const text = readFileSync(logOf(root), 'utf8');
    writeFileSync(logOf(root), text.slice(0, -1));
    const r = await verifyReceipt(root, true);
    expect([r.code, r.json.code, r.json.details.line]).toEqual([3, 'INTAKE_LOG_INVALID', FIRST_PADDED_LINE - 1]);
  });

  it(`a log over the limit (${MAX_INTAKE_LOG_BYTES} bytes) is refused before a byte of it is read`, async () => {
    const root = sealedCopy();
    // Sparse: zeros, which read would make a too-long first line (INTAKE_LOG_INVALID), not this code.
    truncateSync(logOf(root), MAX_INTAKE_LOG_BYTES + 1);
    const r = await verifyReceipt(root, true);
    expect([r.code, r.json.code]).toEqual([3, 'INTAKE_LOG_TOO_LARGE']);
    expect(r.json.message).toContain(`${MAX_INTAKE_LOG_BYTES + 1} bytes`);
  });
});

describe('verifyIntakeLog on a long chain of bad entries', () => {
  it(`lists its first ${MAX_LISTED_FINDINGS} findings and counts the others, still failing`, async () => {
    const root = sealedCopy();
    // 300 entries chained as intake would chain them, each a copy of a genuine one: from entry 5 on,
    // every token dates another digest (INTAKE_TOKEN_INVALID), one finding per entry.
    const genuine = readFileSync(logOf(root), 'utf8')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as IntakeEntry);
    const entries: IntakeEntry[] = [];
    for (let seq = 0; seq < 300; seq++) {
      entries.push({ ...genuine[seq % genuine.length]!, seq, prev: seq === 0 ? genuine[0]!.prev : entryDigest(entries[seq - 1]!) });
    }
    writeFileSync(logOf(root), entries.map((e) => `${JSON.stringify(e)}\n`).join(''));
    const layout = studyLayout(root);
    const study = loadStudy(layout.study);
    const v = await verifyIntakeLog(layout, {
      tsaTrust: loadTsaTrust([readFileSync(AUDITOR_TSA_ROOT, 'utf8')]),
      agentKeys: { study_id: study.study_id, systems: study.systems ?? [] },
      study: { window: study.window, intake: intakeOf(study) },
      freezeDigest: freezeDigest(loadFreezeRecord(layout.freeze)),
    });
    expect(v.ok).toBe(false);
    expect(v.entries).toHaveLength(300);
    expect(v.findings).toHaveLength(MAX_LISTED_FINDINGS);
    expect(v.findings[0]).toMatchObject({ code: 'INTAKE_TOKEN_INVALID', line: FIRST_PADDED_LINE });
    // 295 token findings and the seal's, of which the first 100 are listed.
    expect(v.findings_omitted).toBeGreaterThanOrEqual(295 - MAX_LISTED_FINDINGS);
  });
});

describe('the audit of a study whose log was padded', () => {
  const intakeRail = (report: AuditReport): Rail => report.rails.find((r) => r.name === 'intake')!;

  it("is INVALID on the log's first bad line, named once; over the limit, on INTAKE_LOG_TOO_LARGE", async () => {
    const root = sealedCopy();
    const run = await runCli(['run', '--root', root, ...TEST_OPERATOR_ARGS, '--json']);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const audit = async () => {
      const r = await runCli([
        'audit',
        run.json.dir as string,
        '--root',
        root,
        ...auditorFlags(sealedExampleFreezeDigest()),
        '--receipt',
        RECEIPT,
        '--json',
      ]);
      expect(r.code, r.stderr).toBe(1);
      expect(r.json.verdict).toBe('invalid');
      return intakeRail(r.json as AuditReport);
    };
    pad(root);
    const padded = await audit();
    expect(padded.ok).toBe(false);
    expect(padded.reason_codes).toContain('INTAKE_LOG_INVALID');
    const logDifferences = (padded.differences ?? []).filter((d) => d.message.startsWith('INTAKE_LOG_INVALID'));
    expect(logDifferences.map((d) => [d.file, d.row])).toEqual([['inputs/intake.jsonl', FIRST_PADDED_LINE]]);

    truncateSync(logOf(root), MAX_INTAKE_LOG_BYTES + 1);
    const oversized = await audit();
    expect(oversized.ok).toBe(false);
    expect(oversized.reason_codes).toContain('INTAKE_LOG_TOO_LARGE');
  }, 60_000);
});
