// Facts decided in one place (issue 27): a rule written twice drifts, and the copy an attacker
// finds weaker is the one that counts. Each rule names the only files that may do a thing, read
// from the sources (comments stripped), and each is shown to catch a file that breaks it.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PIPELINE_DIR, repoRelative, sourceFiles, withoutComments } from '../support/sources.ts';

interface Rule {
  what: string;
  /** What a file must not contain, outside `allowed`. */
  pattern: RegExp;
  /** Repository-relative files that may. */
  allowed: readonly string[];
  /** A line that breaks the rule, to show the rule catches it. */
  breaking: string;
}

const RULES: readonly Rule[] = [
  {
    what: 'the pinned operator and intake keys are read from the policy only by study/operator-key.ts (and listed for existence by the plan check)',
    pattern: /\.(operator|intake)_public_key\b/,
    allowed: ['pipeline/study/operator-key.ts', 'pipeline/freeze/plan-check.ts'],
    breaking: 'const pem = readText(trustPath(dir, policy.operator_public_key!));',
  },
  {
    what: 'a stage refusal becomes a collected problem only in study/preconditions.ts',
    pattern: /\{\s*code: err\.code,\s*(message|file)\b/, // whitespace-tolerant: the formatter may break the object over lines
    allowed: ['pipeline/study/preconditions.ts'],
    breaking: 'if (err instanceof PreregError) return { code: err.code, message: err.message, exitCode: err.exitCode };',
  },
  {
    what: 'study.json, freeze.json and PREREGISTRATION.md are read only in study/ (loadStudy, loadFreezeRecord, readSection5)',
    pattern: /(readRegularFile|readText|readFileSync|readJsonFile)\(layout\.(study|freeze|plan)\b/,
    allowed: ['pipeline/study/study.ts', 'pipeline/study/freeze-record.ts', 'pipeline/study/section5.ts', 'pipeline/study/loaded-study.ts'],
    breaking: 'const section5 = extractSection5(readText(layout.plan));',
  },
  {
    what: 'the frozen items are parsed from the bytes compared with the freeze (readItems with bytes); only the participant tools, outside a frozen study, read the file themselves',
    pattern: /readItems\([^,()]+, [^,()]+\)/,
    allowed: ['pipeline/commands/validate.ts', 'pipeline/commands/submission.ts'],
    breaking: 'const items = readItems(layout, frozen.study);',
  },
  {
    what: "a study's trust directory is digested, decoded and its keys read only through the loaded study (study/loaded-study.ts: one read for all three)",
    pattern: /(digestTree|readTree|loadTrust|loadTrustPolicy|readTrustInputs|pinnedOperatorKey|pinnedIntakeKey)\([\w.]*\blayout\.trust\b/,
    allowed: ['pipeline/study/loaded-study.ts'],
    breaking: 'const inputs = readTrustInputs(this.layout.trust);',
  },
  {
    what: 'whose agent keys sign commitments is derived only by registeredAgentKeys (verify/inputs.ts)',
    pattern: /flatMap\(\(s\) => \(s\.agent_keys \?\? \[\]\)\.map/,
    allowed: ['pipeline/verify/inputs.ts'],
    breaking:
      'const keys = systems.flatMap((s) => (s.agent_keys ?? []).map((k) => ({ system_id: s.system_id, public_key: k.public_key })));',
  },
];

/** The files of `files` (path → text) that break `rule`. */
function offenders(rule: Rule, files: ReadonlyMap<string, string>): string[] {
  return [...files]
    .filter(([file, text]) => !rule.allowed.includes(file) && rule.pattern.test(withoutComments(text)))
    .map(([file]) => file);
}

/** The pipeline's sources, but the generated schema validators (npm run schemas:generate). */
const SOURCES = new Map(
  sourceFiles(PIPELINE_DIR)
    .map((f) => [repoRelative(f), readFileSync(f, 'utf8')] as const)
    .filter(([f]) => !f.startsWith('pipeline/formats/validators/')),
);

describe('each fact in one place', () => {
  it.each(RULES.map((r) => [r.what, r] as const))('%s', (_, rule) => {
    expect(offenders(rule, SOURCES)).toEqual([]);
    // The rule can fail: a file elsewhere doing it is caught, and the allowed files still do it.
    expect(offenders(rule, new Map([...SOURCES, ['pipeline/stages/elsewhere.ts', rule.breaking]]))).toEqual([
      'pipeline/stages/elsewhere.ts',
    ]);
    expect(
      rule.allowed.some((f) => rule.pattern.test(withoutComments(SOURCES.get(f) ?? ''))),
      `${rule.allowed.join(', ')} no longer do it: the rule is stale`,
    ).toBe(true);
  });
});
