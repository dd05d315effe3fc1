// What verification needs besides the evidence: the pinned trust material, the study window and
// the receipt-chain commitments, read once and passed to every worker as plain data.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { readCommitmentText, type CommitmentLine, type CommitmentWitness } from '../evidence/aer1/index.ts';
import type { StudyWindow } from '../evidence/arkforge/index.ts';
import type { VerifyContextInputs } from '../evidence/task/index.ts';
import { readLines } from '../ingest/lines.ts';
import { loadTrust } from '../study/trust.ts';
import { PreregError } from '../reasons.ts';
import type { RegisteredSystem } from '../study/study.ts';

/** Outside a study, nothing bounds the time: every instant is inside this window. */
export const UNBOUNDED_WINDOW: StudyWindow = { opens_at: '1970-01-01T00:00:00Z', closes_at: '9999-12-31T23:59:59Z' };

/**
 * Every line of a commitments file (SPEC §5.2), each well-formed or malformed with its problems;
 * `shownAs` names the file in those problems (the study's relative path, or the path given). The
 * lines are split and checked by the reader of submission lines (pipeline/ingest/lines.ts): a
 * line that is empty, not UTF-8, CRLF-terminated or too long is malformed with that line code, as
 * a submission line is rejected, and a malformed line never stops the others. `onChunk` sees every
 * byte read, in order (to hash what was read). `intakeOwner`: the file is that system's own,
 * received through intake (inputs/commitments/<system_id>.jsonl): its lines bind it (SPEC §12.3).
 * `witnessed`: the token that dated the file (intake/commitment-witnesses.ts), against which each
 * line's published_at is judged.
 */
export async function readCommitments(
  path: string | null,
  shownAs: string | null = path,
  onChunk?: (chunk: Buffer) => void,
  intakeOwner?: string,
  witnessed?: CommitmentWitness,
): Promise<CommitmentLine[]> {
  if (path === null || !existsSync(path)) return [];
  const out: CommitmentLine[] = [];
  for await (const raw of readLines(path, shownAs ?? path, onChunk ? { onChunk } : {})) {
    const at = {
      file: raw.file,
      line: raw.line_no,
      byte_offset: raw.byte_offset,
      line_sha256: raw.sha256,
      ...(intakeOwner !== undefined ? { intake_owner: intakeOwner } : {}),
      ...(witnessed !== undefined ? { witnessed } : {}),
    };
    out.push(
      raw.text === undefined
        ? { ...at, ok: false, job_id: null, problems: [`${raw.problem}: ${raw.detail}`] }
        : readCommitmentText(raw.text, at),
    );
  }
  return out;
}

/**
 * Without the commitments every chain would be UNANCHORED: a wrong result, not a missing one. The
 * operator-collected file, or the systems' own files received through intake
 * (`participantDir`/<system_id>.jsonl), or both: either kind anchors a timeline.
 */
export function requireCommitmentsIfReceipts(requireReceipts: boolean, commitmentsPath: string, participantDir?: string): void {
  if (!requireReceipts || existsSync(commitmentsPath)) return;
  if (participantDir !== undefined && existsSync(participantDir) && readdirSync(participantDir).some((f) => f.endsWith('.jsonl'))) return;
  throw new PreregError(
    'COMMITMENTS_MISSING',
    `preregistration/trust/policy.json requires receipts, and neither ${commitmentsPath} nor a system's commitments file received through intake (${participantDir ?? 'inputs/commitments/'}) exists`,
  );
}

/** The malformed lines, as `file:line: COMMITMENT_MALFORMED problems` for people. */
export function commitmentProblems(lines: readonly CommitmentLine[]): string[] {
  return lines.flatMap((l) => (l.ok ? [] : [`${l.file}:${l.line}: COMMITMENT_MALFORMED ${l.problems.join('; ')}`]));
}

/** Builds (and so validates) the trust material once; workers rebuild it from the same inputs. */
export function verifyContextInputs(
  trustDir: string,
  window: StudyWindow,
  commitments: CommitmentLine[],
  agentKeys: AgentKeys = [],
): VerifyContextInputs {
  if (!existsSync(join(trustDir, 'policy.json'))) {
    throw new PreregError('FILE_NOT_FOUND', `${trustDir}/policy.json does not exist; pass --trust DIR`);
  }
  return { trust: loadTrust(trustDir).material.inputs, window, commitments, ...(agentKeys.length > 0 ? { agent_keys: agentKeys } : {}) };
}

type AgentKeys = NonNullable<VerifyContextInputs['agent_keys']>;

/** Who may sign a commitment (SPEC §12.3): each registered system's frozen agent keys, as study.json lists them. */
export function registeredAgentKeys(systems: ReadonlyArray<Pick<RegisteredSystem, 'system_id' | 'agent_keys'>>): AgentKeys {
  return systems.flatMap((s) => (s.agent_keys ?? []).map((k) => ({ system_id: s.system_id, public_key: k.public_key })));
}
