// Rehearsals of any size, through the CLI only: `init --rehearsal --rehearsal-systems 3` registers
// sys-a, sys-b and sys-c as the two of a default rehearsal are registered; `dev add-system sys-d`
// adds a fourth before the freeze; the four walk to a VALID audit, each proven. Refused, writing
// nothing: a size the kit's naming cannot give, a system added after the freeze (drift: the
// operator would score a system the frozen plan never named), an id already registered (its
// keys overwritten or shared), another rehearsal's kit (a system whose proofs the study cannot trust).
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.ts';
import { devTsa, ok, sealAndRun, stopDevTsas } from '../support/dev-tsa-process.ts';
import { snapshot } from '../support/intake-study.ts';

const base = mkdtempSync(join(tmpdir(), 'prereg-rehearsal-size-'));
afterAll(() => {
  stopDevTsas();
  rmSync(base, { recursive: true, force: true });
});

const OPENS = '2026-11-10T10:00:00Z';
const CLOSES = '2026-11-10T10:15:00Z';
const window = ['--opens-at', OPENS, '--closes-at', CLOSES];

interface Registered {
  system_id: string;
  buyer_fingerprints: string[];
  agent_keys: Array<{ public_key: string; possession: string }>;
}
const systemsOf = (study: string): Registered[] => JSON.parse(readFileSync(join(study, 'preregistration/study.json'), 'utf8')).systems;
const buyersOf = (kit: string): Record<string, string> => JSON.parse(readFileSync(join(kit, 'TEST-ONLY-dev-kit.json'), 'utf8')).buyers;
/** The study and its private directory (with the kit), file by file: a refusal leaves both as they were. */
const both = (study: string) => ({ study: snapshot(study), priv: snapshot(`${study}.private`) });

describe('init --rehearsal --rehearsal-systems N', () => {
  it.each([['0'], ['27'], ['two'], ['3x'], ['-1'], ['']])('refuses N=%j as a usage error, writing nothing', async (n) => {
    const study = join(base, `bad-${n || 'empty'}`);
    const r = await runCli(['init', study, '--rehearsal', `--rehearsal-systems=${n}`, '--json']);
    expect([r.code, r.json.code]).toEqual([2, 'USAGE']);
    expect(r.json.message).toContain('--rehearsal-systems expects a whole number from 1 to 26');
    expect([existsSync(study), existsSync(`${study}.private`)]).toEqual([false, false]);
  });

  it('refuses --rehearsal-systems without --rehearsal (a plain study registers its systems with --system)', async () => {
    const study = join(base, 'plain-sized');
    const r = await runCli(['init', study, '--rehearsal-systems', '3', '--json']);
    expect([r.code, r.json.code, existsSync(study)]).toEqual([2, 'USAGE', false]);
    expect(r.json.message).toContain('give it with --rehearsal');
  });

  it('N=1 and N=26 name sys-a alone and sys-a … sys-z', async () => {
    const one = await ok(['init', join(base, 'one'), '--rehearsal', '--rehearsal-systems', '1', ...window]);
    expect(one.json.rehearsal.systems.map((s: { system_id: string }) => s.system_id)).toEqual(['sys-a']);
    await ok(['init', join(base, 'all'), '--rehearsal', '--rehearsal-systems', '26', ...window]);
    const ids = systemsOf(join(base, 'all')).map((s) => s.system_id);
    expect([ids.length, ids[0], ids[25], new Set(ids).size]).toEqual([26, 'sys-a', 'sys-z', 26]);
  });
});

describe("dev takes each verb's own operands", () => {
  it.each([
    [['dev', 'add-system'], 'usage: prereg dev add-system ID'],
    [['dev', 'add-system', 'sys-c', 'sys-d'], 'dev takes 1 to 2 positional arguments, got 3'],
    [['dev', 'keys', 'sys-c'], 'dev keys takes no positional argument after keys'],
  ])('%j is a usage error', async (args, message) => {
    const r = await runCli([...args, '--kit', base, '--json']);
    expect([r.code, r.json.code]).toEqual([2, 'USAGE']);
    expect(r.json.message).toContain(message);
  });
});

describe('a rehearsal of three systems, and a fourth added before the freeze, to a VALID audit', () => {
  it('registers each as init registers two, refuses what would break the study, and proves all four', async () => {
    const started = Date.now();
    const study = join(base, 'four');
    const priv = `${study}.private`;
    const created = await ok(['init', study, '--rehearsal', '--rehearsal-systems', '3', ...window]);
    const kit = created.json.rehearsal.kit as string;
    expect(created.json.rehearsal.systems).toEqual(
      ['sys-a', 'sys-b', 'sys-c'].map((id) => ({ system_id: id, agent_key_file: join(kit, `TEST-ONLY-agent-${id}.key.pem`) })),
    );
    // Each system: its own buyer in the kit, its fingerprint and agent key (with proof of possession) in study.json, its key file private.
    const registered = systemsOf(study);
    expect(registered.map((s) => s.system_id)).toEqual(['sys-a', 'sys-b', 'sys-c']);
    expect(Object.keys(buyersOf(kit))).toEqual(['sys-a', 'sys-b', 'sys-c']);
    for (const s of registered) {
      expect(s.buyer_fingerprints).toHaveLength(1);
      expect(s.agent_keys).toHaveLength(1);
      expect(statSync(join(kit, `TEST-ONLY-agent-${s.system_id}.key.pem`)).mode & 0o777).toBe(0o600);
    }

    // A fourth, before the freeze.
    const added = await ok(['dev', 'add-system', 'sys-d', '--kit', kit, '--root', study]);
    expect(added.json).toMatchObject({
      ok: true,
      test_only: true,
      system_id: 'sys-d',
      agent_key_file: join(kit, 'TEST-ONLY-agent-sys-d.key.pem'),
    });
    expect(systemsOf(study).map((s) => s.system_id)).toEqual(['sys-a', 'sys-b', 'sys-c', 'sys-d']);
    expect(systemsOf(study)[3]).toEqual({
      system_id: 'sys-d',
      buyer_fingerprints: [added.json.buyer_fingerprint],
      agent_keys: [added.json.agent_key],
    });
    expect(Object.keys(buyersOf(kit))).toEqual(['sys-a', 'sys-b', 'sys-c', 'sys-d']);
    expect(statSync(join(kit, 'TEST-ONLY-agent-sys-d.key.pem')).mode & 0o777).toBe(0o600);
    expect(statSync(join(kit, 'TEST-ONLY-dev-kit.json')).mode & 0o777).toBe(0o600);
    // No temporary file left behind by the all-or-nothing write.
    expect(readdirSync(kit).filter((f) => f.endsWith('.tmp'))).toEqual([]);

    // An id already there: its keys would be overwritten or shared.
    const before = both(study);
    for (const id of ['sys-a', 'sys-d']) {
      const again = await runCli(['dev', 'add-system', id, '--kit', kit, '--root', study, '--json']);
      expect([again.code, again.json.code]).toEqual([4, 'DEV_SYSTEM_EXISTS']);
    }
    // An id that is no file name (the agent key's file is named by it).
    const traversal = await runCli(['dev', 'add-system', '../sys-e', '--kit', kit, '--root', study, '--json']);
    expect([traversal.code, traversal.json.code]).toEqual([2, 'USAGE']);
    // Another rehearsal's kit: its issuer is not pinned here, so its system's proofs could never count.
    const other = await ok(['init', join(base, 'other'), '--rehearsal', ...window]);
    const foreign = await runCli(['dev', 'add-system', 'sys-e', '--kit', other.json.rehearsal.kit, '--root', study, '--json']);
    expect([foreign.code, foreign.json.code]).toEqual([3, 'DEV_KIT_NOT_PINNED']);
    expect(both(study)).toEqual(before);
    expect(Object.keys(buyersOf(other.json.rehearsal.kit))).toEqual(['sys-a', 'sys-b']);

    // doctor: four registered systems, ready to freeze; freeze takes them into the plan.
    const doctor = await runCli(['doctor', '--root', study, '--json']);
    expect(doctor.json.stages[0].status, JSON.stringify(doctor.json.stages[0])).toBe('ready');
    await ok(['freeze', '--root', study, '--answer-key', join(priv, 'answer-key.jsonl'), '--secret-file', join(priv, 'answer-key.secret')]);

    // After the freeze a fifth would be drift: refused, nothing written, and doctor still sees no drift.
    const frozen = both(study);
    const late = await runCli(['dev', 'add-system', 'sys-e', '--kit', kit, '--root', study, '--json']);
    expect([late.code, late.json.code]).toEqual([4, 'DEV_SYSTEM_AFTER_FREEZE']);
    expect(both(study)).toEqual(frozen);
    expect(existsSync(join(kit, 'TEST-ONLY-agent-sys-e.key.pem'))).toBe(false);

    let tsa = await devTsa(kit, '2026-11-10T09:50:00Z');
    await ok(['anchor', '--root', study, '--tsa', `dev=${tsa.url}`, '--retries', '0']);
    expect(await tsa.stop()).toBe(0);
    const publishedOperatorKey = join(base, 'four-operator.pub.pem');
    copyFileSync(join(study, 'preregistration/trust/operator/operator.pub.pem'), publishedOperatorKey);
    // `dev keys` keeps its meaning: a key and its entry printed, nothing registered, the kit untouched.
    const anchored = both(study);
    const keyed = await ok(['dev', 'keys', '--system', 'sys-x', '--root', study, '--out', join(base, 'four-dev-keys')]);
    expect(keyed.json).toMatchObject({ system_id: 'sys-x', key_file: join(base, 'four-dev-keys', 'TEST-ONLY-agent-sys-x.key.pem') });
    expect(both(study)).toEqual(anchored);

    // Each of the four: a proof bought with its own dev buyer, a signed line, taken in.
    tsa = await devTsa(kit, '2026-11-10T10:05:00Z');
    const receipts: string[] = [];
    for (const system of ['sys-a', 'sys-b', 'sys-c', 'sys-d']) {
      const agentKey = join(kit, `TEST-ONLY-agent-${system}.key.pem`);
      const evidence = join(base, `four-evidence-${system}`);
      await ok([
        'dev',
        'issue',
        '--kit',
        kit,
        '--root',
        study,
        '--system',
        system,
        '--item',
        'q-001',
        '--ref',
        'A-1',
        '--at',
        '2026-11-10T10:01:00Z',
        '--out',
        evidence,
      ]);
      const file = join(base, `four-${system}.jsonl`);
      await ok([
        'submission',
        'build',
        '--root',
        study,
        '--system',
        system,
        '--item',
        'q-001',
        '--answer',
        'Article A-1 sets a fee of 100 EUR.',
        '--proof',
        join(evidence, 'proof.json'),
        '--request',
        join(evidence, 'request.json'),
        '--response',
        join(evidence, 'response.json'),
        '--out',
        file,
      ]);
      await ok(['submission', 'sign', file, '--key', agentKey, '--system', system, '--root', study]);
      await ok([
        'intake',
        `${file}.intake.json`,
        '--operator-key',
        join(priv, 'operator.key.pem'),
        '--tsa',
        `dev=${tsa.url}`,
        '--retries',
        '0',
        '--root',
        study,
      ]);
      receipts.push(`${file}.intake.receipt.json`);
    }
    expect(await tsa.stop()).toBe(0);
    // sys-a's key cannot sign for sys-d: each agent key is its own system's.
    const stolen = await runCli([
      'submission',
      'sign',
      join(base, 'four-sys-d.jsonl'),
      '--key',
      join(kit, 'TEST-ONLY-agent-sys-a.key.pem'),
      '--system',
      'sys-d',
      '--root',
      study,
      '--json',
    ]);
    expect(stolen.code).not.toBe(0);

    const ran = await sealAndRun(kit, study, priv, '2026-11-10T10:20:00Z');
    const results = JSON.parse(readFileSync(join(ran.json.dir, 'results.json'), 'utf8'));
    const primary = results.scores.filter((s: { metric: string }) => s.metric === 'positives_citing_expected');
    expect(primary.map((s: { system_id: string; proven: number; n_proven: number }) => [s.system_id, s.proven, s.n_proven])).toEqual(
      ['sys-a', 'sys-b', 'sys-c', 'sys-d'].map((id) => [id, 1, 1]),
    );
    const audited = await runCli([
      'audit',
      ran.json.dir,
      '--root',
      study,
      '--tsa-root',
      created.json.rehearsal.tsa_root,
      '--issuer-keys',
      created.json.rehearsal.issuer_keys,
      '--operator-key',
      publishedOperatorKey,
      ...receipts.flatMap((r) => ['--receipt', r]),
      '--json',
    ]);
    expect(audited.code, JSON.stringify(audited.json?.rails?.filter((r: { ok: boolean }) => !r.ok))).toBe(0);
    expect(audited.json.verdict).toBe('valid');
    console.log(`rehearsal of four systems: ${((Date.now() - started) / 1000).toFixed(1)} s`);
  });
});
