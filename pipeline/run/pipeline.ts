// The pipeline after the deadline, declared once (DVC's dvc.yaml): each stage with the one it
// comes after and where its work is. `run` runs them in this order, `status` judges them in it,
// the audit reruns them, each asks for its predecessor through it (run/runner.ts), and the
// command list (stages/registry.ts) lists them in it. Adding a stage is one entry here, its
// CachedStage in its folder, its command, and its Taskfile task and npm script. Each stage's work
// is imported only when it runs: `prereg --help` reads this list without loading DuckDB.
import type { CachedStage } from '../cached-stage.ts';
import type { StageContext, StageResult } from '../command.ts';

export type StageName = 'ingest' | 'verify' | 'classify' | 'score' | 'emit';

/** The work of a stage: cached (skips when its recorded inputs are unchanged), or the last one, emit, which writes outputs/<run_id>/ and records nothing. */
export type StageWork =
  | { cached: true; stage: CachedStage<unknown, unknown, unknown> }
  | { cached: false; run(ctx: StageContext): Promise<StageResult> };

export interface PipelineStage {
  name: StageName;
  /** The stage that must be current first: its inputs digest is part of this one's inputs (null: the first). */
  after: StageName | null;
  work(): Promise<StageWork>;
}

// Each CachedStage, held as one of unknown P, I, O: the runner only hands each one's values back to it.
const cached = async (stage: Promise<CachedStage<unknown, unknown, unknown>>): Promise<StageWork> => ({ cached: true, stage: await stage });

export const PIPELINE: readonly PipelineStage[] = [
  { name: 'ingest', after: null, work: () => cached(import('../ingest/stage.ts').then((m) => m.INGEST)) },
  { name: 'verify', after: 'ingest', work: () => cached(import('../verify/study-stage.ts').then((m) => m.VERIFY)) },
  { name: 'classify', after: 'verify', work: () => cached(import('../analysis/stage.ts').then((m) => m.CLASSIFY)) },
  { name: 'score', after: 'classify', work: () => cached(import('../analysis/stage.ts').then((m) => m.SCORE)) },
  // emit reads what score left in the store; it runs no predecessor itself (run ends with it).
  { name: 'emit', after: 'score', work: async () => ({ cached: false, run: (await import('../emit/outputs.ts')).runEmit }) },
];

export const STAGE_NAMES: readonly StageName[] = PIPELINE.map((s) => s.name);

export function pipelineStage(name: StageName): PipelineStage {
  return PIPELINE.find((s) => s.name === name)!;
}
