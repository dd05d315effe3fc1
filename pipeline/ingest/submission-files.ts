// inputs/submissions/: which files the ingest reads (and the audit re-lists), in a fixed order.
import { lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { studyRelative, type StudyLayout } from '../layout.ts';
import { PreregError } from '../reasons.ts';

const utf8 = new TextDecoder('utf-8', { fatal: true });

export interface SubmissionFile {
  path: string;
  /** Study-relative, "/"-separated: what rows and messages record. */
  file: string;
}

/**
 * inputs/submissions/*.jsonl, sorted by the UTF-8 bytes of their names. Other names are listed as
 * ignored; a *.jsonl that is not a regular file, a name ending in another case of .jsonl, a
 * subdirectory, or a name that is not UTF-8, is refused.
 */
export function listSubmissionFiles(layout: StudyLayout): { files: SubmissionFile[]; ignored: string[] } {
  const dir = layout.submissions;
  const st = lstatSync(dir, { throwIfNoEntry: false });
  if (!st || !st.isDirectory()) {
    throw new PreregError('FILE_NOT_FOUND', `${dir} is not a directory; submissions go in inputs/submissions/*.jsonl`, { path: dir });
  }
  const names = (readdirSync(dir, { encoding: 'buffer' }) as Buffer[]).sort(Buffer.compare);
  const files: SubmissionFile[] = [];
  const ignored: string[] = [];
  for (const raw of names) {
    let name: string;
    try {
      name = utf8.decode(raw);
    } catch {
      throw new PreregError('SUBMISSION_PATH_UNSAFE', `${dir}: an entry's name is not valid UTF-8 (${raw.toString('hex')})`);
    }
    const path = join(dir, name);
    if (!name.endsWith('.jsonl')) {
      // Never dropped silently: what looks like a submission (any case of .jsonl, or a directory
      // that may hold some) is refused, so a file is either read or the run stops.
      if (name.toLowerCase().endsWith('.jsonl')) {
        throw new PreregError(
          'SUBMISSION_PATH_UNSAFE',
          `${path}: a submission file's name ends in ".jsonl" exactly (lower case); rename it or remove it`,
          { path },
        );
      }
      if (lstatSync(path).isDirectory()) {
        throw new PreregError(
          'SUBMISSION_PATH_UNSAFE',
          `${path} is a directory: submissions are the *.jsonl files directly in inputs/submissions/, never in subdirectories`,
          { path },
        );
      }
      ignored.push(studyRelative(layout, path));
      continue;
    }
    if (!lstatSync(path).isFile()) {
      throw new PreregError('SUBMISSION_PATH_UNSAFE', `${path} is not a regular file (symlinks and directories are refused)`, { path });
    }
    files.push({ path, file: studyRelative(layout, path) });
  }
  return { files, ignored };
}
