/**
 * Typed selections: the type of a representation after `fields` and `expand`, computed from the
 * selection strings at compile time. `fields: ["title", "author(name)"]` gives { meta, title,
 * author: { meta, name } }, `fields: ["address(city)"]` { meta, address: { city } } (inside a plain
 * object its declared properties); a name that is not a field is a compile error.
 */

/** The meta object of every representation and link. */
export interface Meta {
  /** Absolute URL of the resource. */
  href: string;
  /** Vendor media type of the representation. */
  mediaType: string;
}

/** A link to an instance, not expanded. */
export interface Link {
  meta: Meta;
}

/** A link to a collection, not expanded. */
export interface CollectionLink {
  meta: Meta;
}

/** A link as written in a request body. */
export interface LinkInput {
  meta: { href: string; mediaType?: string };
}

/** A page of a collection. */
export interface Page<T> {
  meta: Meta;
  offset: number;
  limit: number;
  /** Size of the whole collection. */
  size: number;
  items: T[];
}

/** Fields every representation has (a resource whose ids are numbers, or that documents them, says so in its fields). */
export interface ServerFields {
  meta: Meta;
  /** Id assigned by the server. */
  id: string;
  /** When the instance was created (ISO 8601). */
  createdAt: string;
  /** When the instance was last changed (ISO 8601). */
  modifiedAt: string;
}

/**
 * What the client knows of one resource: its plain fields, and its links by kind with their targets.
 * A generated `Registry` maps every collection name to one of these.
 */
export interface ResourceShape {
  fields: object;
  links: { [name: string]: { target: string; required: boolean; nullable?: true } };
  collections: { [name: string]: { target: string } };
}

type Registry = { [collection: string]: ResourceShape };

/** Splits a selection list at top-level commas: "a,b(c,d)" → ["a", "b(c,d)"]. */
export type SplitTop<S extends string, Acc extends string = "", Depth extends unknown[] = [], Out extends string[] = []> =
  S extends `${infer C}${infer Rest}`
    ? C extends "("
      ? SplitTop<Rest, `${Acc}${C}`, [...Depth, 0], Out>
      : C extends ")"
        ? SplitTop<Rest, `${Acc}${C}`, Depth extends [unknown, ...infer D] ? D : [], Out>
        : C extends ","
          ? Depth extends []
            ? SplitTop<Rest, "", [], [...Out, Trim<Acc>]>
            : SplitTop<Rest, `${Acc}${C}`, Depth, Out>
          : SplitTop<Rest, `${Acc}${C}`, Depth, Out>
    : Acc extends ""
      ? Out
      : [...Out, Trim<Acc>];

type Trim<S extends string> = S extends ` ${infer R}` ? Trim<R> : S extends `${infer R} ` ? Trim<R> : S;

/** The name of one selection item: "author(name)" → "author". */
export type HeadOf<S extends string> = S extends `${infer N}(${string}` ? Trim<N> : Trim<S>;
/** The nested list of one item: "author(name,born)" → "name,born"; never when there is none. */
export type InnerOf<S extends string> = S extends `${string}(${infer I})` ? I : never;

/** Every selection item of a list of strings (each may itself hold commas). */
type Items<L extends readonly string[]> = L extends readonly [infer H extends string, ...infer T extends readonly string[]]
  ? [...SplitTop<H>, ...Items<T>]
  : L extends readonly [] ? [] : SplitTop<L[number]>;

/** The inner selection list given for `name` in a list of items (unioned if it appears twice). */
type InnerFor<L extends readonly string[], Name extends string> = {
  [I in keyof L]: L[I] extends string ? (HeadOf<L[I]> extends Name ? InnerOf<L[I]> : never) : never;
}[number];

type HeadsOf<L extends readonly string[]> = { [I in keyof L]: L[I] extends string ? HeadOf<L[I]> : never }[number];

type Shape<R extends Registry, C> = C extends keyof R ? R[C] : never;
/** ServerFields as a resource has them: the ones its fields declare (a sequence's numeric id, documented ones) in their place. */
type ServerOf<R extends Registry, C> = Omit<ServerFields, KnownKeys<Shape<R, C>["fields"]>>;
type FieldNames<R extends Registry, C> = keyof ServerFields | keyof Shape<R, C>["fields"] | keyof Shape<R, C>["links"] | keyof Shape<R, C>["collections"];
type LinkNames<R extends Registry, C> = keyof Shape<R, C>["links"] | keyof Shape<R, C>["collections"];

/** True when every item of a selection list names a field (or, in expand mode, a link) of C, recursively. */
export type IsValid<R extends Registry, C, L extends readonly string[], Mode extends "fields" | "expand"> =
  Items<L> extends infer Its extends string[]
    ? { [I in keyof Its]: ValidItem<R, C, Its[I], Mode> }[number] extends true
      ? true
      : false
    : false;

type ValidItem<R extends Registry, C, Item, Mode extends "fields" | "expand"> = Item extends string
  ? HeadOf<Item> extends (Mode extends "fields" ? FieldNames<R, C> : LinkNames<R, C>)
    ? [InnerOf<Item>] extends [never]
      ? true
      : HeadOf<Item> extends LinkNames<R, C>
        ? IsValid<R, TargetOf<R, C, HeadOf<Item>>, [InnerOf<Item>], Mode>
        : Mode extends "fields"
          ? HeadOf<Item> extends keyof Shape<R, C>["fields"]
            ? ValidInside<Shape<R, C>["fields"][HeadOf<Item>], InnerOf<Item>>
            : false
          : false
    : false
  : false;

/** The declared keys of an object type (an index signature such as `[k: string]: unknown` names none). */
type KnownKeys<T> = keyof { [K in keyof T as string extends K ? never : number extends K ? never : symbol extends K ? never : K]: 0 };

/** The plain object a field's value is (null, undefined, arrays and scalars left out); never when it is none. */
type ObjectOf<V> = Exclude<NonNullable<V>, readonly unknown[]> extends infer O ? (O extends object ? O : never) : never;

/** True when the selection list `Inner` names declared properties of the plain object a value `V` is, recursively. */
type ValidInside<V, Inner extends string> = [ObjectOf<V>] extends [never] ? false : IsValidObject<ObjectOf<V>, [Inner]>;

type IsValidObject<T, L extends readonly string[]> =
  Items<L> extends infer Its extends string[]
    ? { [I in keyof Its]: ValidObjectItem<T, Its[I]> }[number] extends true
      ? true
      : false
    : false;

type ValidObjectItem<T, Item> = Item extends string
  ? HeadOf<Item> extends KnownKeys<T>
    ? [InnerOf<Item>] extends [never]
      ? true
      : ValidInside<T[HeadOf<Item> & keyof T], InnerOf<Item>>
    : false
  : false;

/** A plain object value `V` with only the properties the selection items `L` name (null and undefined kept as they are). */
type SelectedObject<V, L extends readonly string[]> = V extends null | undefined
  ? V
  : V extends readonly unknown[]
    ? V
    : V extends object
      ? Simplify<{
          [P in HeadsOf<L> & KnownKeys<V>]: [InnerFor<L, P & string>] extends [never]
            ? V[P & keyof V]
            : SelectedObject<V[P & keyof V], Items<[InnerFor<L, P & string>]>>;
        }>
      : V;

type TargetOf<R extends Registry, C, N> = N extends keyof Shape<R, C>["links"]
  ? Shape<R, C>["links"][N] extends { target: infer T } ? T : never
  : N extends keyof Shape<R, C>["collections"]
    ? Shape<R, C>["collections"][N] extends { target: infer T } ? T : never
    : never;

/** A selection list that type-checks only when valid: invalid lists become `never` (a compile error). */
export type Checked<R extends Registry, C, L extends readonly string[], Mode extends "fields" | "expand"> = IsValid<R, C, L, Mode> extends true ? L : never;

type Simplify<T> = { [K in keyof T]: T[K] } & {};

/** The full representation of C with the links named in the expand list E inlined. */
export type Expanded<R extends Registry, C, E extends readonly string[] = []> = Simplify<
  ServerOf<R, C> &
    Shape<R, C>["fields"] & {
      [K in keyof Shape<R, C>["links"] as Shape<R, C>["links"][K]["required"] extends true ? K : never]: LinkValue<R, C, K, Items<E>> | NullIf<Shape<R, C>["links"][K]>;
    } & {
      [K in keyof Shape<R, C>["links"] as Shape<R, C>["links"][K]["required"] extends true ? never : K]?: LinkValue<R, C, K, Items<E>> | NullIf<Shape<R, C>["links"][K]>;
    } & { [K in keyof Shape<R, C>["collections"]]: CollectionValue<R, C, K, Items<E>> }
>;

/** null for a nullable link (an instance without a target shows null), nothing otherwise. */
type NullIf<L> = L extends { nullable: true } ? null : never;

type LinkValue<R extends Registry, C, K, E extends readonly string[]> = K extends HeadsOf<E>
  ? Expanded<R, TargetOf<R, C, K>, InnerList<E, K & string>>
  : Link;

type CollectionValue<R extends Registry, C, K, E extends readonly string[]> = K extends HeadsOf<E>
  ? Page<Expanded<R, TargetOf<R, C, K>, InnerList<E, K & string>>>
  : CollectionLink;

type InnerList<E extends readonly string[], K extends string> = [InnerFor<E, K>] extends [never] ? [] : [InnerFor<E, K>];

/**
 * The representation of C returned for fields F and expand E: `meta` plus exactly the selected
 * fields; a nested selection inside a link expands it.
 */
export type Selected<R extends Registry, C, F extends readonly string[] | undefined, E extends readonly string[] | undefined> = [F] extends [
  readonly string[],
]
  ? Simplify<{ meta: Meta } & SelectFields<R, C, ItemsOrNone<F>, ItemsOrNone<E>>>
  : Expanded<R, C, [E] extends [readonly string[]] ? E : []>;

type ItemsOrNone<L> = L extends readonly string[] ? Items<L> : [];

type SelectFields<R extends Registry, C, F extends readonly string[], E extends readonly string[]> = {
  [K in HeadsOf<F> & FieldNames<R, C>]: K extends keyof ServerOf<R, C>
    ? ServerOf<R, C>[K]
    : K extends keyof Shape<R, C>["links"]
      ? [InnerFor<F, K>] extends [never]
        ? LinkValue<R, C, K, E> | NullIf<Shape<R, C>["links"][K]>
        : Selected<R, TargetOf<R, C, K>, [InnerFor<F, K>], InnerList<E, K & string>> | NullIf<Shape<R, C>["links"][K]>
      : K extends keyof Shape<R, C>["collections"]
        ? [InnerFor<F, K>] extends [never]
          ? CollectionValue<R, C, K, E>
          : Page<Selected<R, TargetOf<R, C, K>, [InnerFor<F, K>], InnerList<E, K & string>>>
        : K extends keyof Shape<R, C>["fields"]
          ? [InnerFor<F, K>] extends [never]
            ? Shape<R, C>["fields"][K]
            : SelectedObject<Shape<R, C>["fields"][K], Items<[InnerFor<F, K>]>>
          : never;
};
