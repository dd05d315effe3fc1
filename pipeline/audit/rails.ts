// The audit's rails (SPEC §8): separate checks, each passing or failing on its own, each naming the
// first file (and row) that differs. `valid` requires every rail. Pure: rails in, report out.
import type { ReasonCode } from '../reasons.ts';
import { checkCatalogue, codeOfCheck } from '../evidence/check-catalogue.ts';

/**
 * The rails, in the order they are reported. The first failing rail gives the report's
 * first_difference, so the order is chosen for attribution: `inputs` (the study's files against the
 * signed manifest, a third witness) comes before `anchors` (the files against freeze.json), so a
 * changed freeze.json is named as such rather than as the file whose frozen digest it now misstates.
 * `trust` comes last: it is not about what changed but about what the auditor itself confirmed.
 */
export const RAIL_NAMES = [
  'complete',
  'schema',
  'signatures',
  'inputs',
  'anchors',
  'intake',
  'reproduced',
  'digests',
  'decisions',
  'trust',
] as const;
export type RailName = (typeof RAIL_NAMES)[number];

/** The reason code a failed rail carries (the underlying codes, if any, are listed beside it): any one makes the audit INVALID. */
export const RAIL_CATALOGUE = checkCatalogue(RAIL_NAMES, ['INVALID'], {
  AUDIT_INCOMPLETE: { check: 'complete', status: 'INVALID' },
  AUDIT_SCHEMA_INVALID: { check: 'schema', status: 'INVALID' },
  AUDIT_SIGNATURE_INVALID: { check: 'signatures', status: 'INVALID' },
  AUDIT_INPUT_CHANGED: { check: 'inputs', status: 'INVALID' },
  AUDIT_ANCHORS_INVALID: { check: 'anchors', status: 'INVALID' },
  AUDIT_INTAKE_INVALID: { check: 'intake', status: 'INVALID' },
  AUDIT_NOT_REPRODUCED: { check: 'reproduced', status: 'INVALID' },
  AUDIT_DIGEST_MISMATCH: { check: 'digests', status: 'INVALID' },
  AUDIT_DECISIONS_DIFFER: { check: 'decisions', status: 'INVALID' },
  AUDIT_TRUST_UNCONFIRMED: { check: 'trust', status: 'INVALID' },
});
export const RAIL_CODES = codeOfCheck(RAIL_CATALOGUE);

/** What differs, and where. `row` is 1-based: a line of a text file, a row of a Parquet file in
 * file order, or a row of a results.json table (then `table` names it). */
export interface Difference {
  /** Relative to the audited directory (output files) or to the study root (input files). */
  file: string;
  row?: number;
  table?: string;
  message: string;
}

export interface Rail {
  name: RailName;
  ok: boolean;
  /** RAIL_CODES[name] when the rail failed, else null. */
  code: ReasonCode | null;
  /** Underlying codes (e.g. the code a refusing rerun gave, or check-anchors' findings). */
  reason_codes: ReasonCode[];
  detail: string;
  first_difference?: Difference;
  /** Every difference found, first one first (bounded). */
  differences?: Difference[];
}

const MAX_DIFFERENCES = 50;

export function passed(name: RailName, detail: string): Rail {
  return { name, ok: true, code: null, reason_codes: [], detail };
}

export function failed(name: RailName, detail: string, differences: readonly Difference[], codes: readonly ReasonCode[] = []): Rail {
  const rail: Rail = { name, ok: false, code: RAIL_CODES[name], reason_codes: [...new Set(codes)].sort(), detail };
  if (differences.length > 0) {
    rail.first_difference = differences[0]!;
    rail.differences = differences.slice(0, MAX_DIFFERENCES);
  }
  return rail;
}

/** A rail from the differences a check collected: passes when there are none. */
export function railOf(name: RailName, okDetail: string, differences: readonly Difference[], codes: readonly ReasonCode[] = []): Rail {
  if (differences.length === 0) return passed(name, okDetail);
  const first = differences[0]!;
  const more = differences.length > 1 ? ` (and ${differences.length - 1} more)` : '';
  return failed(name, `${first.file}${first.row !== undefined ? `, row ${first.row}` : ''}: ${first.message}${more}`, differences, codes);
}

/** What an audit establishes, and what it cannot (SPEC §8): stated in every report. */
export const AUDIT_SCOPE = {
  proves: [
    "reproducibility: the study's published inputs, rerun by this tool in a scratch directory, give these output files byte for byte",
    'integrity: manifest.json lists every output with its size and SHA-256, and is signed by the operator key pinned in the frozen trust policy',
    'the inputs are the ones the manifest recorded, and the frozen ones: corpus, section 5, answer-key commitment and trust policy as anchored before submissions opened',
    'the decisions (classes, scores, hypotheses) follow from the recorded rows by the pre-registered section-5 SQL',
  ],
  does_not_prove: [
    'that the evidence was truthful: a verified proof shows that a witness signed what it was shown, not that what it was shown was true',
    'that the witnesses saw every action: a step taken outside the receipt chains and proofs leaves no trace an audit could find',
    'anything beyond the independent witnesses the report names: a digest kept only in files the operator controls is not an anchor',
  ],
} as const;

export interface AuditReport {
  ok: boolean;
  verdict: 'valid' | 'invalid';
  /** The audited output directory (absolute). */
  dir: string;
  /** The study root whose inputs were rerun (absolute). */
  root: string;
  run_id: string | null;
  rerun: { run_id: string | null; refused: { stage: string; code: ReasonCode; message: string } | null };
  rails: Rail[];
  /** The failed rails' codes and their underlying codes, sorted. */
  reason_codes: ReasonCode[];
  /** The first failing rail's first difference, with the rail's name. */
  first_difference: (Difference & { rail: RailName }) | null;
  proves: readonly string[];
  does_not_prove: readonly string[];
  /** The weaker choices the study made (or inherits), which a VALID verdict names (SPEC §12.2). */
  weakened_modes: readonly string[];
}

export function assembleReport(
  rails: readonly Rail[],
  meta: Pick<AuditReport, 'dir' | 'root' | 'run_id' | 'rerun' | 'weakened_modes'>,
): AuditReport {
  const ordered = RAIL_NAMES.map((name) => {
    const rail = rails.find((r) => r.name === name);
    if (!rail) throw new Error(`audit rail ${name} was not run`);
    return rail;
  });
  const failedRails = ordered.filter((r) => !r.ok);
  const codes = [...new Set(failedRails.flatMap((r) => [r.code!, ...r.reason_codes]))].sort();
  const firstFailed = failedRails.find((r) => r.first_difference);
  const ok = failedRails.length === 0;
  return {
    ok,
    verdict: ok ? 'valid' : 'invalid',
    ...meta,
    rails: ordered,
    reason_codes: codes,
    first_difference: firstFailed ? { rail: firstFailed.name, ...firstFailed.first_difference! } : null,
    proves: AUDIT_SCOPE.proves,
    does_not_prove: AUDIT_SCOPE.does_not_prove,
  };
}

export function renderReport(report: AuditReport): string {
  const lines = [
    `audit of ${report.dir}${report.run_id ? ` (run_id ${report.run_id})` : ''}`,
    `  inputs rerun from the study at ${report.root}`,
  ];
  const width = Math.max(...report.rails.map((r) => r.name.length));
  for (const rail of report.rails) {
    lines.push(
      `  ${rail.ok ? 'ok  ' : 'FAIL'}  ${rail.name.padEnd(width)}  ${rail.ok ? '' : `${rail.code}${rail.reason_codes.length > 0 ? ` (${rail.reason_codes.join(', ')})` : ''}: `}${rail.detail}`,
    );
    // Each unconfirmed trust entry needs its own flag or file from the auditor: list them all.
    if (rail.name === 'trust' && !rail.ok) for (const d of rail.differences ?? []) lines.push(`        - ${d.file}: ${d.message}`);
  }
  if (report.ok) {
    lines.push(
      report.weakened_modes.length > 0
        ? `verdict: VALID (weakened: ${report.weakened_modes.join(', ')}) — every rail passed`
        : 'verdict: VALID — every rail passed',
    );
  } else {
    const d = report.first_difference;
    lines.push(
      `verdict: INVALID — ${report.rails
        .filter((r) => !r.ok)
        .map((r) => r.name)
        .join(', ')} failed`,
    );
    if (d)
      lines.push(
        `first difference: ${d.file}${d.table ? ` table ${d.table}` : ''}${d.row !== undefined ? ` row ${d.row}` : ''} (${d.rail}): ${d.message}`,
      );
    lines.push(`codes: ${report.reason_codes.join(' ')}`);
  }
  lines.push('', 'What this audit proves:', ...report.proves.map((p) => `  - ${p}`));
  lines.push('What it does not prove:', ...report.does_not_prove.map((p) => `  - ${p}`));
  return lines.join('\n');
}
