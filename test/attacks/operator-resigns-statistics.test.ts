// The operator holds the signing keys. The statistics the score stage adds (intervals, Holm) are
// outside decision_digest (docs/outputs.md), so an operator could narrow an interval in
// results.json and sign the result again — manifest, SHA256SUMS and both signatures consistent.
// The audit's rerun from the inputs still gives the true results.json: INVALID, on `reproduced`.
// The same operator naming another system as the one H2 is observed of (observed_system, a
// decision row) and recomputing decision_digest too: INVALID, on `decisions` and `reproduced`.
// The same operator crediting a near miss as retrieval (results.json retrieval, pipeline-owned and
// outside decision_digest): INVALID, on `reproduced`.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CMS_FILE,
  decisionDigest,
  MANIFEST_FILE,
  manifestBytes,
  sealManifest,
  sha256sums,
  SIGNATURE_FILE,
  SUMS_FILE,
  type Manifest,
} from '../../pipeline/emit/manifest.ts';
import { loadOperatorKeys, signCmsDetached, signEd25519 } from '../../pipeline/emit/sign.ts';
import { sha256Hex } from '../../pipeline/formats/hash.ts';
import { parseJson, type JsonValue } from '../../pipeline/formats/canonical-json.ts';
import { KEYS } from '../emit/helpers.ts';
import { audit, emittedStudy, failedRails, type EmittedStudy } from '../audit/helpers.ts';

let study: EmittedStudy;
beforeAll(async () => {
  study = await emittedStudy();
}, 240_000);
afterAll(() => study.cleanup());

/** Everything the operator can recompute and sign again over a forged results.json: the manifest (with decision_digest), SHA256SUMS, both signatures. */
async function resign(dir: string, forged: string): Promise<void> {
  const manifest = JSON.parse(readFileSync(join(dir, MANIFEST_FILE), 'utf8')) as Manifest;
  const bytes = Buffer.from(forged, 'latin1');
  const outputs = manifest.outputs.map((o) => (o.file === 'results.json' ? { ...o, bytes: bytes.length, sha256: sha256Hex(bytes) } : o));
  const rows = parseJson(forged) as Record<string, JsonValue[]>;
  const decision_digest = decisionDigest({
    assertion_classes: rows.assertion_classes!,
    scores: rows.scores!,
    hypotheses: rows.hypotheses!,
  });
  const resealed = sealManifest({ ...manifest, outputs, decision_digest });
  const data = manifestBytes(resealed);
  writeFileSync(join(dir, MANIFEST_FILE), data);
  writeFileSync(join(dir, SUMS_FILE), sha256sums([...outputs, { file: MANIFEST_FILE, bytes: data.length, sha256: sha256Hex(data) }]));
  const keys = loadOperatorKeys(KEYS);
  writeFileSync(join(dir, SIGNATURE_FILE), signEd25519(keys, data));
  writeFileSync(join(dir, CMS_FILE), await signCmsDetached(keys, data));
}

it('an interval narrowed in results.json and signed again by the operator: INVALID (the rerun reproduces the true one)', async () => {
  const results = join(study.dir, 'results.json');
  const text = readFileSync(results, 'latin1');
  // sys-honest's proven interval on the primary metric, its lower bound raised to 0.97.
  const row =
    /\{"alpha":0\.05,"declared_lower":[^}]*"metric":"positives_citing_expected","proven_lower":([0-9.e-]+),[^}]*"system_id":"sys-honest"\}/.exec(
      text,
    );
  expect(row, 'sys-honest has an interval on the primary metric').not.toBeNull();
  const forged = text.replace(row![0], row![0].replace(`"proven_lower":${row![1]}`, '"proven_lower":0.97'));
  expect(forged).not.toBe(text);
  writeFileSync(results, forged, 'latin1');

  await resign(study.dir, forged);

  const { code, report } = await audit(study.dir, study.root);
  expect(code).toBe(1);
  expect(report.verdict).toBe('invalid');
  // The forgery is consistent (schema, signatures, digests, decisions pass): only the rerun catches it.
  expect(failedRails(report)).toEqual(['reproduced']);
}, 240_000);

describe('the operator renames the system a hypothesis is observed of', () => {
  let own: EmittedStudy;
  beforeAll(async () => {
    own = await emittedStudy();
  }, 240_000);
  afterAll(() => own.cleanup());

  it('H2 said to be observed of another system in results.json, decision_digest recomputed, all signed again: INVALID (decisions and reproduced)', async () => {
    const results = join(own.dir, 'results.json');
    const text = readFileSync(results, 'latin1');
    // Canonical JSON sorts a row's keys: decision_reason comes before hypothesis_id.
    const h2 = /(\{"decision_reason":"[^"]*","hypothesis_id":"H2",[^}]*"observed_system":)"sys-tampered"/.exec(text);
    expect(h2, 'H2 is observed of sys-tampered').not.toBeNull();
    const forged = text.replace(h2![0], `${h2![1]}"copycat"`);
    writeFileSync(results, forged, 'latin1');
    await resign(own.dir, forged);
    const { code, report } = await audit(own.dir, own.root);
    expect([code, report.verdict]).toEqual([1, 'invalid']);
    expect(failedRails(report)).toEqual(['reproduced', 'decisions']);
  }, 240_000);
});

describe('the operator credits a near miss as retrieval', () => {
  let own: EmittedStudy;
  beforeAll(async () => {
    own = await emittedStudy();
  }, 240_000);
  afterAll(() => own.cleanup());

  it("sys-truncated's near miss (L2152-1 served for R2152-1) moved to expected_served in results.json retrieval, all signed again: INVALID (the rerun counts it a near miss)", async () => {
    const results = join(own.dir, 'results.json');
    const text = readFileSync(results, 'latin1');
    // Canonical JSON sorts a row's keys: evidence, expected_served, missing, near_miss, not_served, positives, system_id.
    const row =
      /\{"evidence":"declared","expected_served":31,"missing":16,"near_miss":1,"not_served":16,"positives":48,"system_id":"sys-truncated"\}/.exec(
        text,
      );
    expect(row, "sys-truncated's declared retrieval row counts one near miss").not.toBeNull();
    const forged = text.replace(
      row![0],
      row![0].replace('"expected_served":31', '"expected_served":32').replace('"near_miss":1', '"near_miss":0'),
    );
    writeFileSync(results, forged, 'latin1');
    await resign(own.dir, forged);
    const { code, report } = await audit(own.dir, own.root);
    expect([code, report.verdict]).toEqual([1, 'invalid']);
    expect(failedRails(report)).toEqual(['reproduced']);
  }, 240_000);
});
