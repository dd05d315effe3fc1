// What a cached stage of the pipeline gives the one runner (run/runner.ts), which does the rest the
// same way for each (DVC's stage: deps, outs, changed()): load the study, the stage's inputs, its
// predecessor, the judge against the recorded run, skip or work, record. Each stage's folder
// exports its CachedStage; run/pipeline.ts declares their order. Types only: the stages' folders
// and run/ both read this file, and neither imports the other's code through it.
import type { DuckDBConnection } from '@duckdb/node-api';
import type { StageContext, StageResult } from './command.ts';
import type { StudyLayout } from './layout.ts';
import type { LoadedStudy } from './study/loaded-study.ts';

/** A stage's recorded run: the digest and the inputs it consumed, and what it produced. */
export interface RecordedRun {
  digest: string;
  inputs: unknown;
  outputs: unknown;
}

/** The recorded run, null when there is none, or why there is none that counts (`missing`). */
export type PreviousRun = RecordedRun | null | { missing: string };

/** What the runner hands the stage's result: skipped or worked, why, the inputs digest and the outputs. */
export interface StageOutcome<O> {
  skipped: boolean;
  reason: string;
  digest: string;
  outputs: O;
}

/**
 * One cached stage. `P`: what it read and checked before its predecessor runs (its refusals come
 * first); `I`: the inputs object it records (its canonical JSON's SHA-256 is the inputs digest);
 * `O`: the outputs it records. Method syntax: the runner holds stages of different P, I, O.
 */
export interface CachedStage<P, I, O> {
  /** How a key of the inputs object is named when it changes (run/stage-inputs.ts describeChanges). */
  labels: Readonly<Record<string, string>>;
  /** Reads and checks what the stage stands on, before its predecessor runs. */
  prepare(ctx: StageContext, loaded: LoadedStudy): P | Promise<P>;
  /**
   * The inputs object, given the predecessor's inputs digest (null: none). `hash` false when the
   * stage reruns whatever its inputs (no recorded run, --force): a stage may then leave to its
   * work what only the digest needs (ingest: each file's hash, taken by the scan that reads it).
   */
  inputs(prepared: P, upstreamDigest: string | null, hash: boolean, ctx: StageContext): I | Promise<I>;
  /** Whether the stage reruns whatever its recorded run (as --force does: verify given shards loads them). */
  forced?(prepared: P): boolean;
  /** The recorded run, when the stage reads it its own way (ingest: a store that cannot be read is rebuilt); default: read from the store. */
  previous?(layout: StudyLayout): Promise<PreviousRun>;
  /** The work: the outputs, recorded through `record` in the store the work writes (so that a failed work records nothing). */
  work(ctx: StageContext, prepared: P, consumed: I, record: (connection: DuckDBConnection, outputs: O) => Promise<void>): Promise<O>;
  /** The command's result, skipped or worked. */
  result(ctx: StageContext, prepared: P, outcome: StageOutcome<O>): StageResult;
}
