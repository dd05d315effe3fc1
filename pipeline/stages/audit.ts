// `prereg audit <outputs dir>` (SPEC §8): rerun everything from the study's inputs in a scratch
// directory and report separate rails; `valid` only when every rail passes. The rails are in
// pipeline/audit/; this file parses the command and maps the verdict to an exit code.
import { auditOutputs, type AuditStages } from '../audit/index.ts';
import { renderReport } from '../audit/rails.ts';
import { EXIT, PreregError } from '../reasons.ts';
import type { Command } from '../command.ts';
import { ANCHOR_AUDITOR_OPTIONS } from '../options.ts';
import { runCheckAnchors } from '../freeze/check-anchors.ts';
import { emitOutputs } from '../emit/outputs.ts';
import { PIPELINE } from '../run/pipeline.ts';
import { runStage } from '../run/runner.ts';

/**
 * What the audit runs in-process: the same stages a user runs, in the pipeline's order, so no
 * check is implemented twice; the last, emit, unsigned.
 */
const AUDIT_STAGES: AuditStages = {
  rerun: PIPELINE.slice(0, -1).map((stage) => ({ name: stage.name, run: (ctx) => runStage(stage.name, ctx) })),
  emit: (layout, options) => emitOutputs(layout, { keys: null, ...options }),
  checkAnchors: { run: runCheckAnchors },
};

export const audit: Command = {
  name: 'audit',
  summary: 'rerun from the inputs in a scratch dir, compare every output byte, verify signatures and anchors',
  help: [
    'usage: prereg audit <outputs dir> [--tsa-root PEM]… [--issuer-keys FILE] [--expect-freeze HEX]',
    '                    [--min-witnesses N] [--operator-key PUB.pem] [--receipt R]… [--request Q]…',
    '                    [--root DIR] [--json]',
    '',
    'The audit trusts only what you supply (obtain each out of band: docs/audit.md):',
    '  --tsa-root PEM       a TSA root you trust (repeatable); the tool ships public ones in tsa-roots/',
    "  --issuer-keys FILE   the issuer's published key history (ArkForge's published_keys.json)",
    '  --expect-freeze HEX  the freeze_digest you saw published before opens_at',
    '  --min-witnesses N    freeze witnesses required, by distinct root of yours (default 1, or the',
    "                       study's anchors.min_witnesses if higher)",
    "  --operator-key PUB   the operator's identity key (Ed25519 public key, PEM) as the operator",
    '                       published it: the key that signs outputs and certifies every intake key',
    "  --receipt R          a participant's intake receipt (repeatable): one the seal left out is",
    '                       INTAKE_RECEIPT_NOT_SEALED; one the operator signed under another freeze',
    '                       is INTAKE_RECEIPT_EQUIVOCATION; with --operator-key, a sealed one also',
    '                       pins the freeze it names',
    "  --request Q          a participant's signed request with its token beside it (Q.tsr, from",
    '                       `submission sign --tsa`), repeatable: dated before closes_at under your',
    '                       --tsa-root and in the log neither itself nor by a later version:',
    '                       INTAKE_REQUEST_WITHHELD; one undated or not verifying proves nothing',
    '',
    'Audits an output directory (outputs/<run_id>/) against the study at --root (default: the',
    'current directory), whose corpus/, preregistration/ and inputs/ are copied to a scratch',
    'directory and rerun there (ingest → verify → classify → score → unsigned emit); nothing is',
    'written into the study or the audited directory. Rails, each passing or failing on its own:',
    '  complete    manifest.json present (a directory without it is incomplete)',
    '  schema      manifest.json canonical with every field, results.json parses, SHA256SUMS and',
    "              every file's size and SHA-256 as listed",
    '  signatures  manifest.sig (Ed25519) and manifest.p7s (CMS) verify with the pinned operator key',
    "  inputs      the inputs the manifest recorded are what the study's files give now",
    '  anchors     check-anchors on the study: frozen digests recompute, anchors verify',
    '  intake      the intake log, the seal and its anchors hold; every input file is its sealed leaf',
    "  reproduced  every output but the signatures is byte-identical to the rerun's",
    '  digests     run_id, artifact_digest and decision_digest recompute',
    "  decisions   the rerun's classes, scores and hypotheses equal the recorded rows",
    "  trust       nothing rests on the study's own trust: the freeze digest is pinned, its anchors and",
    "              every verified proof's issuer key and TSA root are among those you passed",
    'The report names the first differing file (and line or row). It proves reproducibility and',
    'integrity, not that evidence was truthful, nor that witnesses saw every action.',
    'Exit 0 valid, 1 invalid (a rail failed), 2 usage, 3 when it cannot run (no such directory,',
    'a --tsa-root, --issuer-keys, --operator-key, --receipt or --request file missing or invalid, study',
    'inputs unreadable).',
    'See docs/audit.md.',
  ].join('\n'),
  options: {
    ...ANCHOR_AUDITOR_OPTIONS,
    'issuer-keys': { type: 'string' },
    receipt: { type: 'string', multiple: true },
    request: { type: 'string', multiple: true },
    'operator-key': { type: 'string' },
  },
  stage: true,
  operands: { min: 1, max: 1 },
  jsonSchema: () => 'prereg.audit/1',
  async run(ctx) {
    if (ctx.positionals.length !== 1) {
      throw new PreregError(
        'USAGE',
        `audit takes one output directory, got ${ctx.positionals.length}; usage: prereg audit <outputs dir> [--root DIR] [--json]`,
      );
    }
    const v = ctx.values;
    const auditor = {
      ...(Array.isArray(v['tsa-root']) ? { tsaRoots: v['tsa-root'] as string[] } : {}),
      ...(typeof v['issuer-keys'] === 'string' ? { issuerKeys: v['issuer-keys'] } : {}),
      ...(typeof v['expect-freeze'] === 'string' ? { expectFreeze: v['expect-freeze'] } : {}),
      ...(typeof v['min-witnesses'] === 'string' ? { minWitnesses: v['min-witnesses'] } : {}),
      ...(Array.isArray(v.receipt) ? { receipts: v.receipt as string[] } : {}),
      ...(Array.isArray(v.request) ? { requests: v.request as string[] } : {}),
      ...(typeof v['operator-key'] === 'string' ? { operatorKey: v['operator-key'] } : {}),
    };
    const report = await auditOutputs(ctx.positionals[0]!, {
      root: ctx.root,
      env: ctx.env,
      progress: ctx.progress,
      stages: AUDIT_STAGES,
      auditor,
    });
    return { exitCode: report.ok ? EXIT.ok : EXIT.failures, json: report, text: renderReport(report) };
  },
};
