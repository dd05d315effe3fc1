// The audit's trust rail and the auditor's flags (SPEC §12.1): the genuine example, audited with
// less than the auditor's own material, fails the trust rail and names what is missing; each rule
// has a case where it must reject. The VALID case with every flag is audit.test.ts's.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditReport, Rail } from '../../pipeline/audit/rails.ts';
import { AUDITOR_ISSUER_KEYS, AUDITOR_TSA_ROOT, exampleFreezeDigest } from '../support/auditor.ts';
import { runCli } from '../support/cli.ts';
import { testPkiPaths } from '../support/tsa/pkijs-tsa.ts';
import { emittedStudy, scratchDir, type EmittedStudy } from './helpers.ts';

let study: EmittedStudy;
const tmp = scratchDir('prereg-trust-rail-');
beforeAll(async () => {
  study = await emittedStudy();
}, 120_000);
afterAll(() => {
  study?.cleanup();
  tmp.cleanup();
});

async function audit(flags: string[]): Promise<{ code: number; report: AuditReport; text: string }> {
  const r = await runCli(['audit', study.dir, '--root', study.root, ...flags, '--json']);
  const t = await runCli(['audit', study.dir, '--root', study.root, ...flags]);
  return { code: r.code, report: r.json as AuditReport, text: t.stdout };
}
const rail = (report: AuditReport, name: string): Rail => report.rails.find((r) => r.name === name)!;
const FREEZE = ['--expect-freeze', exampleFreezeDigest()];
const ROOT = ['--tsa-root', AUDITOR_TSA_ROOT];
const KEYS = ['--issuer-keys', AUDITOR_ISSUER_KEYS];

function issuerKeys(name: string, keys: Array<{ kid: string; public: string; valid_from: string; retired_at: string | null }>): string {
  const path = join(tmp.path, name);
  writeFileSync(path, JSON.stringify({ keys: keys.map((k) => ({ type: 'Ed25519', ...k })), rekor_keys: [] }));
  return path;
}
// The TEST-ONLY 2026 key's public half, as the example's trust policy pins it.
const PUB_2026 = 'ed25519:TT2xwiaYZRsVnROJ_h4NBIL52XAdwQtQfm5nu89iOyE';

describe('the audit trusts only what the auditor supplies', () => {
  it('without any flag, the genuine example fails the trust rail, naming each flag', async () => {
    const a = await audit([]);
    expect([a.code, a.report.verdict]).toEqual([1, 'invalid']);
    expect(a.report.rails.filter((r) => !r.ok).map((r) => r.name)).toEqual(['trust']);
    const trust = rail(a.report, 'trust');
    expect([trust.code, trust.reason_codes]).toEqual(['AUDIT_TRUST_UNCONFIRMED', ['FREEZE_DIGEST_UNPINNED']]);
    for (const flag of ['--expect-freeze', '--tsa-root', '--issuer-keys']) expect(a.text).toContain(flag);
    expect(a.text).toContain('preregistration/anchors/local-test-tsa.tsr');
    expect(a.text).toMatch(/verified proof\(s\) .* rest on the study's issuer key TEST-ONLY-arkforge-2026/);
    expect(a.text).toMatch(/tokens that chain to the study's TSA root sha256 6633dffa/);
  }, 60_000);

  it('the freeze digest pinned, roots and keys not: still unconfirmed, FREEZE_DIGEST_UNPINNED gone', async () => {
    const a = await audit(FREEZE);
    const trust = rail(a.report, 'trust');
    expect([a.code, trust.ok, trust.reason_codes]).toEqual([1, false, []]);
    expect(a.text).not.toContain('FREEZE_DIGEST_UNPINNED');
  }, 60_000);

  it('an issuer key history without the key the proofs rest on: unconfirmed, naming the key', async () => {
    const only2025 = issuerKeys('only-2025.json', [
      {
        kid: 'old',
        public: 'ed25519:We4yF-FPwQ3NK1_ENIlx444JulHoqxKYM8DeXWl08k8',
        valid_from: '2025-01-01T00:00:00Z',
        retired_at: '2026-01-01T00:00:00Z',
      },
    ]);
    const a = await audit([...FREEZE, ...ROOT, '--issuer-keys', only2025]);
    expect(a.report.rails.filter((r) => !r.ok).map((r) => r.name)).toEqual(['trust']);
    expect(a.text).toContain("rest on the study's issuer key TEST-ONLY-arkforge-2026");
    expect(a.text).toContain(`only-2025.json has no key ${PUB_2026}`);
  }, 60_000);

  it('the right key, retired before the proofs were issued: unconfirmed', async () => {
    const retired = issuerKeys('retired.json', [
      { kid: 'k', public: PUB_2026, valid_from: '2026-01-01T00:00:00Z', retired_at: '2026-06-01T00:00:00Z' },
    ]);
    const a = await audit([...FREEZE, ...ROOT, '--issuer-keys', retired]);
    expect([a.code, rail(a.report, 'trust').ok]).toEqual([1, false]);
    const open = issuerKeys('open.json', [{ kid: 'k', public: PUB_2026, valid_from: '2026-01-01T00:00:00Z', retired_at: null }]);
    const b = await audit([...FREEZE, ...ROOT, '--issuer-keys', open]);
    expect([b.code, b.report.verdict]).toEqual([0, 'valid']);
  }, 90_000);

  it("a TSA root the study does not use: the anchor and the proofs' tokens rest on the study's root alone", async () => {
    const a = await audit([...FREEZE, ...KEYS, '--tsa-root', testPkiPaths('unpinned-root').cert]);
    expect(a.report.rails.filter((r) => !r.ok).map((r) => r.name)).toEqual(['anchors', 'trust']);
    expect(rail(a.report, 'anchors').reason_codes).toEqual(['ANCHOR_INSUFFICIENT']);
    expect(JSON.stringify(rail(a.report, 'anchors'))).toContain("1 more (local-test-tsa) verify only under the study's own roots");
    expect(a.text).toContain('preregistration/trust/tsa-roots/TEST-ONLY-tsa-root.cert.pem');
  }, 60_000);

  it('more witnesses required than the freeze has: ANCHOR_INSUFFICIENT', async () => {
    const a = await audit([...FREEZE, ...ROOT, ...KEYS, '--min-witnesses', '2']);
    expect([a.code, rail(a.report, 'anchors').reason_codes]).toEqual([1, ['ANCHOR_INSUFFICIENT']]);
  }, 60_000);

  it('refuses flags it cannot use: a missing root file (3), a malformed digest or count (2), an invalid key history (3)', async () => {
    const missing = await runCli(['audit', study.dir, '--root', study.root, '--tsa-root', join(tmp.path, 'nope.pem'), '--json']);
    expect([missing.code, missing.json.code]).toEqual([3, 'FILE_NOT_FOUND']);
    const digest = await runCli(['audit', study.dir, '--root', study.root, '--expect-freeze', 'abc', '--json']);
    expect([digest.code, digest.json.code]).toEqual([2, 'USAGE']);
    const count = await runCli(['audit', study.dir, '--root', study.root, '--min-witnesses', 'two', '--json']);
    expect([count.code, count.json.code]).toEqual([2, 'USAGE']);
    const bad = join(tmp.path, 'bad-keys.json');
    writeFileSync(bad, '{"keys": [{"kid": "x"}]}');
    const keys = await runCli(['audit', study.dir, '--root', study.root, '--issuer-keys', bad, '--json']);
    expect([keys.code, keys.json.code]).toEqual([3, 'ARKFORGE_KEYS_INVALID']);
  });
});
