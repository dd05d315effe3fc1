// Before the freeze (and in check-anchors): can the frozen plan run after the deadline? Every
// file the trust policy names, the operator key, section 5's classes and its dry run on the
// product's fixture of every combination of base-table flags (store/class-fixture.sql),
// the vocabulary and every pattern of study.json. A plan that cannot run is refused while it can
// still be fixed, instead of at `run`, when fixing it means a new freeze and losing the anchors.
import { PreregError } from '../reasons.ts';
import { pinnedReceiptSigner } from '../intake/identity.ts';
import { compileExtractor, extractorConfigFromStudy } from '../classify/extract.ts';
import { readItems } from './answer-key-file.ts';
import type { PublicDigests } from '../study/public-digests.ts';
import type { LoadedStudy } from '../study/loaded-study.ts';
import { classLiteralsOfSection5, section5Identifiers, type Section5 } from '../study/section5.ts';
import { classValuesOf } from '../study/classes.ts';
import { duplicateMessage, extractVocabulary } from '../study/vocabulary.ts';
import { idleNearMissRules } from '../study/near-miss.ts';
import { sellerMode, type TrustPolicy } from '../formats/trust-policy.ts';
import { trustLeaf } from '../study/trust.ts';
import { preconditionOf, type Precondition } from '../study/preconditions.ts';
import { statisticsOf } from '../study/study.ts';
import { dryRunSection5 } from '../store/section5-runner.ts';

/** One reason the plan could not run: its code, the study-relative file and the field (a JSON pointer) or line. */
/** A problem of the plan check: a precondition of freeze, always naming its file and field. */
export type PlanProblem = Omit<Precondition, 'exitCode' | 'file' | 'field'> & { file: string; field: string };

const POLICY = 'preregistration/trust/policy.json';
const STUDY = 'preregistration/study.json';
const PLAN = 'preregistration/PREREGISTRATION.md';

/** Every file field of the policy, as [JSON pointer, relative path]. */
function namedFiles(policy: TrustPolicy): Array<[string, string]> {
  return [
    ...policy.tsa_roots.map((f, i): [string, string] => [`/tsa_roots/${i}`, f]),
    ...(policy.tsa_certs ?? []).map((f, i): [string, string] => [`/tsa_certs/${i}`, f]),
    ...(policy.tlog_keys ?? []).map((k, i): [string, string] => [`/tlog_keys/${i}/public_key_file`, k.public_key_file]),
    ...(policy.tlog_submitter_keys ?? []).map((k, i): [string, string] => [`/tlog_submitter_keys/${i}/public_key_file`, k.public_key_file]),
    ...(policy.operator_public_key !== undefined ? [['/operator_public_key', policy.operator_public_key] as [string, string]] : []),
  ];
}

function asProblem(err: unknown, file: string, field: string): PlanProblem {
  const { code, message, line } = preconditionOf(err);
  return { code, file, field, ...(line !== undefined ? { line } : {}), message };
}

function trustProblems(loaded: LoadedStudy): PlanProblem[] {
  const { layout } = loaded;
  let policy: TrustPolicy;
  try {
    policy = loaded.policy();
  } catch (err) {
    return [asProblem(err, POLICY, '/')];
  }
  const problems: PlanProblem[] = [];
  // The policy was read from the directory's tree: a named file is judged in that same read.
  const leaves = new Set(loaded.trustTree().files.map((f) => f.path));
  for (const [field, relative] of namedFiles(policy)) {
    try {
      if (!leaves.has(trustLeaf(layout.trust, relative))) {
        problems.push({
          code: 'FILE_NOT_FOUND',
          file: POLICY,
          field,
          message: `${field} names ${relative}, which does not exist in preregistration/trust/`,
        });
      }
    } catch (err) {
      problems.push(asProblem(err, POLICY, field));
    }
  }
  if (problems.length > 0) return problems;
  try {
    loaded.trust();
  } catch (err) {
    problems.push(asProblem(err, POLICY, '/'));
  }
  // Whose proofs can prove a passage served (SPEC §12.4): a list, or the explicit weakened "any".
  if (sellerMode(policy).mode === 'missing') {
    problems.push({
      code: 'TRUST_SELLERS_MISSING',
      file: POLICY,
      field: '/sellers',
      message:
        'the policy lists no sellers (the identities of the study\'s retrieval services) and does not declare "sellers": "any": no proof could be checked against a pinned source',
    });
  }
  // emit signs with the key pinned here and refuses a study that pins none.
  try {
    loaded.operatorKey();
  } catch (err) {
    problems.push(asProblem(err, POLICY, '/operator_public_key'));
    return problems;
  }
  // Every intake key speaks for the operator's identity (SPEC §13.4): it is the operator key, or certified by it.
  let studyId: string | undefined;
  try {
    studyId = loaded.study().study_id;
  } catch (err) {
    if (!(err instanceof PreregError)) throw err; // the study's own problems are studyProblems'
  }
  try {
    if (studyId !== undefined) pinnedReceiptSigner(loaded, studyId);
  } catch (err) {
    problems.push(asProblem(err, POLICY, '/intake_key_certificate'));
  }
  return problems;
}

function studyProblems(loaded: LoadedStudy, digests: PublicDigests): PlanProblem[] {
  const study = loaded.study();
  const problems: PlanProblem[] = [];
  // Registration is the default (SPEC §12.3): unbound evidence lets a copier cancel the original.
  if (study.systems === undefined && !(study.format === 'prereg.study/2' && study.binding === 'none')) {
    problems.push({
      code: 'STUDY_SYSTEMS_UNREGISTERED',
      file: STUDY,
      field: '/systems',
      message:
        'study.json registers no systems: register each system (and its buyer fingerprints), or declare "binding": "none" (prereg.study/2), a weakened mode in which copied evidence cancels every claimant',
    });
  }
  // One identifier, one article: a second declaration would decide, by path order, which text a
  // citation names and which passage proves it.
  for (const d of digests.duplicate_ids) {
    problems.push({
      code: 'VOCABULARY_ID_DUPLICATE',
      file: `corpus/${d.again.file}`,
      line: d.again.line,
      field: 'heading',
      message: duplicateMessage(d),
    });
  }
  const documents = loaded.documents();
  if (documents.length === 0) {
    problems.push({
      code: 'VOCABULARY_EMPTY',
      file: STUDY,
      field: '/corpus/documents_suffix',
      message: `no corpus file ends in ${JSON.stringify(study.corpus.documents_suffix)}: no document declares an identifier`,
    });
  } else if (digests.vocabulary.ids.length === 0) {
    problems.push({
      code: 'VOCABULARY_EMPTY',
      file: STUDY,
      field: '/vocabulary/heading_patterns',
      message: `the heading patterns match no heading of the ${documents.length} corpus document(s): 0 identifiers`,
    });
  } else {
    study.vocabulary.heading_patterns.forEach((pattern, i) => {
      if (extractVocabulary(documents, [pattern]).ids.length === 0) {
        problems.push({
          code: 'VOCABULARY_EMPTY',
          file: STUDY,
          field: `/vocabulary/heading_patterns/${i}`,
          message: `${JSON.stringify(pattern)} matches no heading of the corpus`,
        });
      }
    });
    study.vocabulary.shape_patterns.forEach((pattern, i) => {
      const shape = new RegExp(`^(?:${pattern})$`, 'u');
      if (!digests.vocabulary.ids.some((id) => shape.test(id))) {
        problems.push({
          code: 'STUDY_INVALID',
          file: STUDY,
          field: `/vocabulary/shape_patterns/${i}`,
          message: `${JSON.stringify(pattern)} matches no identifier of the vocabulary: it could catch no phantom of a real shape`,
        });
      }
    });
    // An expected ref is an identifier of the vocabulary (ANSWER_KEY_REF_UNKNOWN): a rule none matches relates none.
    for (const i of idleNearMissRules(study.vocabulary.near_miss ?? [], digests.vocabulary.ids)) {
      problems.push({
        code: 'STUDY_INVALID',
        file: STUDY,
        field: `/vocabulary/near_miss/${i}/pattern`,
        message: `${JSON.stringify(study.vocabulary.near_miss![i]!.pattern)} matches no identifier of the vocabulary: it could relate no expected reference to a near miss`,
      });
    }
  }
  // The classifier compiles every pattern together; what compiles alone may not compile there.
  try {
    compileExtractor(extractorConfigFromStudy(study, digests.vocabulary.ids));
  } catch (err) {
    problems.push({
      code: 'STUDY_INVALID',
      file: STUDY,
      field: '/amounts/pattern',
      message: `the assertion extractor does not compile: ${(err as Error).message}`,
    });
  }
  try {
    readItems(loaded.layout, study, loaded.itemsFile());
  } catch (err) {
    problems.push(asProblem(err, `corpus/${study.corpus.items}`, '/corpus/items'));
  }
  return problems;
}

/**
 * The rules that protect the study from its participants (SPEC §13.1), as a static check of the
 * SQL (outside comments and strings): rates over the expected records, refusals by the judgement
 * from the answer, never by the submission's `refused` flag. What a plan then computes from them
 * is the study's; the dry run checks that it runs.
 */
function section5RuleProblems(section5: Section5): PlanProblem[] {
  const names = section5Identifiers(section5);
  const problems: PlanProblem[] = [];
  const unused = (table: string, why: string) => {
    if (!names.some((n) => n.name === table))
      problems.push({ code: 'SECTION5_RULE_UNUSED', file: PLAN, field: 'section 5', message: `section 5 never reads ${table}: ${why}` });
  };
  unused(
    'expected_records',
    'its rates would count the records submitted, not the records the protocol expects, so a system leaving out what it gets wrong would gain',
  );
  unused('record_refusals', 'it would score refusals without the judgement from the answer as written');
  for (const n of names.filter((x) => x.name === 'refused')) {
    problems.push({
      code: 'SECTION5_RULE_UNUSED',
      file: PLAN,
      field: 'section 5',
      line: n.line,
      message:
        "section 5 reads `refused`, the submission's flag: a refusal is judged from the answer (record_refusals.declared / .proven), the flag is only the system's declaration",
    });
  }
  return problems;
}

/**
 * The classes are part of the frozen plan (SPEC §13.1): a quoted literal that can reach a class
 * column must be a declared class. What a literal cannot show (a class computed from data, a
 * branch without a class) the dry run on the product's fixture finds, where a flag combination
 * reaches it.
 */
function classLiteralProblems(section5: Section5, classes: readonly string[]): PlanProblem[] {
  return classLiteralsOfSection5(section5)
    .filter((l) => !classes.includes(l.value))
    .map((l) => ({
      code: 'SECTION5_VALUE_INVALID',
      file: PLAN,
      field: 'section 5',
      line: l.line,
      message: `'${l.value}' can reach assertion_classes' class columns but is not a class of this study (the built-in classes and study.json \`classes\`): declare it in study.json "classes" with its meaning, or write a declared class`,
    }));
}

/** The dry run's problems and, when it ran, the hypotheses it produced (null when it did not). */
async function section5Check(
  section5: Section5,
  classes: readonly string[],
  alpha: number,
): Promise<{ problems: PlanProblem[]; hypothesisFamily: string[] | null }> {
  if (section5.sqlBlocks.length === 0)
    return {
      problems: [
        {
          code: 'SECTION5_VIEW_MISSING',
          file: PLAN,
          field: 'section 5',
          message: 'section 5 holds no ```sql block: it creates none of the required views',
        },
      ],
      hypothesisFamily: null,
    };
  const rules = [...section5RuleProblems(section5), ...classLiteralProblems(section5, classes)];
  try {
    const { hypothesis_family } = await dryRunSection5(section5.sqlBlocks, classes, alpha);
    return { problems: rules, hypothesisFamily: hypothesis_family };
  } catch (err) {
    return { problems: [...rules, asProblem(err, PLAN, 'section 5')], hypothesisFamily: null };
  }
}

/**
 * Every reason the plan could not run after the deadline (empty when it can), and the family of
 * hypotheses its dry run produced, which freeze.json records (SPEC §13.2).
 */
export async function planCheck(
  loaded: LoadedStudy,
  digests: PublicDigests,
): Promise<{ problems: PlanProblem[]; hypothesisFamily: string[] | null }> {
  const section5 = await section5Check(digests.section5, classValuesOf(loaded.study()), statisticsOf(loaded.study()).alpha);
  return {
    problems: [...trustProblems(loaded), ...studyProblems(loaded, digests), ...section5.problems],
    hypothesisFamily: section5.hypothesisFamily,
  };
}

/** Every reason the plan could not run after the deadline; empty when it can. */
export async function planProblems(loaded: LoadedStudy, digests: PublicDigests): Promise<PlanProblem[]> {
  return (await planCheck(loaded, digests)).problems;
}

export function renderPlanProblem(p: PlanProblem, withCode = true): string {
  return `${withCode ? `${p.code}: ` : ''}${p.file}${p.line !== undefined ? `:${p.line}` : ''}: ${p.field}: ${p.message}`;
}
