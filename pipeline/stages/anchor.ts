// `prereg anchor`: obtains RFC 3161 tokens over freeze_digest from the study's TSAs (retries,
// fail-over to the next TSA), or imports a .tsr obtained elsewhere. A token is stored only after
// it verifies against the pinned roots; if no TSA answers, nothing is written.
import { sha256Hex } from '../formats/hash.ts';
import { verifyTimestampToken } from '../evidence/timestamp/index.ts';
import { writeAnchor, type AnchorMetadata } from '../freeze/anchors.ts';
import { loadStudyFiles } from '../study/loaded-study.ts';
import { studyLayout } from '../layout.ts';
import { requestTimestamp, TsaRequestError } from '../net/tsa-client.ts';
import { EXIT, PreregError } from '../reasons.ts';
import type { Command } from '../command.ts';
import { readRegularFile } from '../io/regular-file.ts';
import { parseTsaOverrides, positiveInt } from '../options.ts';

export const anchor: Command = {
  name: 'anchor',
  summary: 'obtain RFC 3161 timestamp tokens over freeze_digest (or import a .tsr)',
  help: [
    'usage: prereg anchor [--tsa NAME=URL]… [--timeout-ms N] [--retries N] [--root DIR] [--json]',
    '       prereg anchor --import FILE.tsr --witness NAME [--url URL]',
    '',
    '  --tsa NAME=URL   ask these TSAs instead of the ones listed in study.json',
    '  --timeout-ms N   per request (default 10000); --retries N per TSA (default 3)',
    '  --import FILE    store a token obtained elsewhere, after verifying it',
    '',
    'Every TSA is asked in turn; one that fails after its retries is skipped (fail-over).',
    'A token is stored only after it verifies (imprint, signature, chain to a pinned root).',
    'Fails with TSA_UNAVAILABLE (exit 3, as when no TSA is configured), writing nothing, when fewer',
    'than anchors.min_witnesses answer.',
  ].join('\n'),
  options: {
    tsa: { type: 'string', multiple: true },
    'timeout-ms': { type: 'string' },
    retries: { type: 'string' },
    import: { type: 'string' },
    witness: { type: 'string' },
    url: { type: 'string' },
  },
  stage: true,
  jsonSchema: () => 'prereg.anchor/1',
  async run(ctx) {
    const layout = studyLayout(ctx.root);
    const loaded = loadStudyFiles(layout);
    const digest = loaded.freezeDigest();
    const study = loaded.study();
    const trust = loaded.trust();
    const digestBytes = Buffer.from(digest, 'hex');

    const accept = async (tsr: Uint8Array, witness: string, url: string | null, via: 'http' | 'import') => {
      const check = await verifyTimestampToken(tsr, digestBytes, trust.tsa);
      if (!check.ok) return { witness, ok: false as const, reason_codes: check.reason_codes };
      const meta: AnchorMetadata = {
        format: 'prereg.anchor/1',
        witness,
        url,
        retrieved_via: via,
        retrieved_at: new Date().toISOString(),
        freeze_digest: digest,
        tsr_sha256: sha256Hex(tsr),
      };
      return { witness, ok: true as const, meta, tsr, gen_time: check.genTime ?? null };
    };

    if (typeof ctx.values.import === 'string') {
      const witness = ctx.values.witness;
      if (typeof witness !== 'string' || !/^[a-z0-9][a-z0-9._-]{0,63}$/.test(witness)) {
        throw new PreregError('USAGE', '--import needs --witness NAME (lowercase letters, digits, . _ -)');
      }
      const outcome = await accept(
        readRegularFile(ctx.values.import),
        witness,
        typeof ctx.values.url === 'string' ? ctx.values.url : null,
        'import',
      );
      if (!outcome.ok) {
        throw new PreregError(
          'ANCHOR_INVALID',
          `${ctx.values.import} does not witness freeze_digest ${digest}: ${outcome.reason_codes.join(', ')}`,
          { reason_codes: outcome.reason_codes },
        );
      }
      writeAnchor(layout.anchors, outcome.tsr, outcome.meta);
      return {
        exitCode: EXIT.ok,
        json: { ok: true, freeze_digest: digest, stored: [{ witness, gen_time: outcome.gen_time }], failed: [] },
        text: `imported ${witness} (genTime ${outcome.gen_time}) over freeze_digest ${digest}`,
      };
    }

    const tsas = parseTsaOverrides(ctx.values.tsa) ?? study.anchors.tsas;
    if (tsas.length === 0) {
      throw new PreregError(
        'TSA_UNAVAILABLE',
        'no TSA configured in study.json anchors.tsas: pass `--tsa NAME=URL` (a TSA whose root the trust policy pins), or `--import FILE.tsr --witness NAME` for a token obtained elsewhere (docs/operating.md, "prereg anchor")',
      );
    }
    const timeoutMs = positiveInt(ctx.values['timeout-ms'], 10_000, '--timeout-ms');
    const retries = positiveInt(ctx.values.retries, 3, '--retries');
    const stored: Array<{ witness: string; gen_time: string | null }> = [];
    const failed: Array<{ witness: string; url: string; reason: string }> = [];
    const accepted = [];
    for (const tsa of tsas) {
      ctx.progress(`asking ${tsa.name} (${tsa.url})…`);
      try {
        const tsr = await requestTimestamp(tsa.url, digestBytes, {
          timeoutMs,
          retries,
          onRetry: (n, err) => ctx.progress(`${tsa.name}: attempt ${n} failed (${err.message}), retrying…`),
        });
        const outcome = await accept(tsr, tsa.name, tsa.url, 'http');
        if (outcome.ok) accepted.push(outcome);
        else failed.push({ witness: tsa.name, url: tsa.url, reason: `token does not verify: ${outcome.reason_codes.join(', ')}` });
      } catch (err) {
        if (!(err instanceof TsaRequestError)) throw err;
        failed.push({ witness: tsa.name, url: tsa.url, reason: err.message });
      }
    }
    const needed = Math.max(1, study.anchors.min_witnesses);
    if (accepted.length < needed) {
      throw new PreregError(
        'TSA_UNAVAILABLE',
        `${accepted.length} of ${tsas.length} TSA(s) gave a valid token, ${needed} needed; nothing was written. ${failed.map((f) => `${f.witness}: ${f.reason}`).join('; ')}`,
        { failed },
      );
    }
    for (const a of accepted) {
      writeAnchor(layout.anchors, a.tsr, a.meta);
      stored.push({ witness: a.witness, gen_time: a.gen_time });
    }
    return {
      exitCode: EXIT.ok,
      json: { ok: true, freeze_digest: digest, stored, failed },
      text: [
        `freeze_digest ${digest}`,
        ...stored.map((s) => `  stored ${s.witness} (genTime ${s.gen_time})`),
        ...failed.map((f) => `  skipped ${f.witness}: ${f.reason}`),
      ].join('\n'),
    };
  },
};
