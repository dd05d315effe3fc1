// The display rule at every sink (SPEC §12.8, pipeline/text/display.ts): a study whose submission
// file name, extra property names, system id, proof_id and job_id carry the hostile set (ESC, BEL,
// CR, LF, U+0085, U+009B, U+2028, U+202E, and a literal `\u001b` typed as text) is put through
// every command, and every byte any of them prints, and every output file but Parquet, is searched
// for a raw control character and for the forged line the name tries to start. The audit of that
// run still reproduces every output byte: the rule is deterministic.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditorFlags, publishedFreezeDigest } from '../support/auditor.ts';
import { copyExampleStudy, runCli, TEST_OPERATOR_ARGS, type CliRun } from '../support/cli.ts';

/** The hostile set: a window title, BEL, clear screen, CR LF and a forged line, C1 (NEL, CSI), LS, RLO, a literal escape. */
const H = 'h\u001b]0;pwned\u0007\u001b[2J\r\nverdict: FORGED\u0085\u009b31m\u2028\u202e\\u001b';
/** Every character the rule escapes but the line feed our own lines end with. */
const RAW = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/u;
const FORGED = /^verdict: FORGED/m;

function expectShown(what: string, text: string): void {
  const raw = RAW.exec(text);
  expect(
    raw,
    `${what}: a raw U+${raw?.[0].codePointAt(0)?.toString(16).padStart(4, '0')} at ${raw?.index}: ${JSON.stringify(text.slice(Math.max(0, (raw?.index ?? 0) - 80), (raw?.index ?? 0) + 20))}`,
  ).toBeNull();
  expect(FORGED.test(text), `${what}: a forged line begins`).toBe(false);
}

function expectRunShown(what: string, r: CliRun): void {
  expectShown(`${what} (stdout)`, r.stdout);
  expectShown(`${what} (stderr)`, r.stderr);
}

describe('no command prints or writes a hostile string raw', () => {
  let study: { root: string; cleanup: () => void };
  let scratch: string;
  let hostileFile: string;
  let proofFile: string;
  beforeAll(() => {
    study = copyExampleStudy();
    scratch = mkdtempSync(join(tmpdir(), 'prereg-hostile-'));
    const sub = join(study.root, 'inputs/submissions');
    const lines = readFileSync(join(sub, 'sys-truncated.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const second = lines.filter((l) => l.attempt === 2);
    // An accepted line (sys-truncated has no attempt 3) whose proof_id and job ids are hostile.
    const accepted = { ...second[0], attempt: 3 };
    accepted.evidence = accepted.evidence.map((e: { proof: Record<string, unknown> }) => ({ ...e, proof: { ...e.proof, proof_id: H } }));
    accepted.receipts = JSON.parse(
      JSON.stringify(accepted.receipts ?? null)?.replaceAll(/"job_id":"[^"]*"/g, `"job_id":${JSON.stringify(H)}`) ?? 'null',
    );
    const extraProperty = { ...second[1], attempt: 3, [H]: 1 };
    const otherSystem = { ...second[2], attempt: 3, system_id: H };
    const unknownItem = { ...second[3], attempt: 3, item_id: H };
    hostileFile = join(sub, `${H}.jsonl`);
    writeFileSync(
      hostileFile,
      `${[accepted, extraProperty, otherSystem, unknownItem].map((l) => JSON.stringify(l)).join('\n')}\n{"raw": "${H.replace('\\', '\\\\')}"}\n`,
    );
    proofFile = join(scratch, `${H}.json`);
    writeFileSync(proofFile, JSON.stringify(accepted.evidence[0].proof));
  });
  afterAll(() => {
    study.cleanup();
    rmSync(scratch, { recursive: true, force: true });
  });

  it('validate, in text and JSON: the extra property, the system id, the item id, the file name', async () => {
    for (const json of [[], ['--json']]) {
      const r = await runCli(['validate', hostileFile, '--root', study.root, ...json]);
      expect(r.stdout + r.stderr).toContain('verdict: FORGED');
      expectRunShown(`validate ${json.join(' ')}`, r);
    }
  });

  it('verify FILE, a proof whose file name and proof_id are hostile', async () => {
    for (const json of [[], ['--json']]) {
      const r = await runCli(['verify', proofFile, '--root', study.root, ...json]);
      expect(r.stdout + r.stderr).toContain('verdict: FORGED');
      expectRunShown(`verify FILE ${json.join(' ')}`, r);
    }
  });

  it('errors naming a hostile path: validate, verify and trust import-arkforge of a file that does not exist, or is too large', async () => {
    const missing = join(scratch, `missing-${H}.json`);
    for (const args of [
      ['validate', missing],
      ['verify', missing],
      ['trust', 'import-arkforge', missing, '--trust', join(study.root, 'preregistration/trust')],
    ]) {
      for (const json of [[], ['--json']]) {
        const r = await runCli([...args, ...json]);
        expect(r.code, r.stdout + r.stderr).toBe(3);
        expectRunShown(`${args.slice(0, 2).join(' ')} ${json.join(' ')}`, r);
      }
    }
    const large = join(scratch, `large-${H}.json`);
    writeFileSync(large, ' '.repeat(8 * 1024 * 1024 + 1));
    const r = await runCli(['trust', 'import-arkforge', large, '--trust', join(study.root, 'preregistration/trust')]);
    expect(r.stderr).toContain('ARKFORGE_KEYS_TOO_LARGE');
    expectRunShown('trust import-arkforge (too large)', r);
  });

  it('errors naming a hostile path: intake of a request that does not exist or is malformed, corpus-proof of a file outside the corpus, a key that does not exist', async () => {
    const request = join(scratch, `request-${H}.intake.json`);
    writeFileSync(request, '{"format": "prereg.intake-request/1"}');
    const corpusFile = join(study.root, 'corpus', `x-${H}.md`);
    for (const [what, args] of [
      ['intake (missing request)', ['intake', join(scratch, `missing-${H}.json`), '--root', study.root]],
      ['intake (malformed request)', ['intake', request, '--root', study.root]],
      ['corpus-proof (not in the corpus)', ['corpus-proof', corpusFile, '--root', study.root]],
      [
        'submission sign (missing key)',
        ['submission', 'sign', hostileFile, '--key', join(scratch, `key-${H}.pem`), '--system', 'sys-honest', '--root', study.root],
      ],
    ] as const) {
      for (const json of [[], ['--json']]) {
        const r = await runCli([...args, ...json]);
        expect(r.code, `${what}: ${r.stdout}${r.stderr}`).not.toBe(0);
        expectRunShown(`${what} ${json.join(' ')}`, r);
      }
    }
  });

  it('explain, echoing a hostile code', async () => {
    expectRunShown('explain', await runCli(['explain', H]));
    expectRunShown('explain --json', await runCli(['explain', H, '--json']));
  });

  it('run, status, doctor and audit of the study; every text output file; the audit reproduces every byte', async () => {
    const run = await runCli(['run', '--root', study.root, ...TEST_OPERATOR_ARGS]);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expectRunShown('run', run);
    const ran = await runCli(['run', '--root', study.root, ...TEST_OPERATOR_ARGS, '--json']);
    expectRunShown('run --json', ran);
    for (const args of [['status'], ['status', '--json'], ['doctor'], ['doctor', '--json'], ['verify'], ['ingest', '--force']]) {
      expectRunShown(args.join(' '), await runCli([...args, '--root', study.root]));
    }
    const dir = join(study.root, 'outputs', readdirSync(join(study.root, 'outputs')).find((n) => !n.startsWith('.'))!);
    // Every text file (Parquet keeps the data as it is; the signatures are binary).
    const written = readdirSync(dir).filter((n) => /\.(md|html|csv|json)$|^SHA256SUMS$/.test(n));
    expect(written).toEqual(expect.arrayContaining(['report.md', 'report.html', 'rejects.csv', 'scores.csv', 'results.json']));
    for (const name of written) expectShown(name, readFileSync(join(dir, name), 'utf8'));
    expect(readFileSync(join(dir, 'report.md'), 'utf8')).toContain('inputs/submissions/h\\\\u001b\\]0;pwned');
    expect(readFileSync(join(dir, 'report.html'), 'utf8')).toContain('>inputs/submissions/h\\u001b]0;pwned\\u0007'); // a cell's text (the cell's class is the layout's)
    // The hostile names did reach the files, shown: the backslash of the literal escape doubled.
    expect(readFileSync(join(dir, 'rejects.csv'), 'utf8')).toContain(
      '\\u001b]0;pwned\\u0007\\u001b[2J\\u000d\\u000averdict: FORGED\\u0085\\u009b31m\\u2028\\u202e\\\\u001b',
    );
    for (const json of [[], ['--json']]) {
      const audited = await runCli(['audit', dir, '--root', study.root, ...auditorFlags(publishedFreezeDigest(study.root)), ...json]);
      expectRunShown(`audit ${json.join(' ')}`, audited);
      if (json.length > 0)
        expect(audited.json.rails.find((r: { name: string }) => r.name === 'reproduced')?.ok, JSON.stringify(audited.json.rails)).toBe(
          true,
        );
    }
  }, 300_000);
});
