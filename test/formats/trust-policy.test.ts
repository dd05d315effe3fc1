// The trust policy's sellers (SPEC §12.4): pinned, the weakened "any", or missing (refused at freeze).
import { describe, expect, it } from 'vitest';
import { sellerMode, trustWeakenedModes } from '../../pipeline/formats/trust-policy.ts';
import { schemaProblems } from '../../pipeline/formats/schemas.ts';

describe('sellerMode and trustWeakenedModes', () => {
  it.each([
    ['a pinned list', ['retrieval.example'], { mode: 'pinned', sellers: ['retrieval.example'] }, []],
    ['"any", a weakened mode', 'any', { mode: 'any' }, ['any seller']],
    ['absent', undefined, { mode: 'missing' }, []],
  ] as const)('%s', (_, sellers, mode, weakened) => {
    const policy = sellers === undefined ? {} : { sellers: sellers as string[] | 'any' };
    expect(sellerMode(policy)).toEqual(mode);
    expect(trustWeakenedModes(policy)).toEqual(weakened);
  });
});

describe('the schema of sellers', () => {
  const base = {
    format: 'prereg.trust/1',
    arkforge_keys: [],
    tsa_roots: [],
    require_tsa_token: true,
    max_skew_seconds: 300,
    require_receipts: true,
  };
  it.each([
    [['retrieval.example'], true],
    ['any', true],
    [[], false],
    [['retrieval.example', 42], false],
    [[''], false],
    [['a', 'a'], false],
    ['retrieval.example', false],
  ])('%j valid: %s', (sellers, valid) => {
    expect(schemaProblems('trust-policy', { ...base, sellers }).length === 0).toBe(valid);
  });
});
