// Every command of the CLI, in the order `prereg --help` lists them. Stages (stage: true) also
// have a Taskfile task and an npm script of the same name; test/cli/taskfile.test.ts checks that.
// A command's module is imported only when that command runs: `prereg --help`, `explain` and
// `verify FILE` must not pay for DuckDB, ajv or pkijs they never use (a start-up the user waits
// for). Name, summary and stage are repeated here so the list needs no import; test/cli/cli.test.ts
// checks they match the module's.
import type { Command } from '../command.ts';
import { STAGE_NAMES, type StageName } from '../run/pipeline.ts';

export interface CommandEntry {
  name: string;
  summary: string;
  stage: boolean;
  load: () => Promise<Command>;
}

/** The pipeline's stages' commands, listed in the order run/pipeline.ts declares them. */
const PIPELINE_COMMANDS: Readonly<Record<StageName, CommandEntry>> = {
  ingest: {
    name: 'ingest',
    summary: 'read inputs/submissions/*.jsonl into the DuckDB store (records, evidence, receipts, rejects)',
    stage: true,
    load: async () => (await import('./ingest.ts')).ingest,
  },
  verify: {
    name: 'verify',
    summary: 'verify every proof and receipt timeline of the study (or the given files)',
    stage: true,
    load: async () => (await import('./verify.ts')).verify,
  },
  classify: {
    name: 'classify',
    summary: 'extract assertions and classify them with the section-5 SQL (declared and proven)',
    stage: true,
    load: async () => (await import('./analysis.ts')).classify,
  },
  score: {
    name: 'score',
    summary: 'compute scores, constancy, sign tests and hypotheses with the section-5 SQL',
    stage: true,
    load: async () => (await import('./analysis.ts')).score,
  },
  emit: {
    name: 'emit',
    summary: 'write the signed, reproducible outputs/<run_id>/ (results, tables, report, manifest, signatures)',
    stage: true,
    load: async () => (await import('./emit.ts')).emit,
  },
};

export const COMMANDS: readonly CommandEntry[] = [
  {
    name: 'init',
    summary: 'scaffold a new study in DIR (corpus, plan with section 5, study.json, trust policy, operator keys)',
    stage: true,
    load: async () => (await import('./init.ts')).init,
  },
  {
    name: 'doctor',
    summary: "say, without running anything, whether each stage's inputs are present, valid and consistent with the freeze",
    stage: true,
    load: async () => (await import('./doctor.ts')).doctor,
  },
  {
    name: 'freeze',
    summary: 'freeze corpus, vocabulary, section 5, trust policy and answer-key commitment into freeze.json',
    stage: true,
    load: async () => (await import('./freeze.ts')).freeze,
  },
  {
    name: 'anchor',
    summary: 'obtain RFC 3161 timestamp tokens over freeze_digest (or import a .tsr)',
    stage: true,
    load: async () => (await import('./anchor.ts')).anchor,
  },
  {
    name: 'check-anchors',
    summary: 'recompute every frozen digest and verify every anchor, offline (for CI)',
    stage: true,
    load: async () => (await import('./check-anchors.ts')).checkAnchors,
  },
  {
    name: 'intake',
    summary: 'receive one signed submission or commitments file into the intake log, with a TSA token and a receipt',
    stage: true,
    load: async () => (await import('./intake.ts')).intake,
  },
  {
    name: 'seal',
    summary: 'close the intake after closes_at: inputs/seal.json (log root, head, final files) anchored by RFC 3161 tokens',
    stage: true,
    load: async () => (await import('./seal.ts')).seal,
  },
  {
    name: 'deviation',
    summary: 'record a deviation from the frozen plan: signed by the operator key, dated by a TSA, chained into inputs/deviations.jsonl',
    stage: true,
    load: async () => (await import('./deviation.ts')).deviation,
  },
  {
    name: 'reveal-check',
    summary: 'check that the revealed answer key reproduces the frozen commitment',
    stage: true,
    load: async () => (await import('./reveal-check.ts')).revealCheck,
  },
  ...STAGE_NAMES.map((name) => PIPELINE_COMMANDS[name]),
  {
    name: 'run',
    summary: 'run the whole pipeline after the deadline: ingest → verify → classify → score → emit',
    stage: true,
    load: async () => (await import('./run.ts')).run,
  },
  {
    name: 'status',
    summary: 'say, for each stage from ingest to emit, whether it is current or stale, and why',
    stage: true,
    load: async () => (await import('./status.ts')).status,
  },
  {
    name: 'audit',
    summary: 'rerun from the inputs in a scratch dir, compare every output byte, verify signatures and anchors',
    stage: true,
    load: async () => (await import('./audit.ts')).audit,
  },
  {
    name: 'validate',
    summary: 'check submission files line by line, as ingest would, before sending them',
    stage: false,
    load: async () => (await import('../commands/validate.ts')).validate,
  },
  {
    name: 'submission',
    summary:
      'participant tools: `submission build …` assembles a submission line from a proof and its bodies; `submission sign FILE` writes a signed intake request',
    stage: false,
    load: async () => (await import('../commands/submission.ts')).submission,
  },
  {
    name: 'commitment',
    summary: "compute an AER-1 timeline's external commitment (job, final entry digest, count), optionally signed by the agent key",
    stage: false,
    load: async () => (await import('../commands/commitment.ts')).commitment,
  },
  {
    name: 'trust',
    summary:
      "edit the trust policy: `trust import-arkforge FILE` pins ArkForge's published keys; `trust certify-intake-key` certifies an intake key",
    stage: false,
    load: async () => (await import('../commands/trust.ts')).trust,
  },
  {
    name: 'corpus-proof',
    summary: 'prove (or --verify) that one file belongs to the frozen corpus',
    stage: false,
    load: async () => (await import('../commands/corpus-proof.ts')).corpusProof,
  },
  {
    name: 'dev',
    summary:
      'TEST-ONLY rehearsal tools: `dev keys` (an agent key), `dev tsa` (a local RFC 3161 TSA), `dev issue` (ArkForge-shaped proofs), `dev add-system` (one more rehearsal system)',
    stage: false,
    load: async () => (await import('../commands/dev.ts')).dev,
  },
  {
    name: 'verify-token',
    summary: 'verify one RFC 3161 token of any TSA over a file or an imprint, against the roots you pin',
    stage: false,
    load: async () => (await import('../commands/verify-token.ts')).verifyToken,
  },
  {
    name: 'explain',
    summary: 'explain reason codes (meaning and what to do next)',
    stage: false,
    load: async () => (await import('../commands/explain.ts')).explain,
  },
  {
    name: 'docs',
    summary: "list the package's docs with their installed paths, or locate (--print: print) one by NAME",
    stage: false,
    load: async () => (await import('../commands/docs.ts')).docs,
  },
  {
    name: 'mcp',
    summary:
      'serve the read-only checks (explain, doctor, status, validate, verify FILE…, check-anchors) to an agent over the Model Context Protocol (stdio)',
    stage: false,
    load: async () => (await import('../commands/mcp.ts')).mcpServing(COMMANDS),
  },
];
