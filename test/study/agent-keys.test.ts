// prereg.study/2: registered agent keys (proof of possession, one system per key), the intake
// settings and their defaults, and a study/1 read as before (SPEC §12.2, §12.9). Real keys, real
// signatures; the refusals through `prereg freeze` show that nothing is written.
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { agentKeyText } from '../../pipeline/evidence/intake/ed25519.ts';
import { agentKeyRegistration } from '../../pipeline/participant/agent-key.ts';
import { PreregError } from '../../pipeline/reasons.ts';
import { intakeOf, loadStudy, weakenedModes } from '../../pipeline/study/study.ts';
import { PROJECT_ROOT, runCli, scratchStudies } from '../support/cli.ts';

// The committed example as a prereg.study/1 (its registration without agent keys, none of the study/2 fields): the base each case edits.
const committed = JSON.parse(readFileSync(join(PROJECT_ROOT, 'preregistration/study.json'), 'utf8')) as {
  study_id: string;
  systems: Array<Record<string, unknown>>;
} & Record<string, unknown>;
const {
  intake: _intake,
  protocol: _protocol,
  statistics: _statistics,
  refusal_pattern: _refusal,
  refusal: _tail,
  ...withoutIntake
} = committed;
// vocabulary.near_miss is a study/2 field too.
const { near_miss: _nearMiss, ...vocabularyV1 } = (committed.vocabulary ?? {}) as Record<string, unknown>;
const example = {
  ...withoutIntake,
  format: 'prereg.study/1',
  vocabulary: vocabularyV1,
  systems: committed.systems.map(({ agent_keys: _keys, ...s }) => s),
} as typeof committed;
const dir = mkdtempSync(join(tmpdir(), 'prereg-agent-keys-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const fresh = scratchStudies();

const key = (): KeyObject => generateKeyPairSync('ed25519').privateKey;
const registration = (k: KeyObject, systemId: string, studyId = example.study_id) => agentKeyRegistration(k, studyId, systemId);

function studyWith(
  keys: Record<string, unknown[]>,
  extra: Record<string, unknown> = { format: 'prereg.study/2' },
): Record<string, unknown> {
  return {
    ...example,
    ...extra,
    systems: example.systems.map((s) => (keys[s.system_id as string] ? { ...s, agent_keys: keys[s.system_id as string] } : s)),
  };
}
function codeOf(study: Record<string, unknown>): string {
  const file = join(dir, 'study.json');
  writeFileSync(file, JSON.stringify(study));
  try {
    loadStudy(file);
    return 'OK';
  } catch (err) {
    if (!(err instanceof PreregError)) throw err;
    return err.code;
  }
}

describe('agent keys in a prereg.study/2', () => {
  const a = key();
  const b = key();
  it.each([
    ['a registered key with its proof of possession', { 'sys-honest': [registration(a, 'sys-honest')] }, 'OK'],
    ['one key per system, two systems', { 'sys-honest': [registration(a, 'sys-honest')], copycat: [registration(b, 'copycat')] }, 'OK'],
    [
      'a possession signed by another key',
      { 'sys-honest': [{ ...registration(a, 'sys-honest'), possession: registration(b, 'sys-honest').possession }] },
      'STUDY_AGENT_KEY_INVALID',
    ],
    ['a possession over another system_id', { 'sys-honest': [{ ...registration(a, 'copycat') }] }, 'STUDY_AGENT_KEY_INVALID'],
    ['a possession over another study_id', { 'sys-honest': [registration(a, 'sys-honest', 'another-study')] }, 'STUDY_AGENT_KEY_INVALID'],
    [
      'a key that is not 32 bytes of Ed25519',
      { 'sys-honest': [{ ...registration(a, 'sys-honest'), public_key: `ed25519:${'A'.repeat(42)}B` }] },
      'STUDY_AGENT_KEY_INVALID',
    ],
    ['a missing possession', { 'sys-honest': [{ public_key: agentKeyText(a) }] }, 'STUDY_INVALID'],
    ['not an ed25519: key at all', { 'sys-honest': [{ ...registration(a, 'sys-honest'), public_key: 'rsa:abc' }] }, 'STUDY_INVALID'],
    [
      'the same key on two systems',
      { 'sys-honest': [registration(a, 'sys-honest')], copycat: [registration(a, 'copycat')] },
      'STUDY_AGENT_KEY_SHARED',
    ],
  ])('%s → %s', (_name, keys, expected) => {
    expect(codeOf(studyWith(keys))).toBe(expected);
  });

  it('agent_keys or intake in a prereg.study/1 are refused: the format says which fields exist', () => {
    expect(codeOf(studyWith({ 'sys-honest': [registration(a, 'sys-honest')] }, { format: 'prereg.study/1' }))).toBe('STUDY_INVALID');
    expect(codeOf({ ...example, intake: { mode: 'sealed' } })).toBe('STUDY_INVALID');
  });

  it('freeze refuses a shared key and writes nothing', async () => {
    const root = fresh();
    const before = readFileSync(join(root, 'preregistration/freeze.json'));
    writeFileSync(
      join(root, 'preregistration/study.json'),
      JSON.stringify(studyWith({ 'sys-honest': [registration(a, 'sys-honest')], copycat: [registration(a, 'copycat')] })),
    );
    const r = await runCli(['freeze', '--replace', '--reason', 'test refreeze', '--root', root, '--json']);
    expect([r.code, JSON.parse(r.stdout || r.stderr).code]).toEqual([3, 'STUDY_AGENT_KEY_SHARED']);
    expect(readFileSync(join(root, 'preregistration/freeze.json'))).toEqual(before);
  });
});

describe('intake settings and weakened modes', () => {
  it('a study/2 is sealed within 3600 s unless it says otherwise; a study/1 is unsealed, a weakened mode', () => {
    const file = join(dir, 'settings.json');
    const read = (s: Record<string, unknown>) => {
      writeFileSync(file, JSON.stringify(s));
      return loadStudy(file);
    };
    const v2 = read({ ...example, format: 'prereg.study/2' });
    expect([intakeOf(v2), weakenedModes(v2)]).toEqual([{ mode: 'sealed', seal_within_s: 3600 }, []]);
    const declared = read({ ...example, format: 'prereg.study/2', intake: { mode: 'unsealed', seal_within_s: 60 } });
    expect([intakeOf(declared), weakenedModes(declared)]).toEqual([{ mode: 'unsealed', seal_within_s: 60 }, ['unsealed intake']]);
    const v1 = read(example);
    expect(v1.format).toBe('prereg.study/1');
    expect([intakeOf(v1), weakenedModes(v1)]).toEqual([{ mode: 'unsealed', seal_within_s: 3600 }, ['unsealed intake']]);
  });
});

describe('binding (SPEC §12.3)', () => {
  const file = join(dir, 'binding.json');
  const codeFor = (s: Record<string, unknown>) => {
    writeFileSync(file, JSON.stringify(s));
    try {
      loadStudy(file);
      return 'ok';
    } catch (err) {
      return (err as { code: string }).code;
    }
  };
  it("registered (the default) needs every system's fingerprints; none refuses them; a study/1 cannot declare it", () => {
    const byIdOnly = example.systems.map((s) => ({ system_id: s.system_id }));
    expect(codeFor({ ...example, format: 'prereg.study/2', systems: byIdOnly })).toBe('STUDY_INVALID');
    expect(codeFor({ ...example, format: 'prereg.study/2', binding: 'none', systems: byIdOnly })).toBe('ok');
    expect(codeFor({ ...example, format: 'prereg.study/2', binding: 'none' })).toBe('STUDY_INVALID');
    expect(codeFor({ ...example, binding: 'none', systems: byIdOnly })).toBe('STUDY_INVALID');
    writeFileSync(file, JSON.stringify({ ...example, format: 'prereg.study/2', binding: 'none', systems: byIdOnly }));
    expect(weakenedModes(loadStudy(file))).toEqual(['binding: none']);
  });
});
