// The line checks of a file received through intake: the same modules as validate and ingest
// (ingest/scan.ts with SubmissionChecker for submissions; the AER-1 commitment reader for
// commitments). A rejected line is counted, never dropped: the file is stored as received, and
// ingest rejects the same lines again. One more rule here: an accepted submission line must be the
// requesting system's own (SUBMISSION_SYSTEM_NOT_OWNER refuses the whole intake).
import type { LineProtocol } from '../study/study.ts';
import { createHash } from 'node:crypto';
import { readCommitmentText } from '../evidence/aer1/commitments.ts';
import type { IntakeKind } from '../evidence/intake/records.ts';
import { readLines } from '../ingest/lines.ts';
import { scanFile } from '../ingest/scan.ts';
import { SubmissionChecker } from '../ingest/submission.ts';

export interface IntakeLineCounts {
  lines_read: number;
  lines_rejected: number;
  /** Accepted submission lines naming another system: [line number, system_id]. */
  not_owner: Array<[number, string]>;
  sha256: string;
  bytes: number;
}

export async function checkIntakeLines(
  path: string,
  file: string,
  kind: IntakeKind,
  options: { systemId: string; items: ReadonlySet<string>; maxLineBytes: number; protocol: LineProtocol },
): Promise<IntakeLineCounts> {
  const notOwner: Array<[number, string]> = [];
  if (kind === 'submissions') {
    const summary = await scanFile(
      path,
      file,
      new SubmissionChecker(options.items, true, options.protocol),
      {
        record: (r) => {
          if (r.system_id !== options.systemId) notOwner.push([r.line_no, r.system_id]);
        },
        reject: () => {},
      },
      { maxLineBytes: options.maxLineBytes, workers: null },
    );
    return {
      lines_read: summary.lines_read,
      lines_rejected: summary.rejected,
      not_owner: notOwner,
      sha256: summary.sha256,
      bytes: summary.bytes,
    };
  }
  const hash = createHash('sha256');
  let bytes = 0;
  let read = 0;
  let rejected = 0;
  for await (const line of readLines(path, file, {
    maxLineBytes: options.maxLineBytes,
    onChunk: (c) => {
      hash.update(c);
      bytes += c.length;
    },
  })) {
    read++;
    if (
      line.text === undefined ||
      !readCommitmentText(line.text, { file, line: line.line_no, byte_offset: line.byte_offset, line_sha256: line.sha256 }).ok
    )
      rejected++;
  }
  return { lines_read: read, lines_rejected: rejected, not_owner: notOwner, sha256: hash.digest('hex'), bytes };
}
