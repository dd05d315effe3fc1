// `prereg emit` (SPEC §7): the signed, reproducible outputs/<run_id>/ from the store's result and
// base tables; the work is emit/outputs.ts.
import { runEmit } from '../emit/outputs.ts';
import { KEY_OPTIONS } from '../options.ts';
import type { Command } from '../command.ts';

export const emit: Command = {
  name: 'emit',
  summary: 'write the signed, reproducible outputs/<run_id>/ (results, tables, report, manifest, signatures)',
  help: [
    'usage: prereg emit [--operator-key FILE] [--cms-key FILE] [--cms-cert FILE] [--outputs DIR] [--root DIR] [--json]',
    '',
    '  --operator-key FILE  Ed25519 private key (PEM) whose public half is pinned as',
    '                       operator_public_key in preregistration/trust/ ($PREREG_OPERATOR_KEY)',
    '  --cms-key FILE       RSA private key (PEM) that signs manifest.p7s ($PREREG_OPERATOR_CMS_KEY)',
    '  --cms-cert FILE      its certificate, issued by the operator key, optionally followed by the',
    '                       operator certificate ($PREREG_OPERATOR_CMS_CERT)',
    '  --outputs DIR        where <run_id>/ is created (default: outputs/)',
    '',
    'Reads the result and base tables of work/prereg.duckdb (tables only, never section-5 views)',
    'and writes outputs/<run_id>/: results.json, scores.csv, assertions.parquet, proof_checks.parquet,',
    'chain_checks.parquet, rejects.csv, report.md, report.html, manifest.json (last), SHA256SUMS,',
    'manifest.sig and manifest.p7s, under a temporary name renamed into place. run_id derives from',
    'the input digests; the same inputs give byte-identical files. Exit 4 (OUTPUT_EXISTS) when',
    'outputs/<run_id>/ exists; exit 3 when a key is missing or not the pinned one, study.json or',
    'the trust directory drifted from the freeze, or the store is incomplete; and outside the window:',
    'a sealed study before its seal (SEAL_MISSING), an unsealed one before closes_at by this',
    "machine's clock (WINDOW_OPEN). See docs/outputs.md.",
  ].join('\n'),
  options: { ...KEY_OPTIONS, outputs: { type: 'string' } },
  stage: true,
  jsonSchema: () => 'prereg.emit/1',
  writesStudy: () => true,
  run: runEmit,
};
