// The operator holds the signing keys. The statistics the score stage adds (intervals, Holm) are
// outside decision_digest (docs/outputs.md), so an operator could narrow an interval in
// results.json and sign the result again — manifest, SHA256SUMS and both signatures consistent.
// The audit's rerun from the inputs still gives the true results.json: INVALID, on `reproduced`.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { CMS_FILE, MANIFEST_FILE, manifestBytes, sealManifest, sha256sums, SIGNATURE_FILE, SUMS_FILE, type Manifest } from '../../pipeline/emit/manifest.ts';
import { loadOperatorKeys, signCmsDetached, signEd25519 } from '../../pipeline/emit/sign.ts';
import { sha256Hex } from '../../pipeline/formats/hash.ts';
import { KEYS } from '../emit/helpers.ts';
import { audit, emittedStudy, failedRails, type EmittedStudy } from '../audit/helpers.ts';

let study: EmittedStudy;
beforeAll(async () => {
  study = await emittedStudy();
}, 240_000);
afterAll(() => study.cleanup());

it('an interval narrowed in results.json and signed again by the operator: INVALID (the rerun reproduces the true one)', async () => {
  const results = join(study.dir, 'results.json');
  const text = readFileSync(results, 'latin1');
  // sys-honest's proven interval on the primary metric, its lower bound raised to 0.97.
  const row = /\{"alpha":0\.05,"declared_lower":[^}]*"metric":"positives_citing_expected","proven_lower":([0-9.e-]+),[^}]*"system_id":"sys-honest"\}/.exec(text);
  expect(row, 'sys-honest has an interval on the primary metric').not.toBeNull();
  const forged = text.replace(row![0], row![0].replace(`"proven_lower":${row![1]}`, '"proven_lower":0.97'));
  expect(forged).not.toBe(text);
  writeFileSync(results, forged, 'latin1');

  // Everything the operator can recompute and sign again.
  const manifest = JSON.parse(readFileSync(join(study.dir, MANIFEST_FILE), 'utf8')) as Manifest;
  const bytes = Buffer.from(forged, 'latin1');
  const outputs = manifest.outputs.map((o) => (o.file === 'results.json' ? { ...o, bytes: bytes.length, sha256: sha256Hex(bytes) } : o));
  const resealed = sealManifest({ ...manifest, outputs });
  const data = manifestBytes(resealed);
  writeFileSync(join(study.dir, MANIFEST_FILE), data);
  writeFileSync(join(study.dir, SUMS_FILE), sha256sums([...outputs, { file: MANIFEST_FILE, bytes: data.length, sha256: sha256Hex(data) }]));
  const keys = loadOperatorKeys(KEYS);
  writeFileSync(join(study.dir, SIGNATURE_FILE), signEd25519(keys, data));
  writeFileSync(join(study.dir, CMS_FILE), await signCmsDetached(keys, data));

  const { code, report } = await audit(study.dir, study.root);
  expect(code).toBe(1);
  expect(report.verdict).toBe('invalid');
  // The forgery is consistent (schema, signatures, digests, decisions pass): only the rerun catches it.
  expect(failedRails(report)).toEqual(['reproduced']);
}, 240_000);
