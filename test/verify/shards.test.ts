// Verification sharded across machines (docs/scaling.md): three `prereg verify --shard i/3`
// processes on a copy of the example, merged by `prereg run --verified-shards`, give the outputs
// of one `prereg run` byte for byte. Whoever holds the shards (the operator, a CI job) could drop
// the shard holding a rival's good evidence, give one twice, slip in one of another freeze, or
// edit a Parquet file: each is refused with its code and nothing is written.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openMemoryDatabase } from '../../pipeline/store/db.ts';
import { filesOf } from '../emit/helpers.ts';
import { copyExampleStudy, PROJECT_ROOT, runCli, TEST_OPERATOR_ARGS } from '../support/cli.ts';
import { auditorFlags } from '../support/auditor.ts';
import { flipByte, scratchDir } from '../audit/helpers.ts';
import { mayBeInShare, shardOf } from '../../pipeline/verify/shard-share.ts';

const tmp = scratchDir('prereg-shards-');
const sharded = copyExampleStudy();
const single = copyExampleStudy();
const shards = join(tmp.path, 'shards');

function prereg(args: string[]) {
  return spawnSync('node', ['bin/prereg.mjs', ...args], { cwd: PROJECT_ROOT, encoding: 'utf8', env: { ...process.env, CI: 'true' } });
}

/** `run --verified-shards dir` on the sharded copy into a fresh outputs directory: its result and that directory. */
async function runWithShards(dir: string) {
  const outputs = join(tmp.path, `outputs-${readdirSync(tmp.path).length}`);
  const r = await runCli(['run', '--root', sharded.root, '--verified-shards', dir, '--outputs', outputs, ...TEST_OPERATOR_ARGS, '--json']);
  return { r, outputs };
}

/** A copy of the three shards, changed by `change`. */
async function shardsChanged(change: (dir: string) => void | Promise<void>): Promise<string> {
  const dir = join(tmp.path, `changed-${readdirSync(tmp.path).length}`);
  cpSync(shards, dir, { recursive: true });
  await change(dir);
  return dir;
}

const sha256 = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');

beforeAll(() => {
  mkdirSync(shards);
  // Separate processes, as separate machines run them: nothing but the study's files in common.
  for (const i of [0, 1, 2]) {
    const r = prereg(['verify', '--root', sharded.root, '--shard', `${i}/3`, '--out', join(shards, String(i)), '--json']);
    expect(r.status, r.stderr).toBe(0);
  }
});

afterAll(() => {
  sharded.cleanup();
  single.cleanup();
  tmp.cleanup();
});

describe('verify --shard I/N --out DIR', () => {
  it('splits the evidence items between the shards, each once, each record whole', () => {
    const manifests = [0, 1, 2].map((i) => JSON.parse(readFileSync(join(shards, String(i), 'shard.json'), 'utf8')));
    expect(manifests.map((m) => m.shard)).toEqual([0, 1, 2].map((index) => ({ index, count: 3 })));
    const rows = manifests.map((m) => m.tables.proof_checks.rows as number);
    // The example's 235 evidence items (docs/example.md), none twice, none left out; no shard empty.
    expect(rows.reduce((a, b) => a + b, 0)).toBe(235);
    for (const n of rows) expect(n).toBeGreaterThan(235 / 3 / 2);
    for (const m of manifests)
      for (const t of Object.values(m.tables) as Array<{ file: string; sha256: string }>) {
        expect(sha256(join(shards, String(m.shard.index), t.file))).toBe(t.sha256);
      }
    // Only the finished directories: no temporary one left beside them.
    expect(readdirSync(shards).sort()).toEqual(['0', '1', '2']);
  });

  it('refuses a bad shard spec (USAGE, exit 2) and writes nothing', () => {
    for (const spec of ['3/3', '1/0', '-1/3', 'a/b', '1', '01/3']) {
      const out = join(tmp.path, 'bad-spec');
      const r = prereg(['verify', '--root', sharded.root, '--shard', spec, '--out', out, '--json']);
      expect([r.status, JSON.parse(r.stdout).code], spec).toEqual([2, 'USAGE']);
      expect(existsSync(out)).toBe(false);
    }
  });
});

describe('the lines a shard checks (mayBeInShare)', () => {
  const lines = readdirSync(join(sharded.root, 'inputs/submissions'))
    .filter((f) => f.endsWith('.jsonl'))
    .flatMap((f) =>
      readFileSync(join(sharded.root, 'inputs/submissions', f), 'utf8')
        .split('\n')
        .filter((l) => l !== ''),
    );

  it("gives each of the example's lines to exactly the shard of its record", () => {
    expect(lines.length).toBeGreaterThan(100);
    for (const line of lines) {
      const { system_id, item_id, attempt } = JSON.parse(line);
      const of = [0, 1, 2].filter((index) => mayBeInShare({ bytes: Buffer.from(line) }, { index, count: 3 }));
      expect(of).toEqual([shardOf({ system_id, item_id, attempt }, 3)]);
    }
  });

  it('keeps, in every shard, a line whose record it cannot read, for the checks to reject', () => {
    for (const text of [
      'not json',
      '',
      '[1,2]',
      'null',
      '{"system_id":"s","item_id":"i","attempt":"1"}',
      '{"system_id":"s","item_id":"i"}',
    ])
      for (const index of [0, 1, 2]) expect(mayBeInShare({ bytes: Buffer.from(text) }, { index, count: 3 }), text).toBe(true);
  });
});

describe('run --verified-shards DIR', () => {
  it('gives the outputs of a single-machine run, byte for byte', async () => {
    const one = await runCli(['run', '--root', single.root, '--outputs', join(tmp.path, 'single'), ...TEST_OPERATOR_ARGS, '--json']);
    expect(one.code, one.stdout + one.stderr).toBe(0);
    const { r, outputs } = await runWithShards(shards);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const runId = (one.json as { run_id: string }).run_id;
    expect((r.json as { run_id: string }).run_id).toBe(runId);
    const expected = filesOf(join(tmp.path, 'single', runId));
    const got = filesOf(join(outputs, runId));
    expect([...got.keys()]).toEqual([...expected.keys()]);
    for (const [file, bytes] of expected) expect(got.get(file)!.equals(bytes), file).toBe(true);
    // The audit reruns the pipeline on one machine: the merged outputs are what it reproduces.
    const audit = await runCli(['audit', join(outputs, runId), '--root', sharded.root, ...auditorFlags(), '--json']);
    expect([audit.code, (audit.json as { verdict: string }).verdict], audit.stdout.slice(0, 2000)).toEqual([0, 'valid']);
  });

  const refusals: Array<[string, string, (dir: string) => void]> = [
    ['a shard missing', 'SHARD_MISSING', (dir) => rmSync(join(dir, '1'), { recursive: true })],
    ['a shard given twice', 'SHARD_DUPLICATE', (dir) => cpSync(join(dir, '1'), join(dir, '1-again'), { recursive: true })],
    [
      'a shard of another freeze',
      'SHARD_FOREIGN',
      (dir) => {
        const path = join(dir, '2', 'shard.json');
        const m = JSON.parse(readFileSync(path, 'utf8'));
        m.freeze_digest = createHash('sha256').update('another freeze').digest('hex');
        writeFileSync(path, JSON.stringify(m));
      },
    ],
    [
      'a shard made for another number of shards',
      'SHARD_FOREIGN',
      (dir) => {
        const path = join(dir, '2', 'shard.json');
        const m = JSON.parse(readFileSync(path, 'utf8'));
        m.shard.count = 4;
        writeFileSync(path, JSON.stringify(m));
      },
    ],
    ['a shard directory without shard.json', 'SHARD_MANIFEST_INVALID', (dir) => rmSync(join(dir, '0', 'shard.json'))],
    ['one byte of a Parquet file changed', 'SHARD_DIGEST_MISMATCH', (dir) => void flipByte(join(dir, '0', 'proof_checks.parquet'), 200)],
  ];
  for (const [what, code, change] of refusals) {
    it(`refuses ${what} (${code}, exit 3) and writes no outputs`, async () => {
      const { r, outputs } = await runWithShards(await shardsChanged(change));
      expect([r.code, (r.json as { code: string }).code], r.stdout + r.stderr).toEqual([3, code]);
      expect(existsSync(outputs)).toBe(false);
    });
  }

  it("refuses a shard whose rows of a rival's evidence were dropped and its digests rewritten to match (SHARD_MISSING)", async () => {
    const dir = await shardsChanged((d) =>
      rewriteProofChecks(
        join(d, '0'),
        `SELECT * FROM rows WHERE (record_system_id, record_item_id, record_attempt) <>
           (SELECT min((record_system_id, record_item_id, record_attempt)) FROM rows) ORDER BY ALL`,
      ),
    );
    const { r, outputs } = await runWithShards(dir);
    expect([r.code, (r.json as { code: string }).code], r.stdout + r.stderr).toEqual([3, 'SHARD_MISSING']);
    expect(existsSync(outputs)).toBe(false);
  });

  it('refuses a shard whose rows name a record the study does not have, digests rewritten to match (SHARD_FOREIGN)', async () => {
    const dir = await shardsChanged((d) =>
      rewriteProofChecks(join(d, '0'), `SELECT * REPLACE ('sys-nobody' AS record_system_id) FROM rows ORDER BY ALL`),
    );
    const { r, outputs } = await runWithShards(dir);
    expect([r.code, (r.json as { code: string }).code], r.stdout + r.stderr).toEqual([3, 'SHARD_FOREIGN']);
    expect((r.json as { message: string }).message).toContain('"sys-nobody"');
    expect(existsSync(outputs)).toBe(false);
  });

  it('a shard whose rows were forged whole, manifest rewritten to match, is merged: the audit says invalid (AUDIT_NOT_REPRODUCED)', async () => {
    const dir = await shardsChanged((d) =>
      rewriteProofChecks(
        join(d, '0'),
        `SELECT * REPLACE (CASE WHEN (record_system_id, record_item_id, record_attempt, evidence_index) =
                                     (SELECT (record_system_id, record_item_id, record_attempt, evidence_index) FROM rows WHERE status <> 'VERIFIED' ORDER BY ALL LIMIT 1)
                                THEN 'VERIFIED' ELSE status END AS status) FROM rows ORDER BY ALL`,
      ),
    );
    const { r, outputs } = await runWithShards(dir);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const runId = (r.json as { run_id: string }).run_id;
    const audit = await runCli(['audit', join(outputs, runId), '--root', sharded.root, ...auditorFlags(), '--json']);
    expect([audit.code, (audit.json as { verdict: string }).verdict], audit.stdout.slice(0, 2000)).toEqual([1, 'invalid']);
  });
});

/** Rewrites the shard's proof_checks.parquet as `select` gives it over its rows (the view `rows`; real DuckDB), and shard.json's digest and count to match. */
async function rewriteProofChecks(shard: string, select: string): Promise<void> {
  const path = join(shard, 'proof_checks.parquet');
  const kept = `${path}.kept`;
  const db = await openMemoryDatabase();
  try {
    await db.connection.run(`CREATE VIEW rows AS SELECT * FROM read_parquet('${path}')`);
    await db.connection.run(`COPY (${select}) TO '${kept}' (FORMAT parquet)`);
    const reader = await db.connection.runAndReadAll(`SELECT count(*)::INTEGER AS n FROM read_parquet('${kept}')`);
    const manifest = JSON.parse(readFileSync(join(shard, 'shard.json'), 'utf8'));
    manifest.tables.proof_checks.rows = Number(reader.getRowObjects()[0]!.n);
    rmSync(path);
    cpSync(kept, path);
    rmSync(kept);
    manifest.tables.proof_checks.sha256 = sha256(path);
    writeFileSync(join(shard, 'shard.json'), JSON.stringify(manifest));
  } finally {
    db.close();
  }
}
