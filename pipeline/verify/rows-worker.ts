// Worker-thread side of the verify stage: verifies a batch and returns each evidence item's
// proof_checks row already built and factored (store/factored-appender.ts), so the main thread
// only appends a few cells per proof and the structured clone back is a short array.
import { buildVerifyContext, runVerifyTask, type VerifyContextInputs, type VerifyTask } from '../evidence/task/index.ts';
import type { TimelineVerification } from '../evidence/aer1/index.ts';
import { inTurn } from '../parallel/in-turn.ts';
import { cellsInOrder } from '../store/named-row.ts';
import { factorRow, type FactoredRow, type RowFactoring } from '../store/row-factoring.ts';
import { proofCheckRow, type RecordKey } from './rows.ts';

export interface StageVerifyInit {
  context: VerifyContextInputs;
  proofFactoring: RowFactoring;
  /** proof_checks' own column list, onto which the named rows are mapped. */
  proofColumns: readonly string[];
}

export interface StageVerifyInput {
  key: RecordKey & { evidence_index: number };
  task: VerifyTask;
}

export type StageVerifyOutput = { kind: 'evidence'; status: string; row: FactoredRow } | { kind: 'chain'; result: TimelineVerification };

export async function createHandler(init: StageVerifyInit): Promise<(batch: StageVerifyInput[]) => Promise<StageVerifyOutput[]>> {
  // The trust material is decoded once per thread (keys and TSA certificates), not per proof.
  const ctx = buildVerifyContext(init.context);
  const verify = inTurn((task: VerifyTask) => runVerifyTask(task, ctx));
  return async (batch) => {
    const outcomes = await verify(batch.map((input) => input.task));
    return outcomes.map((outcome, i): StageVerifyOutput => {
      if (outcome.kind === 'chain') return { kind: 'chain', result: outcome.result };
      // The stage sends evidence items and timelines only; a single receipt is never study evidence.
      if (outcome.kind === 'receipt') throw new Error('verify: the stage sent a single receipt to a worker');
      const key = batch[i]!.key;
      return {
        kind: 'evidence',
        status: outcome.result.status,
        row: factorRow(cellsInOrder(proofCheckRow(key, key.evidence_index, outcome.result), init.proofColumns), init.proofFactoring),
      };
    });
  };
}
