// study.json's registered systems (SPEC §6.2, docs/ownership.md): what the schema and loadStudy
// refuse, and the warning a study that registers none gets.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadStudy, unregisteredSystemsWarning } from '../../pipeline/study/study.ts';
import { PreregError } from '../../pipeline/reasons.ts';
import { PROJECT_ROOT } from '../support/cli.ts';

const example = JSON.parse(readFileSync(join(PROJECT_ROOT, 'preregistration/study.json'), 'utf8')) as Record<string, unknown>;
const dir = mkdtempSync(join(tmpdir(), 'prereg-study-json-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const A = 'a'.repeat(64);
const B = 'b'.repeat(64);

function load(systems: unknown): ReturnType<typeof loadStudy> {
  const file = join(dir, 'study.json');
  const study = { ...example };
  if (systems === undefined) delete study.systems;
  else study.systems = systems;
  writeFileSync(file, JSON.stringify(study));
  return loadStudy(file);
}

function problems(systems: unknown): string[] {
  try {
    load(systems);
  } catch (err) {
    expect(err).toBeInstanceOf(PreregError);
    expect((err as PreregError).code).toBe('STUDY_INVALID');
    return (err as PreregError & { details: { problems: string[] } }).details.problems;
  }
  throw new Error('loadStudy accepted the study');
}

describe('registered systems in study.json', () => {
  it('accepts systems with their fingerprints and optional agent identities, and then gives no warning', () => {
    const study = load([
      { system_id: 'sys-a', buyer_fingerprints: [A], agent_identities: ['did:web:a.example'] },
      { system_id: 'sys-b', buyer_fingerprints: [B, `sha256:${B}`] },
    ]);
    expect(study.systems!.map((s) => s.system_id)).toEqual(['sys-a', 'sys-b']);
    expect(unregisteredSystemsWarning(study)).toBeNull();
  });

  it("warns a study that registers none: a copier would cancel the original's credit", () => {
    const warning = unregisteredSystemsWarning(load(undefined));
    expect(warning?.code).toBe('STUDY_SYSTEMS_UNREGISTERED');
    expect(warning?.message).toMatch(/registers no systems.*EVIDENCE_REUSED/);
  });

  it.each([
    ['an empty list', [], /systems/],
    ['a system without fingerprints', [{ system_id: 'sys-a', buyer_fingerprints: [] }], /buyer_fingerprints/],
    ['a system without an id', [{ buyer_fingerprints: [A] }], /system_id/],
    ['an unknown member', [{ system_id: 'sys-a', buyer_fingerprints: [A], key: 'x' }], /additional|key/],
    [
      'a system registered twice',
      [
        { system_id: 'sys-a', buyer_fingerprints: [A] },
        { system_id: 'sys-a', buyer_fingerprints: [B] },
      ],
      /registered twice/,
    ],
    [
      'a fingerprint registered for two systems',
      [
        { system_id: 'sys-a', buyer_fingerprints: [A] },
        { system_id: 'sys-b', buyer_fingerprints: [A] },
      ],
      /already registered for "sys-a"/,
    ],
  ])('refuses %s (STUDY_INVALID)', (_, systems, message) => {
    expect(problems(systems).join('; ')).toMatch(message);
  });
});

describe('corpus.items', () => {
  const withItems = (items: string) => {
    const file = join(dir, 'study-items.json');
    writeFileSync(file, JSON.stringify({ ...example, corpus: { ...(example.corpus as object), items } }));
    return () => loadStudy(file);
  };
  it('is a file inside corpus/: a path beside it would be parsed without being in the corpus root', () => {
    for (const outside of ['../inputs/items.jsonl', '/etc/items.jsonl', '.', 'sub/../../items.jsonl']) {
      expect(withItems(outside), outside).toThrow(
        expect.objectContaining({ code: 'STUDY_INVALID', message: expect.stringContaining('/corpus/items') }),
      );
    }
    expect(withItems('./items.jsonl')().corpus.items).toBe('./items.jsonl');
    expect(withItems('sub/items.jsonl')().corpus.items).toBe('sub/items.jsonl');
  });
});
