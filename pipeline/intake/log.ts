// Reads inputs/intake.jsonl for the commands that extend or seal it: any break in the chain stops
// them (INTAKE_LOG_INVALID), as a log they extend must be one an auditor can check.
import { lstatSync } from 'node:fs';
import { parseIntakeLog, type ParsedLog } from '../evidence/intake/log.ts';
import { readText } from '../io/json-files.ts';
import type { StudyLayout } from '../layout.ts';
import { PreregError } from '../reasons.ts';

export interface IntakeLog extends ParsedLog {
  /** The log's exact text ('' when there is no log yet). */
  text: string;
}

export function readIntakeLog(layout: StudyLayout): IntakeLog {
  const text = lstatSync(layout.intakeLog, { throwIfNoEntry: false }) ? readText(layout.intakeLog) : '';
  const parsed = parseIntakeLog(text);
  if (parsed.problems.length > 0) {
    const first = parsed.problems[0]!;
    throw new PreregError('INTAKE_LOG_INVALID', `inputs/intake.jsonl:${first.line}: ${first.message}`, { file: 'inputs/intake.jsonl', line: first.line, problems: parsed.problems });
  }
  return { ...parsed, text };
}
