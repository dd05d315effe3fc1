// Compile-time check that a TypeScript type has the shape of a JSON Schema (imported as a module,
// formats/schemas/): at every object the schema describes, the same property names, the same
// required ones, and so on down through properties, array items and local $refs. Value types are
// left to ajv; what this catches is a field added, renamed or made optional on one side only.
// Used by test/formats/schema-types.test.ts: `const ok: SchemaShapeProblems<T, typeof schema> = 'none'`.

type Defs<S> = S extends { $defs: infer D } ? D : {};

/**
 * The schema with a local `$ref` ("#/$defs/name") followed, and the first allOf/anyOf/oneOf branch that describes an object.
 * The referring schema's words are dropped: two different `description` literals would make the
 * intersection `never`, and the check on it vacuous.
 */
type Resolved<S, D> = S extends { $ref: `#/$defs/${infer N}` }
  ? N extends keyof D
    ? Resolved<D[N] & Omit<S, '$ref' | 'description' | 'title'>, D>
    : S
  : S;

type Properties<S> = S extends { properties: infer P } ? P : never;
type SchemaRequired<S> = S extends { required: readonly (infer R)[] } ? R & string : never;

/** The keys of T that may be absent. */
type OptionalKeys<T> = { [K in keyof T]-?: {} extends Pick<T, K> ? K : never }[keyof T];
type RequiredKeys<T> = Exclude<keyof T, OptionalKeys<T>>;

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

/**
 * The same names; where the schema admits other members (no `additionalProperties: false`, as the
 * proof's, whose allOf branches add members by spec_version) the type may name more.
 */
type KeysAgree<TypeKeys, SchemaKeys, S> = S extends { additionalProperties: false }
  ? Same<TypeKeys, SchemaKeys>
  : [SchemaKeys] extends [TypeKeys]
    ? true
    : false;

type Element<T> = T extends readonly (infer E)[] ? E : never;

/**
 * 'none' when T has the schema's shape; otherwise a description of the first difference found,
 * with its path, which the compiler prints.
 */
export type SchemaShapeProblems<T, S, D = Defs<S>, Path extends string = ''> = ShapeAt<NonNullable<T>, Resolved<S, D>, D, Path>;

type ShapeAt<T, S, D, Path extends string> = [Properties<S>] extends [never]
  ? S extends { items: infer I }
    ? T extends readonly unknown[]
      ? SchemaShapeProblems<Element<T>, I, D, `${Path}[]`>
      : 'none'
    : 'none'
  : KeysAgree<keyof T & string, keyof Properties<S> & string, S> extends false
    ? {
        at: Path;
        only_in_type: Exclude<keyof T & string, keyof Properties<S>>;
        only_in_schema: Exclude<keyof Properties<S> & string, keyof T>;
      }
    : Same<RequiredKeys<T> & string, SchemaRequired<S>> extends false
      ? {
          at: Path;
          required_in_type_only: Exclude<RequiredKeys<T> & string, SchemaRequired<S>>;
          required_in_schema_only: Exclude<SchemaRequired<S>, RequiredKeys<T>>;
        }
      : FirstProblem<{ [K in keyof T & keyof Properties<S> & string]: SchemaShapeProblems<T[K], Properties<S>[K], D, `${Path}.${K}`> }>;

type FirstProblem<M> = Exclude<M[keyof M], 'none'> extends infer P ? ([P] extends [never] ? 'none' : P) : never;
