// Worker-thread side of the verify stage: verifies a batch and returns each evidence item's
// proof_checks row already built and factored (store/factored-appender.ts), so the main thread
// only appends a few cells per proof and the structured clone back is a short array.
import { buildVerifyContext, runVerifyTask, type VerifyContextInputs, type VerifyTask } from '../evidence/verify-task.ts';
import type { ChainVerification } from '../evidence/aer1-chain.ts';
import { factorRow, type FactoredRow, type RowFactoring } from '../store/row-factoring.ts';
import { proofCheckRow, type RecordKey } from '../verify/rows.ts';

export interface StageVerifyInit {
  context: VerifyContextInputs;
  proofFactoring: RowFactoring;
}

export interface StageVerifyInput {
  key: RecordKey & { evidence_index: number };
  task: VerifyTask;
}

export type StageVerifyOutput = { kind: 'evidence'; status: string; row: FactoredRow } | { kind: 'chain'; result: ChainVerification };

export async function createHandler(init: StageVerifyInit): Promise<(batch: StageVerifyInput[]) => Promise<StageVerifyOutput[]>> {
  const ctx = buildVerifyContext(init.context);
  return async (batch) => {
    const out: StageVerifyOutput[] = [];
    for (const { key, task } of batch) {
      const outcome = await runVerifyTask(task, ctx);
      if (outcome.kind === 'chain') out.push({ kind: 'chain', result: outcome.result });
      else out.push({ kind: 'evidence', status: outcome.result.status, row: factorRow(proofCheckRow(key, key.evidence_index, outcome.result), init.proofFactoring) });
    }
    return out;
  };
}
