// What `prereg init` writes, as data: the files of a new study (inside the study directory) and
// the private files (outside it: the operator's private keys, the answer key, its secret). Pure:
// the stage does the I/O. docs/operating.md walks through what each file is for.
import { extractSection5 } from '../study/section5.ts';
import { DEFAULT_REFUSAL_MAX_TAIL_CHARS, type StudyConfig } from '../study/study.ts';
import type { TrustPolicy } from '../formats/trust-policy.ts';
import type { OperatorKeyFiles } from './operator-keys.ts';
import { CI_WORKFLOW_FILE, ciWorkflow } from './ci-workflow.ts';

export interface ScaffoldOptions {
  studyId: string;
  window: { opens_at: string; closes_at: string };
  tsas: Array<{ name: string; url: string }>;
  /** TSA root certificates to pin: file name → PEM text. */
  tsaRoots: Array<{ name: string; pem: string }>;
  keys: OperatorKeyFiles;
  /** The participating systems and their buyer fingerprints (`--system ID=FP[,FP…]`); none: no `systems` member. */
  systems: Array<{ system_id: string; buyer_fingerprints: string[]; agent_keys?: Array<{ public_key: string; possession: string }> }>;
  /** The retrieval services pinned in the trust policy (`--seller`); none: no `sellers`, which freeze refuses. */
  sellers?: string[] | 'any';
  /** 32 random bytes, hex: the answer-key commitment secret. */
  secret: string;
  /** How submissions come in (SPEC §12.2): sealed (the default) or the declared, weakened unsealed. */
  intake: 'sealed' | 'unsealed';
  /** The tool's own example plan: its section 5 is the new study's starting analysis. */
  examplePlan: string;
  /** The example study's `report` block (how the report presents that same section 5's scores). */
  exampleReport: NonNullable<StudyConfig['report']>;
  /** Whether a claim counts as proven only with an anchored AER-1 timeline (init --require-receipts). */
  requireReceipts: boolean;
  /** protocol.attempts_per_item: the attempts each system makes of each item (init --attempts). */
  attemptsPerItem: number;
  /** Default `Study <id>`. */
  title?: string;
  /** Where the study's CI installs prereg from: a path inside the study or an https URL (docs/ci.md). */
  preregSource: string;
}

export interface Scaffold {
  /** Study-relative path → content. */
  study: Record<string, string>;
  /** Private-directory-relative path → content: never inside the study. */
  private: Record<string, string>;
}

const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

export const OPERATOR_PUBLIC_KEY = 'operator/operator.pub.pem';
export const PRIVATE_FILES = {
  operatorKey: 'operator.key.pem',
  cmsKey: 'operator-cms.key.pem',
  cmsCert: 'operator-cms.cert.pem',
  answerKey: 'answer-key.jsonl',
  secret: 'answer-key.secret',
} as const;

const SAMPLE_DOCUMENT = `# Sample document

Replace this file with the study's corpus. Every citable identifier is declared by a heading that
a heading pattern of preregistration/study.json matches (here "## Article <ID>").

## Article A-1

The first sample article. A fee of 100 EUR applies.
`;

/** A starting refusal pattern, in the sample's language: edit it to the study's before the freeze. */
const REFUSAL_PATTERN = "\\b(?:cannot answer|can't answer|unable to answer|the corpus does not (?:say|contain|answer))\\b";

function studyConfig(o: ScaffoldOptions): StudyConfig {
  return {
    format: 'prereg.study/2',
    study_id: o.studyId,
    title: o.title ?? `Study ${o.studyId}`,
    as_of: o.window.closes_at.slice(0, 10),
    window: o.window,
    corpus: { documents_suffix: '.md', items: 'items.jsonl' },
    vocabulary: { heading_patterns: ['^#{2,4} Article (?<id>[A-Z]+-[0-9]+)\\s*$'], shape_patterns: ['[A-Z]+-[0-9]+'] },
    amounts: { pattern: '(?<value>[0-9]+(?:\\.[0-9]+)?)\\s?(?:EUR\\b|€)', unit: 'EUR', decimal_separator: '.' },
    // Participants sign their files and the operator seals them after closes_at (docs/intake.md);
    // each system's agent_keys are added to `systems` before the freeze.
    intake: { mode: o.intake, seal_within_s: 3600 },
    // Every rate counts the expected records (SPEC §13.1): a missing attempt is a failed one.
    protocol: { attempts_per_item: o.attemptsPerItem },
    // A refusal is judged from the answer (SPEC §13.1): without a pattern it would be the flag.
    refusal_pattern: REFUSAL_PATTERN,
    refusal: { max_tail_chars: DEFAULT_REFUSAL_MAX_TAIL_CHARS },
    // The report leads with the first metric of section 5 (the example's analysis), with a chart.
    report: o.exampleReport,
    // At least one witness, TSA configured or not: check-anchors never passes a study with no anchor.
    anchors: { min_witnesses: 1, tsas: o.tsas },
    // Never a placeholder: a fingerprint frozen by mistake would bind no proof to its system.
    ...(o.systems.length > 0 ? { systems: o.systems } : {}),
  };
}

function trustPolicy(o: ScaffoldOptions): TrustPolicy {
  return {
    format: 'prereg.trust/1',
    arkforge_keys: [],
    tsa_roots: o.tsaRoots.map((r) => `tsa-roots/${r.name}`),
    tsa_certs: [],
    tlog_keys: [],
    tlog_submitter_keys: [],
    operator_public_key: OPERATOR_PUBLIC_KEY,
    require_tsa_token: true,
    max_skew_seconds: 300,
    batch_max_skew_seconds: 900,
    // Asked, not assumed (init --require-receipts): receipts need every participant's AER-1 timelines and commitments.
    require_receipts: o.requireReceipts,
    // Never a placeholder: freeze refuses a policy without sellers (TRUST_SELLERS_MISSING).
    ...(o.sellers !== undefined ? { sellers: o.sellers } : {}),
  };
}

function plan(o: ScaffoldOptions): string {
  const section5 = extractSection5(o.examplePlan);
  if (!section5) throw new Error('the example plan has no section 5');
  return [
    `# Preregistration: ${o.studyId}`,
    '',
    '## 1. Question',
    '',
    'What the study asks, of which systems.',
    '',
    '## 2. Corpus and items',
    '',
    'What `corpus/` holds and how the items of `corpus/items.jsonl` were chosen.',
    '',
    '## 3. Submissions and evidence',
    '',
    'What a submission carries (`docs/submission.md`) and which evidence counts (`docs/trust.md`).',
    '',
    '## 4. Answer key',
    '',
    'How the answer key was written; it stays private until the deadline (only its commitment is frozen).',
    '',
    // The tool's example analysis, as a starting point: edit its hypotheses before freezing.
    section5.text.trimEnd(),
    '',
    '## 6. Interpretation',
    '',
    'How the outcomes will be read.',
    '',
    '## 7. Deviations',
    '',
    'This document is frozen whole: a deviation is recorded with `prereg deviation` in inputs/deviations.jsonl, never here.',
    '',
  ].join('\n');
}

export function scaffoldStudy(o: ScaffoldOptions): Scaffold {
  const study: Record<string, string> = {
    'corpus/sample.md': SAMPLE_DOCUMENT,
    'corpus/items.jsonl': `${JSON.stringify({ item_id: 'q-001', question: 'What fee does Article A-1 set?' })}\n`,
    'preregistration/PREREGISTRATION.md': plan(o),
    'preregistration/study.json': json(studyConfig(o)),
    'preregistration/trust/policy.json': json(trustPolicy(o)),
    [`preregistration/trust/${OPERATOR_PUBLIC_KEY}`]: o.keys.operatorPublicKey,
    'inputs/submissions/.gitkeep': '',
    // The store is a cache; outputs are published on their own.
    '.gitignore': 'work/\n',
    // The study's own CI: check-anchors on every push once frozen (docs/ci.md).
    [CI_WORKFLOW_FILE]: ciWorkflow(o.preregSource),
  };
  for (const r of o.tsaRoots) study[`preregistration/trust/tsa-roots/${r.name}`] = r.pem;
  return {
    study,
    private: {
      [PRIVATE_FILES.operatorKey]: o.keys.operatorKey,
      [PRIVATE_FILES.cmsKey]: o.keys.cmsKey,
      [PRIVATE_FILES.cmsCert]: o.keys.cmsCert,
      [PRIVATE_FILES.answerKey]: `${JSON.stringify({ item_id: 'q-001', kind: 'positive', expected_refs: ['A-1'], expected_amounts: [{ ref: 'A-1', value: '100', unit: 'EUR' }] })}\n`,
      [PRIVATE_FILES.secret]: `${o.secret}\n`,
    },
  };
}
