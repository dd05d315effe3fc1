// Every real artefact passes the schema the project publishes for its shape: a schema that
// refused what the real issuer serves would make every real claim unproven.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { schemaProblems } from '../../pipeline/formats/schemas.ts';
import { PROJECT_ROOT } from '../support/cli.ts';

const REAL = path.join(PROJECT_ROOT, 'test/fixtures/real/arkforge-production');
const read = (name: string): unknown => JSON.parse(readFileSync(path.join(REAL, name), 'utf8'));

describe('the published schemas accept the real artefacts', () => {
  it.each(['proof_proveit_gel.json', 'proof_rekor.json', 'proof_2026_07.json'])('%s is a proof (schemas/proof.schema.json)', (name) => {
    expect(schemaProblems('proof', read(name))).toEqual([]);
  });

  it('the Rekor entry, as the log returns it under its uuid, is a transparency-log entry (schemas/tlog-entry.schema.json)', () => {
    const [entry] = Object.values(read('rekor_entry.json') as Record<string, unknown>);
    expect(schemaProblems('tlog-entry', entry)).toEqual([]);
  });

  it('and the schema still refuses a served chain input of the wrong shape', () => {
    const proof = read('proof_rekor.json') as Record<string, unknown>;
    expect(schemaProblems('proof', { ...proof, seller: 42 })).not.toEqual([]);
    expect(schemaProblems('proof', { ...proof, parties: { buyer_fingerprint: 'not-hex' } })).not.toEqual([]);
    expect(schemaProblems('proof', { ...proof, certification_fee: { transaction_id: 7 } })).not.toEqual([]);
  });
});
