// Compares freeze.json with what the files say now, naming the drifted file or field (SPEC §4.4).
import { PreregError, type ReasonCode } from '../reasons.ts';
import { TOOL_VERSION } from '../version.ts';
import { diffTrees, type TreeDigest, type TreeLeaf } from './file-tree.ts';
import type { FreezeRecord, PlanSectionDigest } from './freeze-record.ts';
import { isSection5 } from './section5.ts';
import { canonicalJson } from '../formats/canonical-json.ts';
import { sha256Hex } from '../formats/hash.ts';
import { shownJson } from '../text/display.ts';
import type { PublicDigests } from './public-digests.ts';
import type { StudyConfig } from './study.ts';

const PLAN_FILE = 'preregistration/PREREGISTRATION.md';

export interface DriftFinding {
  code: ReasonCode;
  /** The freeze.json field concerned. */
  field: string;
  /** The study file concerned, when one can be named. */
  file?: string;
  /** The section of PREREGISTRATION.md concerned (PREREGISTRATION_DRIFT), and its line now. */
  section?: string;
  line?: number;
  message: string;
}

export interface DigestComparison {
  frozen: string;
  recomputed: string;
  ok: boolean;
}

export function compareDigests(
  frozen: FreezeRecord,
  current: PublicDigests,
  study: StudyConfig,
): { digests: Record<string, DigestComparison>; findings: DriftFinding[] } {
  const findings: DriftFinding[] = [];
  const cmp = (a: string, b: string): DigestComparison => ({ frozen: a, recomputed: b, ok: a === b });
  const digests = {
    corpus_root: cmp(frozen.corpus.root, current.corpus.root),
    vocabulary_sha256: cmp(frozen.vocabulary.sha256, current.vocabulary.sha256),
    section5_sha256: cmp(frozen.section5_sha256, current.section5_sha256),
    plan_sections: cmp(sectionListDigest(frozen.plan_sections), sectionListDigest(current.plan_sections)),
    study_sha256: cmp(frozen.study_sha256, current.study_sha256),
    trust_root: cmp(frozen.trust.root, current.trust.root),
  };

  findings.push(...corpusDrift(frozen.corpus, current.corpus));
  if (!digests.vocabulary_sha256.ok || frozen.vocabulary.size !== current.vocabulary.ids.length) {
    findings.push({
      code: 'VOCABULARY_DRIFT',
      field: 'vocabulary.sha256',
      message: `vocabulary recomputed from the corpus headings has ${current.vocabulary.ids.length} identifiers (digest ${current.vocabulary.sha256}); frozen: ${frozen.vocabulary.size} (${frozen.vocabulary.sha256})`,
    });
  }
  if (!digests.section5_sha256.ok) {
    findings.push({
      code: 'SECTION5_DRIFT',
      field: 'section5_sha256',
      file: 'preregistration/PREREGISTRATION.md',
      message: `section 5 hashes to ${current.section5_sha256}; frozen ${frozen.section5_sha256}`,
    });
  }
  findings.push(...planDrift(frozen.plan_sections, current.plan_sections));
  if (!digests.study_sha256.ok) {
    findings.push({
      code: 'STUDY_DRIFT',
      field: 'study_sha256',
      file: 'preregistration/study.json',
      message: `study.json hashes to ${current.study_sha256}; frozen ${frozen.study_sha256}`,
    });
  }
  for (const key of ['opens_at', 'closes_at'] as const) {
    if (frozen.window[key] !== study.window[key]) {
      findings.push({
        code: 'STUDY_DRIFT',
        field: `window.${key}`,
        file: 'preregistration/study.json',
        message: `freeze.json says ${frozen.window[key]}, study.json says ${study.window[key]}`,
      });
    }
  }
  if (frozen.study_id !== study.study_id) {
    findings.push({
      code: 'STUDY_DRIFT',
      field: 'study_id',
      file: 'preregistration/study.json',
      message: `freeze.json says ${frozen.study_id}, study.json says ${study.study_id}`,
    });
  }
  findings.push(...trustDrift(frozen.trust, current.trust));
  return { digests, findings };
}

/** One digest over the ordered section list, for check-anchors' table of digests. */
function sectionListDigest(sections: readonly PlanSectionDigest[]): string {
  return sha256Hex(canonicalJson(sections.map(({ heading, sha256 }) => ({ heading, sha256 }))));
}

/** How a finding names a part of PREREGISTRATION.md. */
function sectionName(heading: string): string {
  return heading === '' ? 'the text before the first section' : `section ${shownJson(heading.replace(/^## +/, ''))}`;
}

/**
 * PREREGISTRATION_DRIFT (SPEC §13.3): each part of the plan that changed, appeared or went since the
 * freeze, by its heading (the n-th of a repeated heading matched with the n-th). Section 5 is left
 * to SECTION5_DRIFT, which decides whether the analysis may run at all.
 */
export function planDrift(
  frozen: readonly PlanSectionDigest[],
  current: ReadonlyArray<PlanSectionDigest & { line?: number }>,
): DriftFinding[] {
  const keyed = <T extends PlanSectionDigest>(list: readonly T[]) => {
    const seen = new Map<string, number>();
    let found5 = false;
    return list.map((s) => {
      const n = seen.get(s.heading) ?? 0;
      seen.set(s.heading, n + 1);
      // Section 5 is the first heading starting with 5, as section5.ts extracts it.
      const section5 = !found5 && isSection5(s.heading);
      found5 ||= section5;
      // Section 5 keeps its place in the order under any heading: its own drift is SECTION5_DRIFT.
      return { key: section5 ? '\u0000section 5' : `${n}\u0000${s.heading}`, section5, s };
    });
  };
  const before = keyed(frozen);
  const now = keyed(current);
  const nowByKey = new Map(now.map((k) => [k.key, k]));
  const beforeKeys = new Set(before.map((k) => k.key));
  const finding = (heading: string, what: string, line?: number): DriftFinding => ({
    code: 'PREREGISTRATION_DRIFT',
    field: 'plan_sections',
    file: PLAN_FILE,
    section: heading,
    ...(line !== undefined ? { line } : {}),
    message: `${PLAN_FILE}${line !== undefined ? `:${line}` : ''}: ${sectionName(heading)} ${what}`,
  });
  const findings: DriftFinding[] = [];
  for (const b of before) {
    if (b.section5) continue;
    const n = nowByKey.get(b.key);
    if (!n) findings.push(finding(b.s.heading, 'was frozen and is no longer in the document'));
    else if (n.s.sha256 !== b.s.sha256) findings.push(finding(b.s.heading, `hashes to ${n.s.sha256}; frozen ${b.s.sha256}`, n.s.line));
  }
  for (const n of now)
    if (!n.section5 && !beforeKeys.has(n.key)) findings.push(finding(n.s.heading, 'was not in the frozen document', n.s.line));
  const order = (list: ReadonlyArray<{ key: string }>) => list.map((k) => k.key).join('\n');
  if (findings.length === 0 && order(before) !== order(now)) {
    findings.push({
      code: 'PREREGISTRATION_DRIFT',
      field: 'plan_sections',
      file: PLAN_FILE,
      message: `${PLAN_FILE}: its sections are in another order than frozen`,
    });
  }
  return findings;
}

/** CORPUS_DRIFT: each corpus file that differs from the frozen tree, by name. */
export function corpusDrift(frozen: FreezeRecord['corpus'], current: TreeDigest): DriftFinding[] {
  return treeFindings('CORPUS_DRIFT', 'corpus', 'corpus/', frozen, current);
}

/** CORPUS_DRIFT of one corpus file only (ingest reads the items file, not the whole corpus). */
export function corpusFileDrift(frozen: FreezeRecord['corpus'], current: TreeLeaf): DriftFinding[] {
  const recorded = frozen.files.filter((f) => f.path === current.path);
  return diffTrees(recorded, [current]).map((change) => changeFinding('CORPUS_DRIFT', 'corpus', 'corpus/', change));
}

/** TRUST_DRIFT: each trust file that differs from the frozen tree, by name. */
export function trustDrift(frozen: FreezeRecord['trust'], current: TreeDigest): DriftFinding[] {
  return treeFindings('TRUST_DRIFT', 'trust', 'preregistration/trust/', frozen, current);
}

/**
 * The refusal every stage gives for drift findings: the first finding's code, file and message,
 * all findings in the details (where the audit finds the file), exit 3.
 */
export function refuseDrift(findings: readonly DriftFinding[], then: string, first: DriftFinding | undefined = findings[0]): void {
  if (!first) return;
  const where = first.file && !first.message.startsWith(first.file) ? `${first.file}: ` : '';
  throw new PreregError(first.code, `${where}${first.message}; ${then}`, { findings });
}

type TreeDriftCode = 'CORPUS_DRIFT' | 'TRUST_DRIFT';

function changeFinding(code: TreeDriftCode, field: 'corpus' | 'trust', prefix: string, change: string): DriftFinding {
  const file = prefix + change.slice(0, change.lastIndexOf(':'));
  return { code, field: `${field}.files`, file, message: `${prefix}${change}` };
}

function treeFindings(
  code: TreeDriftCode,
  field: 'corpus' | 'trust',
  prefix: string,
  frozen: FreezeRecord['corpus'],
  current: TreeDigest,
): DriftFinding[] {
  const changes = diffTrees(frozen.files, current.files);
  const findings = changes.map((change) => changeFinding(code, field, prefix, change));
  // The file list agrees but the recorded root or count does not: freeze.json itself was edited.
  if (changes.length === 0 && (frozen.root !== current.root || frozen.leaf_count !== current.leaf_count)) {
    findings.push({
      code,
      field: frozen.root !== current.root ? `${field}.root` : `${field}.leaf_count`,
      file: 'preregistration/freeze.json',
      message: `freeze.json records ${field} root ${frozen.root} (${frozen.leaf_count} files); the files give ${current.root} (${current.leaf_count})`,
    });
  }
  return findings;
}

/**
 * The tool is part of the frozen plan (it decides what section 5's base tables hold): run, emit,
 * classify, score and the audit refuse a study frozen by another prereg version, so that nobody
 * can run two versions after the deadline and publish the kinder result. `running` is a parameter
 * for tests; commands use this installation's version.
 */
export function requireFrozenTool(frozen: Pick<FreezeRecord, 'tool'>, running: string = TOOL_VERSION): void {
  if (frozen.tool.version === running) return;
  throw new PreregError(
    'TOOL_DRIFT',
    `this study was frozen by prereg ${frozen.tool.version} (freeze.json tool.version); this is prereg ${running}: install prereg ${frozen.tool.version} to run, emit or audit it`,
    { frozen: frozen.tool.version, running },
  );
}
