// preregistration/study.json: the study's frozen configuration.
import { posix } from 'node:path';
import { schemaProblems } from '../formats/schemas.ts';
import { utcMillis } from '../formats/utc-instant.ts';
import { parseJsonBytes, readJsonFile } from '../io/json-files.ts';
import { PreregError } from '../reasons.ts';
import { agentPublicKey, verifyCanonical } from '../evidence/intake/ed25519.ts';
import { possessionPayload } from '../evidence/intake/records.ts';
import { classDeclarationProblems } from './classes.ts';
import type { ExpectedTool } from '../evidence/aer1/expected-tools.ts';
import { nearMissRelation, nearMissRuleProblems, type NearMissRule, type Related } from './near-miss.ts';

export interface StudyConfig {
  /** study/2 may carry the frozen fields of SPEC §12 (intake, agent_keys); study/1 is read with the old defaults. */
  format: 'prereg.study/1' | 'prereg.study/2';
  study_id: string;
  title: string;
  as_of: string;
  window: { opens_at: string; closes_at: string };
  corpus: { documents_suffix: string; items: string };
  /** near_miss: how identifiers relate (SPEC §13.2, study/2 only); read through nearMissOf. */
  vocabulary: { heading_patterns: string[]; shape_patterns: string[]; section_patterns?: string[]; near_miss?: NearMissRule[] };
  amounts: { pattern: string; unit: string; group_separators?: string[]; decimal_separator?: string };
  anchors: { min_witnesses: number; tsas: Array<{ name: string; url: string }> };
  /** The registered systems (SPEC §6.2): whose buyer fingerprints bind a proof to a record. */
  systems?: RegisteredSystem[];
  /** Bounds every stage applies alike (absent: the defaults). */
  limits?: { max_line_bytes?: number; max_systems?: number };
  /** How submissions are received (SPEC §12.2, study/2 only); read through intakeOf. */
  intake?: { mode?: 'sealed' | 'unsealed'; seal_within_s?: number };
  /** How evidence is bound to systems (SPEC §12.3, study/2 only); read through bindingOf. */
  binding?: 'registered' | 'none';
  /** The measurement protocol (SPEC §12.5, study/2 only); read through lineProtocolOf. */
  protocol?: { attempts_per_item?: number; max_truncation_gap?: number; expected_tools?: string[] };
  /** What a served passage must be to be proven served (SPEC §12.4, study/2 only); read through passagesOf. */
  passages?: { min_chars?: number };
  /** How uncertainty is stated (SPEC §12.6, study/2 only); read through statisticsOf. */
  statistics?: { alpha?: number };
  /** What a refusal reads like in the answer text (SPEC §12.6, study/2 only); read through refusalPatternOf. */
  refusal_pattern?: string;
  /** How the refusal pattern judges an answer (SPEC §13.1, study/2 only); read through refusalRuleOf. */
  refusal?: { max_tail_chars?: number };
  /** The classes section 5 may produce beyond the built-in set, each with its one-line meaning (SPEC §13.1, study/2 only); read through classValuesOf. */
  classes?: Record<string, string>;
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
  /**
   * Exactly as proofs serve them (parties.buyer_fingerprint, or the opened 3.x commitment).
   * Absent only under `binding: "none"`; loadStudy gives [] then.
   */
  buyer_fingerprints?: string[];
  /** Reported with the registration; the binding is by buyer fingerprint. */
  agent_identities?: string[];
  /** Affiliated with the operator: marked in the report, changes nothing computed. */
  affiliated?: boolean;
  /** A replicate campaign of this registered system (the noise floor); in no hypothesis, no ranking. */
  replicate_of?: string;
  /** The Ed25519 keys that sign the system's intake requests (study/2 only). */
  agent_keys?: AgentKey[];
  /** The system's own name for each of protocol.expected_tools (study/2 only); read through expectedToolsOf. */
  tool_names?: Record<string, string>;
}

export interface AgentKey {
  /** ed25519:<base64url of the raw 32 bytes>. */
  public_key: string;
  /** Ed25519 by this key (base64url) over canonical {study_id, system_id}. */
  possession: string;
}

export interface IntakeSettings {
  mode: 'sealed' | 'unsealed';
  seal_within_s: number;
}

export const DEFAULT_SEAL_WITHIN_S = 3600;

/**
 * The study's intake, defaults applied: a study/2 is sealed unless it declares otherwise; a
 * study/1, which predates sealed intake, is unsealed (SPEC §12.9).
 */
export function intakeOf(study: Pick<StudyConfig, 'format' | 'intake'>): IntakeSettings {
  const declared = study.format === 'prereg.study/2' ? study.intake : undefined;
  const fallback = study.format === 'prereg.study/2' ? 'sealed' : 'unsealed';
  return { mode: declared?.mode ?? fallback, seal_within_s: declared?.seal_within_s ?? DEFAULT_SEAL_WITHIN_S };
}

/**
 * How evidence is bound to systems (SPEC §12.3): a study/2 by its registered buyer fingerprints
 * unless it declares `binding: "none"`; a study/1, which predates the rule, binds when it
 * registers systems and not otherwise.
 */
export function bindingOf(study: Pick<StudyConfig, 'format' | 'binding' | 'systems'>): 'registered' | 'none' {
  if (study.format === 'prereg.study/2') return study.binding ?? 'registered';
  return study.systems === undefined ? 'none' : 'registered';
}

/** The study's protocol as the line checks apply it (SPEC §12.5); null skips a check. */
export interface LineProtocol {
  /** The registered system ids, when the study registers systems. */
  systems: ReadonlySet<string> | null;
  /** protocol.attempts_per_item, when the study declares it. */
  attemptsPerItem: number | null;
}

/**
 * The study's protocol as the line checks apply it (SPEC §12.5): the registered systems (when it
 * registers any) and protocol.attempts_per_item (when declared); a study/1 declares neither limit
 * on attempts.
 */
export function lineProtocolOf(study: Pick<StudyConfig, 'format' | 'protocol' | 'systems'>): LineProtocol {
  return {
    systems: study.systems === undefined ? null : new Set(study.systems.map((s) => s.system_id)),
    attemptsPerItem: (study.format === 'prereg.study/2' ? study.protocol?.attempts_per_item : undefined) ?? null,
  };
}

export const DEFAULT_MAX_TRUNCATION_GAP = 0.1;

/** protocol.max_truncation_gap (SPEC §13.1): beyond it a comparison carries TRUNCATION_GAP; 0.10 when not declared. */
export function maxTruncationGapOf(study: Pick<StudyConfig, 'format' | 'protocol'>): number {
  return (study.format === 'prereg.study/2' ? study.protocol?.max_truncation_gap : undefined) ?? DEFAULT_MAX_TRUNCATION_GAP;
}

/** protocol.expected_tools, and the name each system logs each under (SPEC §13.3): what every timeline is reconciled with. */
export interface ExpectedTools {
  /** The protocol's names, in order. */
  tools: readonly string[];
  /** The names a registered system logs them under, in the same order (a tool it does not rename keeps the protocol's name). */
  bySystem: ReadonlyMap<string, readonly string[]>;
}

/** The study's expected tools (null when it declares none, and for a study/1). */
export function expectedToolsOf(study: Pick<StudyConfig, 'format' | 'protocol' | 'systems'>): ExpectedTools | null {
  const tools = study.format === 'prereg.study/2' ? study.protocol?.expected_tools : undefined;
  if (tools === undefined) return null;
  return { tools, bySystem: new Map((study.systems ?? []).map((s) => [s.system_id, tools.map((t) => s.tool_names?.[t] ?? t)])) };
}

/** The names `systemId`'s timelines must log, in order: its registered ones, or the protocol's for a system that registers none. */
export function expectedNamesOf(expected: ExpectedTools, systemId: string): readonly string[] {
  return expected.bySystem.get(systemId) ?? expected.tools;
}

/** Each expected tool with the name `systemId` logs it under, in order: what its timelines are reconciled with. */
export function expectedToolsFor(expected: ExpectedTools, systemId: string): ExpectedTool[] {
  const names = expectedNamesOf(expected, systemId);
  return expected.tools.map((tool, i) => ({ tool, logged_as: names[i]! }));
}

export const DEFAULT_ALPHA = 0.05;

/** The study's significance level (SPEC §12.6): statistics.alpha, 0.05 when not declared (and for a study/1). */
export function statisticsOf(study: Pick<StudyConfig, 'format' | 'statistics'>): { alpha: number } {
  const declared = study.format === 'prereg.study/2' ? study.statistics : undefined;
  return { alpha: declared?.alpha ?? DEFAULT_ALPHA };
}

/** The near-miss relation the study declares (SPEC §13.2): none relates nothing (and a study/1 declares none). */
export function nearMissOf(study: Pick<StudyConfig, 'format' | 'vocabulary'>): Related {
  return nearMissRelation((study.format === 'prereg.study/2' ? study.vocabulary.near_miss : undefined) ?? []);
}

export const DEFAULT_REFUSAL_MAX_TAIL_CHARS = 200;

/** The frozen refusal rule (SPEC §13.1): the pattern, compiled (null when the study declares none), and the tail it allows. */
export interface RefusalRule {
  pattern: RegExp | null;
  maxTailChars: number;
}

export function refusalRuleOf(study: Pick<StudyConfig, 'format' | 'refusal_pattern' | 'refusal'>): RefusalRule {
  const study2 = study.format === 'prereg.study/2';
  const declared = study2 ? study.refusal_pattern : undefined;
  return {
    pattern: declared === undefined ? null : new RegExp(declared, 'u'),
    maxTailChars: (study2 ? study.refusal?.max_tail_chars : undefined) ?? DEFAULT_REFUSAL_MAX_TAIL_CHARS,
  };
}

export const DEFAULT_PASSAGE_MIN_CHARS = 80;

/** The passage rule, defaults applied: a study/1 (which cannot declare it) and a study/2 without it use 80 characters. */
export function passagesOf(study: Pick<StudyConfig, 'format' | 'passages'>): { min_chars: number } {
  const declared = study.format === 'prereg.study/2' ? study.passages : undefined;
  return { min_chars: declared?.min_chars ?? DEFAULT_PASSAGE_MIN_CHARS };
}

/** A weaker choice the study made, frozen with it, that the verdict line lists (SPEC §12.2). */
export type WeakenedMode = 'unsealed intake' | 'binding: none';

/** The weakened modes this study declares (or inherits as a study/1), in the verdict's order. */
export function weakenedModes(study: Pick<StudyConfig, 'format' | 'intake' | 'binding' | 'systems'>): WeakenedMode[] {
  return [
    ...(intakeOf(study).mode === 'unsealed' ? ['unsealed intake' as const] : []),
    ...(bindingOf(study) === 'none' ? ['binding: none' as const] : []),
  ];
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
    message:
      "study.json registers no systems: a proof is bound to no system, so copied evidence is EVIDENCE_REUSED on the original as well as on the copy and cancels both credits; register each system's buyer fingerprints (study.json `systems`) before the freeze",
  };
}

/** What the schema cannot say: a system registered once, a fingerprint owned by one system only. */
function registrationProblems(systems: readonly RegisteredSystem[]): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  const owner = new Map<string, string>();
  const replicateOf = new Map(systems.filter((s) => s.replicate_of !== undefined).map((s) => [s.system_id, s.replicate_of!]));
  systems.forEach((s, i) => {
    const original = s.replicate_of;
    // A replicate is paired with one original campaign: never itself, never an unknown or another replicate.
    if (
      original !== undefined &&
      (original === s.system_id || !systems.some((o) => o.system_id === original) || replicateOf.has(original))
    ) {
      problems.push(
        `/systems/${i}/replicate_of ${JSON.stringify(original)} must name another registered system that is not itself a replicate`,
      );
    }
    if (seen.has(s.system_id)) problems.push(`/systems/${i}/system_id ${JSON.stringify(s.system_id)} is registered twice`);
    seen.add(s.system_id);
    for (const f of s.buyer_fingerprints ?? []) {
      const first = owner.get(f);
      if (first !== undefined && first !== s.system_id)
        problems.push(
          `/systems/${i}/buyer_fingerprints: ${JSON.stringify(f)} is already registered for ${JSON.stringify(first)} (a fingerprint binds one system)`,
        );
      else owner.set(f, s.system_id);
    }
  });
  return problems;
}

/** The items file as the corpus tree names its leaf ("./items.jsonl" is "items.jsonl"): the one rule freeze, ingest and intake read it by. */
export function itemsLeaf(study: Pick<StudyConfig, 'corpus'>): string {
  return posix.normalize(study.corpus.items);
}

export function loadStudy(path: string): StudyConfig {
  return checkStudy(readJsonFile(path), path);
}

/** study.json from bytes already read (to hash exactly what is parsed), checked as loadStudy checks it. */
export function studyFromBytes(bytes: Uint8Array, path: string): StudyConfig {
  return checkStudy(parseJsonBytes(bytes, path), path);
}

function checkStudy(value: unknown, path: string): StudyConfig {
  const problems = schemaProblems('study', value);
  const study = value as StudyConfig;
  if (problems.length === 0) {
    const patterns: Array<[string, string]> = [
      ...study.vocabulary.heading_patterns.map((p, i): [string, string] => [`/vocabulary/heading_patterns/${i}`, p]),
      ...study.vocabulary.shape_patterns.map((p, i): [string, string] => [`/vocabulary/shape_patterns/${i}`, p]),
      ...(study.vocabulary.section_patterns ?? []).map((p, i): [string, string] => [`/vocabulary/section_patterns/${i}`, p]),
      ['/amounts/pattern', study.amounts.pattern],
      ...(study.refusal_pattern !== undefined ? [['/refusal_pattern', study.refusal_pattern] as [string, string]] : []),
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
    problems.push(...classDeclarationProblems(study.classes ?? {}));
    problems.push(...nearMissRuleProblems(study.vocabulary.near_miss ?? []));
    // The items are a corpus file (hashed in its root, drift-checked by ingest): never one beside it.
    const items = itemsLeaf(study);
    if (items === '.' || items === '..' || items.startsWith('../') || items.startsWith('/'))
      problems.push(`/corpus/items ${JSON.stringify(study.corpus.items)} is not a file inside corpus/`);
  }
  if (problems.length === 0 && study.format === 'prereg.study/1') {
    if (study.intake !== undefined) problems.push('/intake is a prereg.study/2 field: set format to "prereg.study/2"');
    if (study.binding !== undefined) problems.push('/binding is a prereg.study/2 field: set format to "prereg.study/2"');
    if (study.protocol !== undefined) problems.push('/protocol is a prereg.study/2 field: set format to "prereg.study/2"');
    if (study.passages !== undefined) problems.push('/passages is a prereg.study/2 field: set format to "prereg.study/2"');
    if (study.statistics !== undefined) problems.push('/statistics is a prereg.study/2 field: set format to "prereg.study/2"');
    if (study.refusal_pattern !== undefined) problems.push('/refusal_pattern is a prereg.study/2 field: set format to "prereg.study/2"');
    if (study.refusal !== undefined) problems.push('/refusal is a prereg.study/2 field: set format to "prereg.study/2"');
    if (study.classes !== undefined) problems.push('/classes is a prereg.study/2 field: set format to "prereg.study/2"');
    if (study.vocabulary.near_miss !== undefined)
      problems.push('/vocabulary/near_miss is a prereg.study/2 field: set format to "prereg.study/2"');
    (study.systems ?? []).forEach((s, i) => {
      if (s.agent_keys !== undefined) problems.push(`/systems/${i}/agent_keys is a prereg.study/2 field: set format to "prereg.study/2"`);
      if (s.tool_names !== undefined) problems.push(`/systems/${i}/tool_names is a prereg.study/2 field: set format to "prereg.study/2"`);
    });
  }
  if (problems.length === 0) {
    // Fingerprints bind under `registered` and only there: none may be missing, or given in vain.
    const none = bindingOf(study) === 'none';
    (study.systems ?? []).forEach((s, i) => {
      if (!none && s.buyer_fingerprints === undefined)
        problems.push(
          `/systems/${i}/buyer_fingerprints is required: systems are bound by their buyer fingerprints unless study.json declares "binding": "none"`,
        );
      if (none && s.buyer_fingerprints !== undefined)
        problems.push(
          `/systems/${i}/buyer_fingerprints binds nothing under "binding": "none": register the system by id alone, or bind by fingerprints`,
        );
    });
  }
  if (problems.length > 0) {
    throw new PreregError('STUDY_INVALID', `${path}: ${problems.join('; ')}`, { path, problems });
  }
  for (const s of study.systems ?? []) s.buyer_fingerprints ??= [];
  const unknownTools = toolNameProblems(study);
  if (unknownTools.length > 0) {
    throw new PreregError('STUDY_TOOL_NAME_UNKNOWN', `${path}: ${unknownTools.join('; ')}`, { path, problems: unknownTools });
  }
  const keyProblems = agentKeyProblems(study);
  if (keyProblems.length > 0) {
    const shared = keyProblems.find((p) => p.code === 'STUDY_AGENT_KEY_SHARED');
    throw new PreregError(shared?.code ?? keyProblems[0]!.code, `${path}: ${keyProblems.map((p) => p.message).join('; ')}`, {
      path,
      problems: keyProblems,
    });
  }
  return study;
}

/**
 * A system's tool_names may rename only the protocol's expected tools: a key that is none of them
 * renames nothing, and would let a misspelt registration (`"retrieval"` for `"retrieve"`) leave
 * the tool expected under the protocol's name unnoticed until the results.
 */
function toolNameProblems(study: StudyConfig): string[] {
  const expected = study.protocol?.expected_tools ?? [];
  const problems: string[] = [];
  (study.systems ?? []).forEach((s, i) => {
    for (const key of Object.keys(s.tool_names ?? {})) {
      if (!expected.includes(key)) {
        problems.push(
          `/systems/${i}/tool_names: ${JSON.stringify(key)} names no tool of protocol.expected_tools (${expected.length === 0 ? 'none declared' : expected.map((t) => JSON.stringify(t)).join(', ')})`,
        );
      }
    }
  });
  return problems;
}

export interface AgentKeyProblem {
  code: 'STUDY_AGENT_KEY_INVALID' | 'STUDY_AGENT_KEY_SHARED';
  message: string;
}

/**
 * What the schema cannot say of the agent keys: each decodes as an Ed25519 key, proves possession
 * (its signature over canonical {study_id, system_id} verifies), and belongs to one system only.
 */
export function agentKeyProblems(study: Pick<StudyConfig, 'study_id' | 'systems'>): AgentKeyProblem[] {
  const problems: AgentKeyProblem[] = [];
  const owner = new Map<string, string>();
  (study.systems ?? []).forEach((s, i) => {
    (s.agent_keys ?? []).forEach((k, j) => {
      const at = `/systems/${i}/agent_keys/${j}`;
      const key = agentPublicKey(k.public_key);
      if (key === undefined) {
        problems.push({
          code: 'STUDY_AGENT_KEY_INVALID',
          message: `${at}/public_key is not an Ed25519 public key (ed25519:<base64url of 32 bytes>)`,
        });
        return;
      }
      if (!verifyCanonical(key, possessionPayload(study.study_id, s.system_id), k.possession)) {
        problems.push({
          code: 'STUDY_AGENT_KEY_INVALID',
          message: `${at}/possession is not this key's signature over canonical {study_id: ${JSON.stringify(study.study_id)}, system_id: ${JSON.stringify(s.system_id)}}`,
        });
      }
      const x = agentPublicKeyRaw(k.public_key);
      const first = owner.get(x);
      if (first !== undefined && first !== s.system_id) {
        problems.push({
          code: 'STUDY_AGENT_KEY_SHARED',
          message: `${at}/public_key is already registered for ${JSON.stringify(first)}: an agent key signs for one system only`,
        });
      } else owner.set(x, s.system_id);
    });
  });
  return problems;
}

const agentPublicKeyRaw = (text: string): string => text.slice('ed25519:'.length);
