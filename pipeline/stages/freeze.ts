// `prereg freeze`: corpus manifest and root, vocabulary, section 5, answer-key commitment, trust
// digest → preregistration/freeze.json, and the freeze_digest that anchors will witness.
import { existsSync } from 'node:fs';
import { commitAnswerKey } from '../study/answer-key.ts';
import { amountsIn, compileExtractor, extractorConfigFromStudy } from '../classify/extract.ts';
import { corpusSections } from '../study/corpus-sections.ts';
import {
  checkKeyCoversItems,
  goldSetProblems,
  readAnswerKeyLines,
  readItems,
  resolveSecret,
  SECRET_ENV,
} from '../freeze/answer-key-file.ts';
import { freezeDigest, renderFreezeRecord, unmatchedHeadingWarning } from '../study/freeze-record.ts';
import { buildFreezeRecord, computePublicDigests } from '../study/public-digests.ts';
import { loadStudyFiles } from '../study/loaded-study.ts';
import { writeFileAtomic } from '../io/atomic.ts';
import { keepReplacedFreeze } from '../study/freeze-chain.ts';
import { planCheck, renderPlanProblem } from '../freeze/plan-check.ts';
import { studyLayout } from '../layout.ts';
import { EXIT, PreregError } from '../reasons.ts';
import type { Command } from '../command.ts';

/** `--replace --reason TEXT`: the amendment's reason; null for a first freeze. `--replace` alone, or `--reason` alone, is a usage error. */
function amendmentAsked(replace: unknown, reason: unknown): string | null {
  if (replace !== true) {
    if (reason !== undefined) throw new PreregError('USAGE', '--reason goes with --replace (an amendment of an existing freeze)');
    return null;
  }
  if (typeof reason !== 'string' || reason.trim() === '') {
    throw new PreregError(
      'USAGE',
      '--replace needs --reason TEXT: an amendment says why the plan changed, and the new freeze.json records it',
    );
  }
  return reason;
}

export const freeze: Command = {
  name: 'freeze',
  summary: 'freeze corpus, vocabulary, section 5, trust policy and answer-key commitment into freeze.json',
  help: [
    'usage: prereg freeze [--answer-key FILE] [--secret-file FILE] [--replace --reason TEXT] [--root DIR] [--json]',
    '',
    '  --answer-key FILE   the private answer key (default inputs/answer-key.jsonl)',
    `  --secret-file FILE  the commitment secret (else $${SECRET_ENV}, else inputs/answer-key.secret)`,
    '  --replace --reason TEXT  amend the plan before opens_at: a new freeze.json naming the one it',
    '                      replaces and why; the old one and its anchors are kept under',
    '                      preregistration/amendments/<n>/ (anchor the new freeze_digest before opens_at)',
    '',
    'Refuses (exit 3, the code naming file and field) a plan that could not run after the deadline:',
    'a trust policy that does not load or names a missing file, no operator_public_key, section 5',
    "failing a dry run on the product's fixture of every combination of base-table flags (a required",
    'view or column missing, a class that study.json does not declare), an undeclared class literal,',
    'a vocabulary of 0 identifiers, a pattern that does not compile. See docs/preregistration.md.',
    'Writes preregistration/freeze.json and prints freeze_digest.',
  ].join('\n'),
  options: {
    'answer-key': { type: 'string' },
    'secret-file': { type: 'string' },
    replace: { type: 'boolean' },
    reason: { type: 'string' },
  },
  stage: true,
  jsonSchema: () => 'prereg.freeze/1',
  async run(ctx) {
    const layout = studyLayout(ctx.root);
    const amendment = amendmentAsked(ctx.values.replace, ctx.values.reason);
    if (existsSync(layout.freeze) && amendment === null) {
      throw new PreregError(
        'FREEZE_EXISTS',
        `${layout.freeze} already exists; an amendment before opens_at is \`--replace --reason TEXT\``,
      );
    }
    if (!existsSync(layout.freeze) && amendment !== null) {
      throw new PreregError('USAGE', `--replace amends an existing freeze, and ${layout.freeze} does not exist: run \`prereg freeze\``);
    }
    // Read once: freeze.json is then written, never read back through it.
    const loaded = loadStudyFiles(layout);
    // The freeze replaced, named by the new one (read before anything is written).
    const amends = amendment === null ? undefined : { freeze_digest: loaded.freezeDigest(), reason: amendment };
    const study = loaded.study();
    ctx.progress('hashing the corpus and the trust directory…');
    const digests = computePublicDigests(loaded);
    // A plan that could not run after the deadline is refused now, while it can still be fixed
    // (docs/preregistration.md, "What freeze refuses").
    ctx.progress('checking the trust policy, the vocabulary and a dry run of section 5…');
    const { problems, hypothesisFamily } = await planCheck(loaded, digests);
    if (problems.length > 0) {
      throw new PreregError(problems[0]!.code, problems.map((p, i) => renderPlanProblem(p, i > 0)).join('\n'), { problems });
    }
    const items = readItems(layout, study, loaded.itemsFile());
    const keyPath = typeof ctx.values['answer-key'] === 'string' ? ctx.values['answer-key'] : layout.answerKey;
    const located = readAnswerKeyLines(keyPath);
    const key = located.map((l) => l.value);
    const coverage = checkKeyCoversItems(key, items);
    if (coverage.length > 0) {
      throw new PreregError('ANSWER_KEY_INVALID', coverage.join('\n'), { problems: coverage });
    }
    // The amounts each article's frozen text holds, found as the classify stage finds them.
    const sections = corpusSections(loaded.documents(), study.vocabulary.heading_patterns);
    const extractor = compileExtractor(extractorConfigFromStudy(study, digests.vocabulary.ids));
    const amountsUnder = (ref: string) => new Set(amountsIn(extractor, sections.get(ref) ?? '').map((a) => a.value));
    const gold = goldSetProblems(key, new Set(digests.vocabulary.ids), amountsUnder);
    if (gold.length > 0) {
      // Each problem names the key's file and the line of its item; the first one's code is the error's own.
      const lineOf = new Map(located.map((l) => [l.value.item_id, l.line]));
      const where = gold.map((p) => `${keyPath}:${lineOf.get(p.item_id)}: ${p.message}`);
      throw new PreregError(gold[0]!.code, gold.map((p, i) => (i > 0 ? `${p.code}: ` : '') + where[i]).join('\n'), { problems: where });
    }
    const secretFile = ctx.values['secret-file'];
    const secret = resolveSecret(layout, typeof secretFile === 'string' ? secretFile : undefined, ctx.env);
    if (!secret) {
      throw new PreregError('ANSWER_KEY_SECRET_MISSING', `no secret: pass --secret-file or set $${SECRET_ENV}`);
    }
    // No problem means the dry run ran, so the family was counted.
    const record = buildFreezeRecord(study, digests, commitAnswerKey(secret, key), hypothesisFamily ?? [], amends);
    const write = () => writeFileAtomic(layout.freeze, renderFreezeRecord(record));
    const kept = amends ? keepReplacedFreeze(layout, write) : null;
    if (!amends) write();
    const digest = freezeDigest(record);
    const warnings = digests.unmatched_headings.map(unmatchedHeadingWarning);
    const summary = {
      ok: true,
      freeze_digest: digest,
      corpus_root: record.corpus.root,
      corpus_files: record.corpus.leaf_count,
      vocabulary_sha256: record.vocabulary.sha256,
      vocabulary_size: record.vocabulary.size,
      section5_sha256: record.section5_sha256,
      answer_key_root: record.answer_key.root,
      answer_key_items: record.answer_key.item_count,
      study_sha256: record.study_sha256,
      trust_root: record.trust.root,
      amends: record.amends ?? null,
      kept: kept === null ? null : `preregistration/amendments/${kept}/`,
      warnings,
    };
    return {
      exitCode: EXIT.ok,
      json: summary,
      text: [
        `froze ${study.study_id}: ${record.corpus.leaf_count} corpus files, ${record.vocabulary.size} identifiers, ${record.answer_key.item_count} answer-key items`,
        `freeze_digest ${digest}`,
        ...(amends
          ? [
              `amends ${amends.freeze_digest} (kept with its anchors under preregistration/amendments/${kept}/): anchor the new freeze_digest before opens_at`,
            ]
          : []),
        ...warnings.map((w) => `warning: ${w}`),
      ].join('\n'),
    };
  },
};
