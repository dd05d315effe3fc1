// The class values section 5 may produce (SPEC §13.1): the product's built-in set, and the ones a
// study declares in study.json `classes`, each with its one-line meaning. Frozen with study.json:
// a class is part of the plan, so what a result may say is known before the deadline.

/** What of study.json declares classes (study.ts imports this file: a structural type, not StudyConfig, so the two import no circle). */
interface DeclaresClasses {
  format: string;
  classes?: Readonly<Record<string, string>>;
}

/** The built-in classes (docs/tables.md, "Views section 5 must create"): their meanings are the product's. */
export const BUILT_IN_CLASSES: readonly string[] = [
  'PHANTOM',
  'RELAYED',
  'OUT_OF_CONTEXT',
  'GROUNDED_EXPECTED',
  'GROUNDED_OTHER',
  'NOT_JUDGED',
  'AMOUNT_SUPPORTED',
  'AMOUNT_NOT_SERVED',
  'AMOUNT_INVENTED',
  'REFUSAL_CORRECT',
  'REFUSAL_WRONG',
  'ANSWERED_NEGATIVE',
  'ANSWERED_POSITIVE',
  'TRUNCATED',
];

/** A class the study declares beyond the built-in set, with the meaning the report shows. */
export interface StudyClass {
  name: string;
  meaning: string;
}

/** The study's own classes, in code-point order of their names (none for a study/1, which cannot declare them). */
export function studyClassesOf(study: DeclaresClasses): StudyClass[] {
  const declared = study.format === 'prereg.study/2' ? (study.classes ?? {}) : {};
  return Object.keys(declared)
    .sort()
    .map((name) => ({ name, meaning: declared[name]! }));
}

/** Every class value section 5 may produce in this study: the built-in set, then the study's own. */
export function classValuesOf(study: DeclaresClasses): string[] {
  return [...BUILT_IN_CLASSES, ...studyClassesOf(study).map((c) => c.name)];
}

/** What the schema cannot say: a declared class that is a built-in one would give it a second meaning. */
export function classDeclarationProblems(classes: Readonly<Record<string, string>>): string[] {
  return Object.keys(classes)
    .filter((name) => BUILT_IN_CLASSES.includes(name))
    .map(
      (name) =>
        `/classes/${name} is a built-in class: its meaning is the product's (docs/tables.md); declare only classes of the study's own`,
    );
}
