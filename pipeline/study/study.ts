// preregistration/study.json: the study's frozen configuration.
import { schemaProblems } from '../formats/schemas.ts';
import { utcMillis } from '../formats/utc-instant.ts';
import { readJsonFile } from '../io/json-files.ts';
import { PreregError } from '../reasons.ts';

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
  /** The registered systems (SPEC §6.2): whose buyer fingerprints bind a proof to a record. */
  systems?: RegisteredSystem[];
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

export interface RegisteredSystem {
  system_id: string;
  /** Exactly as proofs serve them (parties.buyer_fingerprint, or the opened 3.x commitment). */
  buyer_fingerprints: string[];
  /** Reported with the registration; the binding is by buyer fingerprint. */
  agent_identities?: string[];
}

/** A finding about a study that is valid but weaker than it should be (for `prereg doctor`). */
export interface StudyWarning {
  code: 'STUDY_SYSTEMS_UNREGISTERED';
  message: string;
}

/**
 * The study registers no systems: any system may then claim any proof, and a copier who submits
 * another system's evidence cancels the original's proven credit as well as its own
 * (EVIDENCE_REUSED). Null when systems are registered.
 */
export function unregisteredSystemsWarning(study: StudyConfig): StudyWarning | null {
  if (study.systems !== undefined) return null;
  return {
    code: 'STUDY_SYSTEMS_UNREGISTERED',
    message: 'study.json registers no systems: a proof is bound to no system, so copied evidence is EVIDENCE_REUSED on the original as well as on the copy and cancels both credits; register each system\'s buyer fingerprints (study.json `systems`) before the freeze',
  };
}

/** What the schema cannot say: a system registered once, a fingerprint owned by one system only. */
function registrationProblems(systems: readonly RegisteredSystem[]): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  const owner = new Map<string, string>();
  systems.forEach((s, i) => {
    if (seen.has(s.system_id)) problems.push(`/systems/${i}/system_id ${JSON.stringify(s.system_id)} is registered twice`);
    seen.add(s.system_id);
    for (const f of s.buyer_fingerprints) {
      const first = owner.get(f);
      if (first !== undefined && first !== s.system_id) problems.push(`/systems/${i}/buyer_fingerprints: ${JSON.stringify(f)} is already registered for ${JSON.stringify(first)} (a fingerprint binds one system)`);
      else owner.set(f, s.system_id);
    }
  });
  return problems;
}

export function loadStudy(path: string): StudyConfig {
  const value = readJsonFile(path);
  const problems = schemaProblems('study', value);
  const study = value as StudyConfig;
  if (problems.length === 0) {
    const patterns: Array<[string, string]> = [
      ...study.vocabulary.heading_patterns.map((p, i): [string, string] => [`/vocabulary/heading_patterns/${i}`, p]),
      ...study.vocabulary.shape_patterns.map((p, i): [string, string] => [`/vocabulary/shape_patterns/${i}`, p]),
      ...(study.vocabulary.section_patterns ?? []).map((p, i): [string, string] => [`/vocabulary/section_patterns/${i}`, p]),
      ['/amounts/pattern', study.amounts.pattern],
    ];
    for (const [pointer, p] of patterns) {
      try {
        new RegExp(p, 'u');
      } catch (err) {
        problems.push(`${pointer} ${JSON.stringify(p)} is not a valid regular expression: ${(err as Error).message}`);
      }
    }
    // A real instant each (Date.parse would take 30 February or hour 24, which the verifiers refuse).
    const opens = utcMillis(study.window.opens_at);
    const closes = utcMillis(study.window.closes_at);
    if (opens === undefined) problems.push(`/window/opens_at ${JSON.stringify(study.window.opens_at)} is not a real instant`);
    if (closes === undefined) problems.push(`/window/closes_at ${JSON.stringify(study.window.closes_at)} is not a real instant`);
    if (opens !== undefined && closes !== undefined && opens >= closes) problems.push('/window opens_at must be before closes_at');
    problems.push(...registrationProblems(study.systems ?? []));
  }
  if (problems.length > 0) {
    throw new PreregError('STUDY_INVALID', `${path}: ${problems.join('; ')}`, { path, problems });
  }
  return study;
}
