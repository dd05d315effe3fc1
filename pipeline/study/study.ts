// preregistration/study.json: the study's frozen configuration.
import { schemaProblems } from '../formats/schemas.ts';
import { utcMillis } from '../formats/utc-instant.ts';
import { readJsonFile } from '../io/json-files.ts';
import { EXIT, PreregError } from '../reasons.ts';

export interface StudyConfig {
  format: 'prereg.study/1';
  study_id: string;
  title: string;
  as_of: string;
  window: { opens_at: string; closes_at: string };
  corpus: { documents_suffix: string; items: string };
  vocabulary: { heading_patterns: string[]; shape_patterns: string[]; section_patterns?: string[] };
  amounts: { pattern: string; unit: string; group_separators?: string[]; decimal_separator?: string };
  anchors: { min_witnesses: number; tsas: Array<{ name: string; url: string }> };
  /** Bounds every stage applies alike (absent: the defaults). */
  limits?: { max_line_bytes?: number; max_systems?: number };
  /** How the report presents the scores: the metric it leads with, metric names in words. */
  report?: { primary_metric: string; metrics?: Record<string, MetricLabel> };
}

export interface MetricLabel {
  label: string;
  /** Absent for a count that is neither good nor bad (relayed citations). */
  better?: 'higher' | 'lower';
}

export function loadStudy(path: string): StudyConfig {
  const value = readJsonFile(path);
  const problems = schemaProblems('study', value);
  const study = value as StudyConfig;
  if (problems.length === 0) {
    const patterns = [
      ...study.vocabulary.heading_patterns,
      ...study.vocabulary.shape_patterns,
      ...(study.vocabulary.section_patterns ?? []),
      study.amounts.pattern,
    ];
    for (const p of patterns) {
      try {
        new RegExp(p, 'u');
      } catch (err) {
        problems.push(`pattern ${JSON.stringify(p)} is not a valid regular expression: ${(err as Error).message}`);
      }
    }
    // A real instant each (Date.parse would take 30 February or hour 24, which the verifiers refuse).
    const opens = utcMillis(study.window.opens_at);
    const closes = utcMillis(study.window.closes_at);
    if (opens === undefined) problems.push(`/window/opens_at ${JSON.stringify(study.window.opens_at)} is not a real instant`);
    if (closes === undefined) problems.push(`/window/closes_at ${JSON.stringify(study.window.closes_at)} is not a real instant`);
    if (opens !== undefined && closes !== undefined && opens >= closes) problems.push('/window opens_at must be before closes_at');
  }
  if (problems.length > 0) {
    throw new PreregError('STUDY_INVALID', `${path}: ${problems.join('; ')}`, EXIT.blocked, { path, problems });
  }
  return study;
}
