// `prereg anchor` against real local TSAs over HTTP: pkijs (chosen genTime) and `openssl ts -reply`.
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { buildTimestampRequest } from '../../pipeline/formats/timestamp-request.ts';
import { copyExampleStudy, runCli } from '../support/cli.ts';
import { issueTimestampResponse, loadTestSigner } from '../support/tsa/pkijs-tsa.ts';
import { ANOTHER_REQUEST, startTsaAnsweringAnotherRequest, startTsaServer, type TsaServer } from '../support/tsa/http-tsa.ts';
import type { pkijs } from '../../pipeline/vendor/pki.ts';

let cleanups: Array<() => void | Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups) await c();
  cleanups = [];
});
function freshStudy(): string {
  const s = copyExampleStudy();
  cleanups.push(s.cleanup);
  rmSync(join(s.root, 'preregistration/anchors'), { recursive: true, force: true });
  return s.root;
}
async function tsa(options: Parameters<typeof startTsaServer>[0]): Promise<TsaServer> {
  const server = await startTsaServer(options);
  cleanups.push(() => server.close());
  return server;
}
const BEFORE_OPEN = '2026-11-01T09:00:00Z';
const anchorsOf = (root: string) =>
  existsSync(join(root, 'preregistration/anchors')) ? readdirSync(join(root, 'preregistration/anchors')).sort() : [];

describe('anchor', () => {
  it('stores a token from the pkijs TSA that check-anchors then verifies', async () => {
    const root = freshStudy();
    const server = await tsa({ backend: 'pkijs', genTime: BEFORE_OPEN });
    const r = await runCli(['anchor', '--root', root, '--tsa', `tsa-a=${server.url}`, '--json']);
    expect(r.code).toBe(0);
    expect(r.json.stored).toEqual([{ witness: 'tsa-a', gen_time: BEFORE_OPEN }]);
    expect(anchorsOf(root)).toEqual(['tsa-a.json', 'tsa-a.tsr']);
    const meta = JSON.parse(readFileSync(join(root, 'preregistration/anchors/tsa-a.json'), 'utf8'));
    expect(meta).toMatchObject({ witness: 'tsa-a', url: server.url, retrieved_via: 'http', freeze_digest: r.json.freeze_digest });
    const check = await runCli(['check-anchors', '--root', root, '--json']);
    expect(check.code).toBe(0);
    expect(check.json.independent_witnesses).toBe(1);
  });

  it('stores a real `openssl ts -reply` token; check-anchors verifies it and flags its genTime after opens_at', async () => {
    const root = freshStudy();
    const server = await tsa({ backend: 'openssl' });
    const r = await runCli(['anchor', '--root', root, '--tsa', `openssl-tsa=${server.url}`, '--json']);
    expect(r.code).toBe(0);
    const check = await runCli(['check-anchors', '--root', root, '--json']);
    expect(check.code).toBe(1);
    // The token itself verifies (signature, ESS binding, chain, EKU, imprint); only its time is late.
    expect(check.json.witnesses[0].reason_codes).toEqual(['ANCHOR_AFTER_OPEN']);
    expect(check.json.reason_codes).toEqual(['ANCHOR_AFTER_OPEN', 'ANCHOR_INSUFFICIENT']);
  });

  it('retries a TSA that fails once, then answers', async () => {
    const root = freshStudy();
    const server = await tsa({ backend: 'pkijs', genTime: BEFORE_OPEN, failFirst: 1 });
    const r = await runCli(['anchor', '--root', root, '--tsa', `flaky=${server.url}`, '--retries', '2', '--json']);
    expect(r.code).toBe(0);
    expect(server.requests).toBe(2);
    expect(r.json.stored.map((s: { witness: string }) => s.witness)).toEqual(['flaky']);
  });

  it('fails over to the next TSA when one never answers', async () => {
    const root = freshStudy();
    const dead = await tsa({ backend: 'pkijs', neverAnswer: true });
    const good = await tsa({ backend: 'pkijs', genTime: BEFORE_OPEN });
    const r = await runCli([
      'anchor',
      '--root',
      root,
      '--tsa',
      `dead=${dead.url}`,
      '--tsa',
      `good=${good.url}`,
      '--timeout-ms',
      '300',
      '--retries',
      '1',
      '--json',
    ]);
    expect(r.code).toBe(0);
    expect(r.json.stored.map((s: { witness: string }) => s.witness)).toEqual(['good']);
    expect(r.json.failed).toEqual([
      expect.objectContaining({ witness: 'dead', reason: expect.stringContaining('no answer within 300 ms') }),
    ]);
    expect(dead.requests).toBe(2);
  });

  it('writes nothing and says why when no TSA answers', async () => {
    const root = freshStudy();
    const dead = await tsa({ backend: 'pkijs', neverAnswer: true });
    const r = await runCli(['anchor', '--root', root, '--tsa', `dead=${dead.url}`, '--timeout-ms', '200', '--retries', '0', '--json']);
    // Exit 3 like every TSA_UNAVAILABLE (no TSA configured is 3 too): the same reason, the same code.
    expect(r.code).toBe(3);
    expect(r.json).toMatchObject({ ok: false, code: 'TSA_UNAVAILABLE' });
    expect(r.json.message).toContain('nothing was written');
    expect(anchorsOf(root)).toEqual([]);
  });

  it('does not store a token from an unpinned TSA', async () => {
    const root = freshStudy();
    const server = await tsa({ backend: 'pkijs', genTime: BEFORE_OPEN, signer: await loadTestSigner('unpinned-tsa') });
    const r = await runCli(['anchor', '--root', root, '--tsa', `rogue=${server.url}`, '--retries', '0', '--json']);
    expect([r.code, r.json.code]).toEqual([3, 'TSA_UNAVAILABLE']);
    expect(r.json.details.failed[0].reason).toContain('TSA_CHAIN_UNTRUSTED');
    expect(anchorsOf(root)).toEqual([]);
  });

  it('imports a .tsr over freeze_digest, and refuses one over another digest', async () => {
    const root = freshStudy();
    const frozen = await runCli(['check-anchors', '--root', root, '--json']);
    const digest = Buffer.from(frozen.json.freeze_digest, 'hex');
    const signer = await loadTestSigner('tsa');
    const dir = mkdtempSync(join(tmpdir(), 'prereg-tsr-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const good = join(dir, 'good.tsr');
    writeFileSync(good, await issueTimestampResponse(buildTimestampRequest(digest, 1n), signer, { genTime: BEFORE_OPEN }));
    const other = join(dir, 'other.tsr');
    writeFileSync(other, await issueTimestampResponse(buildTimestampRequest(Buffer.alloc(32, 7), 2n), signer, { genTime: BEFORE_OPEN }));

    const refused = await runCli(['anchor', '--root', root, '--import', other, '--witness', 'elsewhere', '--json']);
    expect(refused.code).toBe(1);
    expect(refused.json).toMatchObject({ code: 'ANCHOR_INVALID', details: { reason_codes: ['TSA_IMPRINT_MISMATCH'] } });
    expect(anchorsOf(root)).toEqual([]);

    const ok = await runCli(['anchor', '--root', root, '--import', good, '--witness', 'elsewhere', '--json']);
    expect(ok.code).toBe(0);
    expect(JSON.parse(readFileSync(join(root, 'preregistration/anchors/elsewhere.json'), 'utf8')).retrieved_via).toBe('import');
    expect((await runCli(['check-anchors', '--root', root])).code).toBe(0);
  });
});

describe('anchor against a TSA whose reply answers another request (RFC 3161 §2.4.2)', () => {
  // A real token of the pinned TEST-ONLY TSA, minted for a request changed on the way: what a TSA
  // or a man in the middle replaying an old token sends. The token itself is genuine (it may even
  // be over the right freeze_digest); only the request it answers is not the one anchor sent.
  async function answeringAnotherRequest(edit: (request: pkijs.TimeStampReq) => void): Promise<TsaServer> {
    const server = await startTsaAnsweringAnotherRequest(edit, BEFORE_OPEN);
    cleanups.push(() => server.close());
    return server;
  }

  it.each(ANOTHER_REQUEST)('%s: nothing is written, the TSA fails with %s', async (_what, code, edit) => {
    const root = freshStudy();
    const server = await answeringAnotherRequest(edit);
    const r = await runCli(['anchor', '--root', root, '--tsa', `replayer=${server.url}`, '--retries', '0', '--json']);
    expect([r.code, r.json.code], r.stdout + r.stderr).toEqual([3, 'TSA_UNAVAILABLE']);
    expect(r.json.details.failed).toEqual([expect.objectContaining({ witness: 'replayer', reason: expect.stringContaining(code) })]);
    expect(anchorsOf(root)).toEqual([]);
  });

  it('control: the same TSA answering the request as sent is stored', async () => {
    const root = freshStudy();
    const server = await answeringAnotherRequest(() => undefined);
    const r = await runCli(['anchor', '--root', root, '--tsa', `honest=${server.url}`, '--retries', '0', '--json']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(anchorsOf(root)).toEqual(['honest.json', 'honest.tsr']);
  });
});

describe('anchor against a TSA that answers too much', () => {
  /** An HTTP server that answers every POST with an endless stream of zeros (chunked, or with a huge content-length). */
  async function floodingServer(declareLength: boolean): Promise<{ url: string; sent: () => number }> {
    const { createServer } = await import('node:http');
    let sent = 0;
    const chunk = Buffer.alloc(64 * 1024);
    const server = createServer((req, res) => {
      req.resume();
      res.writeHead(200, {
        'content-type': 'application/timestamp-reply',
        ...(declareLength ? { 'content-length': String(512 * 1024 * 1024) } : {}),
      });
      const pump = () => {
        while (!res.destroyed && sent < 512 * 1024 * 1024) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end();
      };
      res.on('close', () => res.destroy());
      pump();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    cleanups.push(
      () =>
        new Promise<void>((r) => {
          server.closeAllConnections();
          server.close(() => r());
        }),
    );
    const { port } = server.address() as { port: number };
    return { url: `http://127.0.0.1:${port}/`, sent: () => sent };
  }

  it.each([
    ['a chunked body with no length', false],
    ['a declared content-length of 512 MiB', true],
  ])('%s: that TSA fails with TSA_RESPONSE_TOO_LARGE, the body is not read to the end, nothing stored', async (_, declare) => {
    const root = freshStudy();
    const flood = await floodingServer(declare);
    const r = await runCli(['anchor', '--root', root, '--tsa', `flood=${flood.url}`, '--retries', '0', '--json']);
    expect(r.code).toBe(3);
    expect(r.json.code).toBe('TSA_UNAVAILABLE');
    expect(r.json.details.failed[0].reason).toContain('TSA_RESPONSE_TOO_LARGE');
    expect(flood.sent()).toBeLessThan(512 * 1024 * 1024);
    expect(anchorsOf(root)).toEqual([]);
  });
});
