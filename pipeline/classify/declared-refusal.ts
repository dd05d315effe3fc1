// The refusal judgement a participant can run on its own line before sending it (`prereg
// validate`, SPEC §13.1): the same rule as the classify stage's declared column — the frozen
// pattern and tail, no amount, not truncated, every citation a ref the line's own evidence serves.
// "Proven" needs the verify stage; the declared judgement needs only the line and the study.
import type { AcceptedRecord, IngestedEvidence } from '../ingest/submission.ts';
import { refusalRuleOf, type StudyConfig } from '../study/study.ts';
import { extractVocabulary } from '../study/vocabulary.ts';
import { compileExtractor, extractorConfigFromStudy } from './extract.ts';
import { assertionFacts, judgeRefusal, refusalByText } from './refusal.ts';

/** The refs a line's evidence serves as declared: each passage's own `ref` in every response (SPEC §12.4). */
function servedRefs(evidence: readonly IngestedEvidence[]): Set<string> {
  const refs = new Set<string>();
  for (const e of evidence) {
    const response: unknown = e.response_json === null ? null : JSON.parse(e.response_json);
    const passages =
      typeof response === 'object' && response !== null && !Array.isArray(response)
        ? (response as { passages?: unknown }).passages
        : undefined;
    if (!Array.isArray(passages)) continue;
    for (const p of passages)
      if (typeof p === 'object' && p !== null && typeof (p as { ref?: unknown }).ref === 'string') refs.add((p as { ref: string }).ref);
  }
  return refs;
}

/**
 * A judge of each accepted line's refusal as declared, or null when the study declares no refusal
 * pattern (then the flag stands and nothing can disagree with it).
 */
export function declaredRefusalJudge(
  study: StudyConfig,
  documents: ReadonlyArray<{ path: string; text: string }>,
): ((record: AcceptedRecord) => boolean) | null {
  const rule = refusalRuleOf(study);
  if (rule.pattern === null) return null;
  const extractor = compileExtractor(extractorConfigFromStudy(study, extractVocabulary(documents, study.vocabulary.heading_patterns).ids));
  return (record) => {
    const served = servedRefs(record.evidence);
    const facts = {
      byText: refusalByText(record.answer_text, rule),
      flag: record.refused,
      truncated: record.truncated,
      ...assertionFacts(extractor.extract(record.answer_text, { truncated: record.truncated })),
    };
    return judgeRefusal(facts, (ref) => served.has(ref));
  };
}
