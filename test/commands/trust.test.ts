// `prereg trust import-arkforge FILE`, end to end through the CLI on scratch copies of the example
// study's trust directory, with ArkForge's real published key history
// (test/fixtures/real/arkforge-production/published_keys.json). Expected entries are written out
// by hand from that file; the rekor-1 PEM is compared with the separately vendored copy.
import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { verifyTlogEntry, type TlogEntry } from '../../pipeline/evidence/tlog/index.ts';
import { loadTrust } from '../../pipeline/study/trust.ts';
import { PROJECT_ROOT, runCli, scratchStudies } from '../support/cli.ts';

const REAL = fileURLToPath(new URL('../fixtures/real/arkforge-production/', import.meta.url));
const PUBLISHED = join(REAL, 'published_keys.json');
const EXAMPLE_TRUST = join(PROJECT_ROOT, 'preregistration/trust');
const REKOR_LOG_ID = 'c0d23d6ad406973f9559f3ba2d1ca01f84147d8ffc5b8445c224f98b9591801d';

let scratch: string[] = [];
afterEach(() => {
  for (const d of scratch) rmSync(d, { recursive: true, force: true });
  scratch = [];
});
/** A scratch copy of the example trust directory. */
function trustCopy(): string {
  const dir = mkdtempSync(join(tmpdir(), 'prereg-trust-import-'));
  scratch.push(dir);
  cpSync(EXAMPLE_TRUST, join(dir, 'trust'), { recursive: true });
  return join(dir, 'trust');
}
/** Every file under `dir` with its bytes, to show that nothing was written. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (rel: string) => {
    for (const e of readdirSync(join(dir, rel), { withFileTypes: true })) {
      const path = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(path);
      else out[path] = readFileSync(join(dir, path), 'latin1');
    }
  };
  walk('');
  return out;
}
const importInto = (dir: string, file = PUBLISHED, json = true) =>
  runCli(['trust', 'import-arkforge', file, '--trust', dir, ...(json ? ['--json'] : [])]);
const policyOf = (dir: string) => JSON.parse(readFileSync(join(dir, 'policy.json'), 'utf8'));
const published = () => JSON.parse(readFileSync(PUBLISHED, 'utf8'));
/** A published_keys.json changed by `edit`, written in a scratch place. */
function publishedWith(edit: (doc: any) => void, raw?: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'prereg-published-'));
  scratch.push(dir);
  const file = join(dir, 'published_keys.json');
  if (raw !== undefined) writeFileSync(file, raw);
  else {
    const doc = published();
    edit(doc);
    writeFileSync(file, JSON.stringify(doc, null, 2));
  }
  return file;
}

const IMPORTED_PROOF_KEYS = [
  {
    key_id: 'key-1',
    public_key: 'ed25519:ZLlGE0eN0eTNUE9vaK1tStf6AuoFUWqJBvqx7QgxfEY',
    valid_from: '2026-02-26T00:00:00Z',
    valid_until: null,
  },
  {
    key_id: 'key-2',
    public_key: 'ed25519:JDExMYvtm2iej7qeb8bXfPIB92zH0IlSL8cRNZ9KkNw',
    valid_from: '2026-10-03T10:00:00Z',
    valid_until: null,
  },
  {
    key_id: 'key-3',
    public_key: 'ed25519:iTF1dhjQEoDsx2bl4b_hbfy73w6k4ZU61xEOSWegzS8',
    valid_from: '2026-10-03T10:00:00Z',
    valid_until: null,
  },
];
const IMPORTED_SUBMITTERS = [
  { key_id: 'rekor-1', public_key_file: 'tlog-submitters/rekor-1.pub.pem', valid_from: '2026-03-03T00:00:00Z', valid_until: null },
  { key_id: 'rekor-2', public_key_file: 'tlog-submitters/rekor-2.pub.pem', valid_from: '2026-10-03T10:00:00Z', valid_until: null },
  { key_id: 'rekor-3', public_key_file: 'tlog-submitters/rekor-3.pub.pem', valid_from: '2026-10-03T10:00:00Z', valid_until: null },
];

describe('prereg trust import-arkforge', () => {
  it('pins the proof keys and the rekor keys with their windows, leaving every other member as it was', async () => {
    const dir = trustCopy();
    const before = policyOf(dir);
    const r = await importInto(dir);
    expect(r.code).toBe(0);
    expect(r.json).toMatchObject({
      ok: true,
      changed: true,
      written: ['tlog-submitters/rekor-1.pub.pem', 'tlog-submitters/rekor-2.pub.pem', 'tlog-submitters/rekor-3.pub.pem', 'policy.json'],
    });
    expect(r.json.keys.map((k: { list: string; key_id: string; action: string }) => `${k.action} ${k.list} ${k.key_id}`)).toEqual([
      'added arkforge_keys key-1',
      'added arkforge_keys key-2',
      'added arkforge_keys key-3',
      'added tlog_submitter_keys rekor-1',
      'added tlog_submitter_keys rekor-2',
      'added tlog_submitter_keys rekor-3',
    ]);
    const after = policyOf(dir);
    expect(after.arkforge_keys).toEqual([...before.arkforge_keys, ...IMPORTED_PROOF_KEYS]);
    expect(after.tlog_submitter_keys).toEqual(IMPORTED_SUBMITTERS);
    const { arkforge_keys: _a, ...rest } = after;
    const { arkforge_keys: _b, tlog_submitter_keys: _c, ...restBefore } = before;
    expect(Object.fromEntries(Object.entries(rest).filter(([k]) => k !== 'tlog_submitter_keys'))).toEqual(restBefore);
    // Members in their order, the new one where the schema lists it (after tlog_keys); the project's format.
    expect(Object.keys(after)).toEqual([
      'format',
      'arkforge_keys',
      'tsa_roots',
      'tsa_certs',
      'tlog_keys',
      'tlog_submitter_keys',
      'operator_public_key',
      'require_tsa_token',
      'max_skew_seconds',
      'batch_max_skew_seconds',
      'require_receipts',
      'sellers',
    ]);
    expect(readFileSync(join(dir, 'policy.json'), 'utf8')).toBe(`${JSON.stringify(after, null, 2)}\n`);
    // The PEM files are the published keys: rekor-1 byte for byte the separately vendored copy.
    expect(readFileSync(join(dir, 'tlog-submitters/rekor-1.pub.pem'), 'utf8')).toBe(
      readFileSync(join(REAL, 'arkforge-rekor-1.pub.pem'), 'utf8'),
    );
    for (const [i, k] of published().rekor_keys.entries())
      expect(readFileSync(join(dir, IMPORTED_SUBMITTERS[i]!.public_key_file), 'utf8')).toBe(k.public_pem);
    // The result loads as every stage loads it.
    expect(loadTrust(dir).material.tlog.submitterKeys.map((k) => k.key_id)).toEqual(['rekor-1', 'rekor-2', 'rekor-3']);
  });

  it('is idempotent: a second run writes nothing and says so', async () => {
    const dir = trustCopy();
    await importInto(dir);
    const files = snapshot(dir);
    const mtimes = Object.keys(files).map((f) => statSync(join(dir, f)).mtimeMs);
    const again = await importInto(dir);
    expect(again.code).toBe(0);
    expect(again.json).toMatchObject({ ok: true, changed: false, written: [] });
    expect(new Set(again.json.keys.map((k: { action: string }) => k.action))).toEqual(new Set(['unchanged']));
    expect(snapshot(dir)).toEqual(files);
    expect(Object.keys(files).map((f) => statSync(join(dir, f)).mtimeMs)).toEqual(mtimes);
    const text = await importInto(dir, PUBLISHED, false);
    expect(text.stdout).toContain('nothing changed');
  });

  it('imports into the study’s own trust directory by default (--root), which the freeze then sees as drift until refrozen', async () => {
    const root = scratchStudy();
    const r = await runCli(['trust', 'import-arkforge', PUBLISHED, '--root', root, '--json']);
    expect([r.code, r.json.changed]).toEqual([0, true]);
    const check = await runCli(['check-anchors', '--root', root, '--json']);
    expect(check.json.reason_codes).toEqual(['TRUST_DRIFT']);
    expect(check.json.findings.map((f: { file: string }) => f.file)).toEqual(
      expect.arrayContaining(['preregistration/trust/policy.json', 'preregistration/trust/tlog-submitters/rekor-1.pub.pem']),
    );
  });

  it('the resulting policy, with the Rekor log key pinned, verifies the real Rekor entry; a later published window refuses it', async () => {
    const dir = trustCopy();
    await importInto(dir);
    mkdirSync(join(dir, 'tlog'));
    copyFileSync(join(REAL, 'rekor-log.pub.pem'), join(dir, 'tlog/rekor-log.pub.pem'));
    const policy = policyOf(dir);
    policy.tlog_keys = [{ log_id: REKOR_LOG_ID, public_key_file: 'tlog/rekor-log.pub.pem' }];
    writeFileSync(join(dir, 'policy.json'), JSON.stringify(policy, null, 2));
    const entry = Object.values(JSON.parse(readFileSync(join(REAL, 'rekor_entry.json'), 'utf8')) as Record<string, TlogEntry>)[0]!;
    const chain = (JSON.parse(readFileSync(join(REAL, 'proof_rekor.json'), 'utf8')) as { hashes: { chain: string } }).hashes.chain.slice(7);
    expect(verifyTlogEntry(entry, chain, loadTrust(dir).material.tlog).reason_codes).toEqual([]);

    // The issuer republishes rekor-1 as valid only from after the entry was integrated (1772554735 = 16:18:55Z).
    const later = publishedWith((doc) => (doc.rekor_keys[0].valid_from = '2026-03-03T16:18:56Z'));
    const r = await importInto(dir, later);
    expect(r.json.keys.find((k: { key_id: string }) => k.key_id === 'rekor-1')).toMatchObject({
      action: 'updated',
      valid_from: '2026-03-03T16:18:56Z',
    });
    expect(r.json.written).toEqual(['policy.json']);
    expect(verifyTlogEntry(entry, chain, loadTrust(dir).material.tlog).reason_codes).toEqual(['PROOF_TLOG_SUBMITTER_UNPINNED']);

    // Without the rekor keys pinned at all, the same entry does not attribute the hash to ArkForge.
    const none = policyOf(dir);
    none.tlog_submitter_keys = [];
    writeFileSync(join(dir, 'policy.json'), JSON.stringify(none, null, 2));
    expect(verifyTlogEntry(entry, chain, loadTrust(dir).material.tlog).reason_codes).toEqual(['PROOF_TLOG_SUBMITTER_UNPINNED']);
  });

  it('records a retirement the issuer publishes: retired_at becomes valid_until', async () => {
    const dir = trustCopy();
    await importInto(dir);
    const retired = publishedWith((doc) => (doc.keys[0].retired_at = '2026-10-03T10:00:00Z'));
    const r = await importInto(dir, retired);
    expect(r.json.keys[0]).toEqual({
      list: 'arkforge_keys',
      key_id: 'key-1',
      action: 'updated',
      valid_from: '2026-02-26T00:00:00Z',
      valid_until: '2026-10-03T10:00:00Z',
    });
    expect(policyOf(dir).arkforge_keys.find((k: { key_id: string }) => k.key_id === 'key-1').valid_until).toBe('2026-10-03T10:00:00Z');
  });

  it('places tlog_submitter_keys after tsa_roots when the policy has no tlog_keys, and adds no member for a history without rekor keys', async () => {
    const dir = trustCopy();
    const policy = policyOf(dir);
    // The example pins both lists (empty): take them out, as a policy written before them.
    delete policy.tlog_keys;
    delete policy.tlog_submitter_keys;
    delete policy.tsa_certs;
    writeFileSync(join(dir, 'policy.json'), JSON.stringify(policy, null, 2));
    await importInto(dir);
    expect(Object.keys(policyOf(dir)).slice(0, 4)).toEqual(['format', 'arkforge_keys', 'tsa_roots', 'tlog_submitter_keys']);
    const other = trustCopy();
    const otherPolicy = policyOf(other);
    delete otherPolicy.tlog_submitter_keys;
    writeFileSync(join(other, 'policy.json'), JSON.stringify(otherPolicy, null, 2));
    const r = await importInto(
      other,
      publishedWith((doc) => delete doc.rekor_keys),
    );
    expect(r.json.written).toEqual(['policy.json']);
    expect(policyOf(other)).not.toHaveProperty('tlog_submitter_keys');
  });

  // --- refusals: a code naming the file and the field, and nothing written -----------------------

  const malformed: Array<[string, () => string, string | null]> = [
    ['bad JSON (cut short)', () => publishedWith(() => {}, readFileSync(PUBLISHED, 'utf8').slice(0, 200)), null],
    [
      'a member given twice',
      () => publishedWith(() => {}, readFileSync(PUBLISHED, 'utf8').replace('"kid": "key-2",', '"kid": "key-2", "kid": "key-4",')),
      null,
    ],
    ['not an object', () => publishedWith(() => {}, '[]'), null],
    ['no keys', () => publishedWith((d) => delete d.keys), 'keys'],
    ['rekor_keys not an array', () => publishedWith((d) => (d.rekor_keys = {})), 'rekor_keys'],
    ['an unknown proof-key type', () => publishedWith((d) => (d.keys[1].type = 'Ed448')), 'keys[1].type'],
    ['an unknown rekor-key type', () => publishedWith((d) => (d.rekor_keys[0].type = 'ECDSA-P384-SHA384')), 'rekor_keys[0].type'],
    [
      'a proof key that is not 32 bytes',
      () => publishedWith((d) => (d.keys[0].public = 'ed25519:ZLlGE0eN0eTNUE9vaK1tStf6AuoFUWqJBvqx7Qgx')),
      'keys[0].public',
    ],
    [
      'a proof key without its prefix',
      () => publishedWith((d) => (d.keys[0].public = 'ZLlGE0eN0eTNUE9vaK1tStf6AuoFUWqJBvqx7QgxfEY')),
      'keys[0].public',
    ],
    [
      'a rekor key that is not PEM',
      () => publishedWith((d) => (d.rekor_keys[2].public_pem = 'MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE')),
      'rekor_keys[2].public_pem',
    ],
    [
      'a rekor key that is an Ed25519 key',
      () =>
        publishedWith(
          (d) =>
            (d.rekor_keys[0].public_pem = readFileSync(join(PROJECT_ROOT, 'test/fixtures/keys/TEST-ONLY-arkforge-2026.pub.pem'), 'utf8')),
        ),
      'rekor_keys[0].public_pem',
    ],
    [
      'a rekor key given as a certificate',
      () =>
        publishedWith(
          (d) => (d.rekor_keys[0].public_pem = readFileSync(join(PROJECT_ROOT, 'test/fixtures/pki/TEST-ONLY-tsa.cert.pem'), 'utf8')),
        ),
      'rekor_keys[0].public_pem',
    ],
    ['a date without time', () => publishedWith((d) => (d.keys[0].valid_from = '2026-02-26')), 'keys[0].valid_from'],
    [
      'a date that does not exist',
      () => publishedWith((d) => (d.rekor_keys[1].retired_at = '2026-02-30T00:00:00Z')),
      'rekor_keys[1].retired_at',
    ],
    ['retired before it was valid', () => publishedWith((d) => (d.keys[2].retired_at = '2026-10-03T09:59:59Z')), 'keys[2].retired_at'],
    ['retired_at absent (null says not retired)', () => publishedWith((d) => delete d.keys[0].retired_at), 'keys[0].retired_at'],
    ['a kid given twice', () => publishedWith((d) => (d.keys[1].kid = 'key-1')), 'keys[1].kid'],
    ['a kid that is a path', () => publishedWith((d) => (d.rekor_keys[0].kid = '../rekor-1')), 'rekor_keys[0].kid'],
  ];
  it.each(malformed)(
    'refuses %s → ARKFORGE_KEYS_INVALID (exit 3), naming the file and field, writing nothing',
    async (_what, make, field) => {
      const dir = trustCopy();
      const files = snapshot(dir);
      const file = make();
      const r = await importInto(dir, file);
      expect([r.code, r.json.code]).toEqual([3, 'ARKFORGE_KEYS_INVALID']);
      expect(r.json.details).toMatchObject({ path: file, field });
      expect(r.json.message).toContain(file);
      if (field) expect(r.json.message).toContain(`: ${field}: `);
      expect(snapshot(dir)).toEqual(files);
    },
  );

  it('refuses a file over the 8 MiB cap → ARKFORGE_KEYS_TOO_LARGE (exit 3) from its size, before parsing, writing nothing; at the cap it is read', async () => {
    const { MAX_KEY_HISTORY_BYTES } = await import('../../pipeline/commands/trust.ts');
    expect(MAX_KEY_HISTORY_BYTES).toBe(8 * 1024 * 1024);
    const text = readFileSync(PUBLISHED, 'utf8');
    // Valid JSON padded with white space: only the size can refuse it.
    const padded = (bytes: number) => publishedWith(() => {}, text + ' '.repeat(bytes - Buffer.byteLength(text)));
    const dir = trustCopy();
    const files = snapshot(dir);
    const over = padded(MAX_KEY_HISTORY_BYTES + 1);
    const r = await importInto(dir, over);
    expect([r.code, r.json.code]).toEqual([3, 'ARKFORGE_KEYS_TOO_LARGE']);
    expect(r.json.details).toMatchObject({ path: over, max_bytes: MAX_KEY_HISTORY_BYTES });
    expect(snapshot(dir)).toEqual(files);
    const at = await importInto(dir, padded(MAX_KEY_HISTORY_BYTES));
    expect([at.code, at.json.changed]).toEqual([0, true]);
  });

  it('refuses a history that publishes one key under two kids (ARKFORGE_KEY_CONFLICT), as it refuses a key pinned under another id', async () => {
    const dir = trustCopy();
    const files = snapshot(dir);
    const r = await importInto(
      dir,
      publishedWith((d) => (d.keys[2].public = d.keys[0].public)),
    );
    expect([r.code, r.json.code]).toEqual([4, 'ARKFORGE_KEY_CONFLICT']);
    expect(r.json.message).toContain('the published key key-3 is already pinned as key-1');
    expect(snapshot(dir)).toEqual(files);
  });

  it('bad JSON is reported with its line and column', async () => {
    const r = await importInto(
      trustCopy(),
      publishedWith(() => {}, '{\n  "keys": [,]\n}'),
    );
    expect(r.json.details).toMatchObject({ line: 2, column: 12 });
    expect(r.json.message).toContain('JSON_SYNTAX');
  });

  const conflicts: Array<[string, (dir: string) => void]> = [
    [
      'a kid already pinned in arkforge_keys with another key',
      (dir) => {
        const p = policyOf(dir);
        p.arkforge_keys.push({ ...p.arkforge_keys[0], key_id: 'key-2', valid_until: null });
        writeFileSync(join(dir, 'policy.json'), JSON.stringify(p, null, 2));
      },
    ],
    [
      'a kid already pinned in tlog_submitter_keys with another key',
      (dir) => {
        mkdirSync(join(dir, 'mine'));
        copyFileSync(join(PROJECT_ROOT, 'test/fixtures/keys/TEST-ONLY-tlog.pub.pem'), join(dir, 'mine/k.pem'));
        const p = policyOf(dir);
        p.tlog_submitter_keys = [
          { key_id: 'rekor-3', public_key_file: 'mine/k.pem', valid_from: '2026-01-01T00:00:00Z', valid_until: null },
        ];
        writeFileSync(join(dir, 'policy.json'), JSON.stringify(p, null, 2));
      },
    ],
    [
      'a submitter key file that exists with other content',
      (dir) => {
        mkdirSync(join(dir, 'tlog-submitters'));
        copyFileSync(join(PROJECT_ROOT, 'test/fixtures/keys/TEST-ONLY-tlog.pub.pem'), join(dir, 'tlog-submitters/rekor-2.pub.pem'));
      },
    ],
    // An import narrows a pinned window (a retirement), never widens what the operator pinned.
    [
      'a published window that ends later than the one the operator pinned',
      (dir) => {
        const p = policyOf(dir);
        p.arkforge_keys.push({
          key_id: 'key-1',
          public_key: published().keys[0].public,
          valid_from: '2026-02-26T00:00:00Z',
          valid_until: '2026-06-01T00:00:00Z',
        });
        writeFileSync(join(dir, 'policy.json'), JSON.stringify(p, null, 2));
      },
    ],
    [
      'a published window that starts earlier than the one the operator pinned',
      (dir) => {
        mkdirSync(join(dir, 'mine'));
        copyFileSync(join(REAL, 'arkforge-rekor-1.pub.pem'), join(dir, 'mine/rekor-1.pem'));
        const p = policyOf(dir);
        p.tlog_submitter_keys = [
          { key_id: 'rekor-1', public_key_file: 'mine/rekor-1.pem', valid_from: '2026-03-04T00:00:00Z', valid_until: null },
        ];
        writeFileSync(join(dir, 'policy.json'), JSON.stringify(p, null, 2));
      },
    ],
    // One key, one pin: the same key under a second key_id would count twice in every report.
    [
      'the same proof key already pinned under another key_id',
      (dir) => {
        const p = policyOf(dir);
        p.arkforge_keys.push({
          key_id: 'arkforge-main',
          public_key: published().keys[0].public,
          valid_from: '2026-02-26T00:00:00Z',
          valid_until: null,
        });
        writeFileSync(join(dir, 'policy.json'), JSON.stringify(p, null, 2));
      },
    ],
    [
      'the same rekor key already pinned under another key_id',
      (dir) => {
        mkdirSync(join(dir, 'mine'));
        copyFileSync(join(REAL, 'arkforge-rekor-1.pub.pem'), join(dir, 'mine/r.pem'));
        const p = policyOf(dir);
        p.tlog_submitter_keys = [
          { key_id: 'my-rekor', public_key_file: 'mine/r.pem', valid_from: '2026-03-03T00:00:00Z', valid_until: null },
        ];
        writeFileSync(join(dir, 'policy.json'), JSON.stringify(p, null, 2));
      },
    ],
  ];
  it('a pinned submitter key file that is not a regular file is a clear refusal (INPUT_NOT_REGULAR_FILE, exit 4), not an internal error', async () => {
    const dir = trustCopy();
    mkdirSync(join(dir, 'mine/k.pem'), { recursive: true }); // a directory where the key file should be
    const p = policyOf(dir);
    p.tlog_submitter_keys = [{ key_id: 'rekor-1', public_key_file: 'mine/k.pem', valid_from: '2026-03-03T00:00:00Z', valid_until: null }];
    writeFileSync(join(dir, 'policy.json'), JSON.stringify(p, null, 2));
    const files = snapshot(dir);
    const r = await importInto(dir);
    // Inputs are opened only if they are regular files (pipeline/io/regular-file.ts).
    expect([r.code, r.json.code]).toEqual([4, 'INPUT_NOT_REGULAR_FILE']);
    expect(r.json.message).toContain('mine/k.pem');
    expect(snapshot(dir)).toEqual(files);
  });

  it.each(conflicts)('refuses %s → ARKFORGE_KEY_CONFLICT (exit 4), writing nothing', async (_what, arrange) => {
    const dir = trustCopy();
    arrange(dir);
    const files = snapshot(dir);
    const r = await importInto(dir);
    expect([r.code, r.json.code]).toEqual([4, 'ARKFORGE_KEY_CONFLICT']);
    expect(snapshot(dir)).toEqual(files);
  });

  it('refuses a trust directory without policy.json, and a policy that does not load, writing nothing', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'prereg-no-policy-'));
    scratch.push(empty);
    const r = await importInto(empty);
    expect([r.code, r.json.code]).toEqual([3, 'FILE_NOT_FOUND']);
    expect(existsSync(join(empty, 'tlog-submitters'))).toBe(false);

    const dir = trustCopy();
    const p = policyOf(dir);
    p.tsa_certs = ['tsa-certs/missing.pem'];
    writeFileSync(join(dir, 'policy.json'), JSON.stringify(p, null, 2));
    const files = snapshot(dir);
    const broken = await importInto(dir);
    expect([broken.code, broken.json.code]).toEqual([3, 'FILE_NOT_FOUND']);
    expect(snapshot(dir)).toEqual(files);
  });

  it.each([
    [['trust']],
    [['trust', 'import-arkforge']],
    [['trust', 'frobnicate', PUBLISHED]],
    [['trust', 'import-arkforge', PUBLISHED, 'extra']],
  ])('%j → USAGE (exit 2)', async (args) => {
    const r = await runCli([...args, '--json']);
    expect([r.code, r.json.code]).toEqual([2, 'USAGE']);
  });

  it('is a utility, not a pipeline stage (no Taskfile task, no npm script)', async () => {
    const { COMMANDS } = await import('../../pipeline/stages/registry.ts');
    expect(COMMANDS.find((c) => c.name === 'trust')?.stage).toBe(false);
  });
});

const scratchStudy = scratchStudies();
