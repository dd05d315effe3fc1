// Near misses (SPEC §13.2): how the study's identifiers relate, as study.json declares it before
// the freeze (vocabulary.near_miss). The legislative article served for the regulatory one
// (L2161-1 for R2161-1), the right article number of the wrong CCAG: retrieval served something
// close, not the expected article. The rule is frozen with study.json (its digest is in
// freeze.json), so it cannot be chosen after the results are seen (STUDY_DRIFT).

/** One rule of study.json vocabulary.near_miss. */
export interface NearMissRule {
  /** Matched against the whole identifier (flag u), with named groups. */
  pattern: string;
  /** The named groups two related identifiers share. */
  same: string[];
  /** The named groups at least one of which differs between two related identifiers. */
  differ: string[];
}

/** Whether two identifiers are related by one of the rules (never an identifier to itself). */
export type Related = (a: string, b: string) => boolean;

/** The rule's pattern, anchored to the whole identifier. */
const whole = (pattern: string): RegExp => new RegExp(`^(?:${pattern})$`, 'u');

/** Every named group of a pattern: an alternative that matches the empty string lists them all, unmatched. */
function groupNames(pattern: string): string[] {
  return Object.keys(new RegExp(`(?:${pattern})|`, 'u').exec('')?.groups ?? {});
}

/**
 * What the schema cannot say of the rules, each naming its member: a pattern that compiles, and
 * every named group of it in exactly one of `same` and `differ` (a group in neither would be
 * neither compared nor allowed to differ; a group named but absent could never be compared).
 */
export function nearMissRuleProblems(rules: readonly NearMissRule[]): string[] {
  const problems: string[] = [];
  rules.forEach((rule, i) => {
    const at = `/vocabulary/near_miss/${i}`;
    let names: string[];
    try {
      whole(rule.pattern);
      names = groupNames(rule.pattern);
    } catch (err) {
      problems.push(`${at}/pattern ${JSON.stringify(rule.pattern)} is not a valid regular expression: ${(err as Error).message}`);
      return;
    }
    for (const list of ['same', 'differ'] as const) {
      rule[list].forEach((name, j) => {
        if (!names.includes(name))
          problems.push(
            `${at}/${list}/${j} ${JSON.stringify(name)} is not a named group of the pattern (it has ${names.length === 0 ? 'none' : names.map((n) => JSON.stringify(n)).join(', ')})`,
          );
      });
    }
    rule.differ.forEach((name, j) => {
      if (rule.same.includes(name))
        problems.push(`${at}/differ/${j} ${JSON.stringify(name)} is also in same: a part is either shared or allowed to differ`);
    });
    for (const name of names) {
      if (!rule.same.includes(name) && !rule.differ.includes(name))
        problems.push(`${at}/pattern: the named group ${JSON.stringify(name)} is in neither same nor differ`);
    }
  });
  return problems;
}

/**
 * The relation the rules declare: a and b are related when one rule's pattern matches each whole,
 * every `same` group is equal in both and some `differ` group is not. Checked rules only
 * (nearMissRuleProblems); no rule relates nothing.
 */
export function nearMissRelation(rules: readonly NearMissRule[]): Related {
  const compiled = rules.map((rule) => ({ re: whole(rule.pattern), same: rule.same, differ: rule.differ }));
  return (a, b) => {
    if (a === b) return false;
    return compiled.some(({ re, same, differ }) => {
      const ga = re.exec(a)?.groups;
      const gb = re.exec(b)?.groups;
      if (ga === undefined || gb === undefined) return false;
      return same.every((n) => ga[n] === gb[n]) && differ.some((n) => ga[n] !== gb[n]);
    });
  };
}

/** The rules whose pattern matches no identifier of the vocabulary: they could relate no expected reference (freeze refuses them). */
export function idleNearMissRules(rules: readonly NearMissRule[], vocabulary: readonly string[]): number[] {
  return rules.flatMap((rule, i) => {
    const re = whole(rule.pattern);
    return vocabulary.some((id) => re.test(id)) ? [] : [i];
  });
}
