/**
 * Request validation with ajv: bodies strictly (no coercion, no silent removal of unknown properties),
 * action query strings with scalar coercion. Failures become catalog errors. The validators are those
 * resourcery compiled at generate time (src/generated/validators.js, ajv's standalone code) when they were
 * compiled from this spec's schemas; otherwise (a spec written or changed by hand) they are compiled once
 * at start-up.
 */
import type { Ajv, ErrorObject, ValidateFunction } from "ajv";
import { linearRegExp } from "./ajv-settings.js";
import { SERVER_OWNED as SERVER_OWNED_NAMES, SHARED_SCHEMAS_ID } from "./conventions.js";
import { ApiError, entry, type Catalog } from "./errors.js";
import { hrefOf } from "./links.js";
import type { FieldSpec, JsonSchema, ServiceSpec } from "./spec.js";
import { compileDistinct, validatorAjvs, validatorSchemas, validatorsFingerprint, type ValidatorSchemas } from "./validator-schemas.js";

export { linearRegExp } from "./ajv-settings.js";
export { acceptedBodySchema } from "./validator-schemas.js";

/** Properties the server owns; sent in a body they are a readOnlyProperty error, not an unknown one. */
export const SERVER_OWNED: ReadonlySet<string> = new Set(SERVER_OWNED_NAMES);

/** Compiled validators of one service. */
export interface Validators {
  /**
   * Validates a create/replace body of a collection (defaults applied); throws ApiError. `patch`, for the
   * result of a merge patch, is the patch itself: a required property it removed with null is then a
   * 400 missingProperty whose dev says that it cannot be null (in a merge patch null removes a property).
   */
  body(collection: string, value: unknown, readOnly: ReadonlySet<string>, patch?: unknown): void;
  /** Validates and coerces action query parameters; returns them typed; throws ApiError. */
  query(action: string, value: Record<string, unknown>): Record<string, unknown>;
  /** Where the validators come from: precompiled at generate time, or compiled at start-up. */
  readonly origin: "precompiled" | "compiled";
}

/**
 * Validators compiled at generate time, as src/generated/validators.js holds them: by collection and by
 * action, with the fingerprint of the schemas they were compiled from (validator-schemas.ts).
 */
export interface PrecompiledValidators {
  readonly fingerprint: string;
  readonly bodies: Readonly<Record<string, ValidateFunction>>;
  readonly queries: Readonly<Record<string, ValidateFunction>>;
}

/** What src/generated/validators.js exports. */
interface ValidatorsModule {
  readonly fingerprint: string;
  createValidators(engine: typeof linearRegExp): Omit<PrecompiledValidators, "fingerprint">;
}

/**
 * Loads the validators resourcery precompiled into a package (src/generated/validators.js, at `file`).
 * A module that is missing or of another shape is an error: the package is not whole, and regenerating it
 * makes it so.
 * @example await loadValidators(new URL("../../../src/generated/validators.js", import.meta.url))
 */
export async function loadValidators(file: URL): Promise<PrecompiledValidators> {
  let module: Partial<ValidatorsModule>;
  try {
    module = (await import(file.href)) as Partial<ValidatorsModule>;
  } catch (e) {
    throw new Error(`the precompiled validators ${file.pathname} cannot be loaded (regenerate the package with resourcery generate): ${e instanceof Error ? e.message : String(e)}`, { cause: e });
  }
  if (typeof module.fingerprint !== "string" || typeof module.createValidators !== "function") {
    throw new Error(`${file.pathname} does not hold precompiled validators: regenerate the package with resourcery generate`);
  }
  return { fingerprint: module.fingerprint, ...module.createValidators(linearRegExp) };
}

/** A link field of a resource, as the error of a wrong value explains it. */
interface LinkField {
  readonly field: FieldSpec;
  /** The href form of the target's instances: "https://api.example.com/v1/authors/<id>". */
  readonly href: string;
}

/**
 * The validators of every body and query schema of the service: `precompiled` when it was compiled from
 * this spec's schemas (its fingerprint says so), else compiled now, once. `baseUrl` (the service's,
 * BASE_URL when set) is the one the errors of wrong link values show hrefs under.
 */
export function compileValidators(spec: ServiceSpec, catalog: Catalog, baseUrl: string = spec.baseUrl, precompiled?: PrecompiledValidators): Validators {
  const schemas = validatorSchemas(spec);
  const usable = precompiled !== undefined && precompiled.fingerprint === validatorsFingerprint(schemas);
  const { bodyFns, queryFns } = usable ? fromPrecompiled(precompiled, spec, schemas) : compileNow(schemas);
  const bodySchemaOf = new Map(schemas.bodies);
  // The branch of a union a failing body meant is validated alone, by an ajv made on the first such failure.
  let branchAjv: Ajv | undefined;
  const forBranches = (): Ajv => (branchAjv ??= validatorAjvs(schemas).bodies);
  const links = new Map<string, ReadonlyMap<string, LinkField>>();
  for (const r of spec.resources) {
    const own = new Map<string, LinkField>();
    for (const f of r.fields) if (f.link !== undefined) own.set(f.name, { field: f, href: `${hrefOf(baseUrl, f.link.target)}/<id>` });
    links.set(r.collection, own);
  }

  return {
    origin: usable ? "precompiled" : "compiled",
    body(collection, value, readOnly, patch) {
      const fn = bodyFns.get(collection)!;
      if (value === null || typeof value !== "object" || Array.isArray(value)) {
        throw new ApiError(entry(catalog, "invalidProperty"), "", { dev: "The body must be a JSON object." });
      }
      for (const key of Object.keys(value)) {
        if (SERVER_OWNED.has(key) || readOnly.has(key)) {
          throw new ApiError(entry(catalog, "readOnlyProperty"), key, { dev: `"${key}" is set by the server; remove it from the body.` });
        }
      }
      if (!fn(value)) {
        const relevant = relevantError(fn.errors, taggedBranch(forBranches, spec, bodySchemaOf.get(collection)!, value));
        if (relevant?.keyword === "additionalProperties") throw unknownProperties(fn, value, relevant, catalog);
        throw bodyError(relevant, catalog, links.get(collection) ?? links.get(collection.slice(0, collection.lastIndexOf("@")))!, patch);
      }
    },
    query(action, value) {
      const fn = queryFns.get(action)!;
      const copy: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value)) {
        Object.defineProperty(copy, k, { value: Array.isArray(v) ? v[v.length - 1] : v, enumerable: true, writable: true, configurable: true });
      }
      if (!fn(copy)) throw queryError(relevantError(fn.errors), catalog);
      return copy;
    },
  };
}

/**
 * The error that says best what is wrong with a value. ajv stops at the first error, except in a union
 * (anyOf/oneOf), where it lists the first error of each branch before the union's own "must match a schema":
 * the first of those is the first branch's, whichever branch the client meant. A branch that failed on a
 * tag (a `const` or `enum`, as `"type": "card"` tells a card from a bank account) is not the one meant; of
 * the others, the error deepest in the value is of the branch that matched the most. When every branch
 * failed on its tag at one place, the answer is the tag's allowed values together.
 * @example a oneOf [card (type: "card", number), bank (type: "bank", iban)] and { type: "bank", iban: 5 }
 *   → the error at iban, not "type must be card"
 */
export function relevantError(errors: readonly ErrorObject[] | null | undefined, tagged?: (union: ErrorObject) => ErrorObject | undefined): ErrorObject | undefined {
  const first = errors?.[0];
  const unionAt = errors?.findIndex((e) => e.keyword === "anyOf" || e.keyword === "oneOf") ?? -1;
  if (errors == null || unionAt <= 0) return first;
  const union = errors[unionAt]!;
  const meant = tagged?.(union);
  if (meant !== undefined) return meant;
  const branches = errors.slice(0, unionAt).filter((e) => e.instancePath === union.instancePath || e.instancePath.startsWith(`${union.instancePath}/`));
  const isTag = (e: ErrorObject) => (e.keyword === "const" || e.keyword === "enum") && e.instancePath !== union.instancePath;
  const others = branches.filter((e) => !isTag(e));
  if (others.length > 0) return others.reduce((best, e) => (depth(e) > depth(best) ? e : best));
  const tags = branches.filter(isTag);
  if (tags.length === 0 || tags.some((e) => e.instancePath !== tags[0]!.instancePath)) return union;
  const allowed = tags.flatMap((e) => (e.keyword === "const" ? [(e.params as { allowedValue: unknown }).allowedValue] : (e.params as { allowedValues: unknown[] }).allowedValues));
  return { ...tags[0]!, keyword: "enum", params: { allowedValues: [...new Set(allowed)] } };
}

/** Validators of union branches compiled when a body first fails one (an error path: start-up compiles none). */
const branchValidators = new WeakMap<object, ValidateFunction>();

/**
 * For the union an error names, the first error of the branch the value's tag chooses: when every branch of
 * the union (at the error's place in `schema`, followed through properties, items and the shared schemas)
 * gives one property a `const` (or a one-value `enum`), the value's own tag names its branch, which is
 * validated alone (compiled on first use); a tag that names no branch is answered with the tags there are.
 * Undefined when there is no such tag or the place cannot be followed (a union or a pattern on the way).
 * @example oneOf [card (type const "card"), bank (type const "bank")] and { type: "bank" } → bank's "lacks iban"
 */
function taggedBranch(ajvFor: () => Ajv, spec: ServiceSpec, schema: JsonSchema, value: unknown): (union: ErrorObject) => ErrorObject | undefined {
  const deref = (s: unknown): Record<string, unknown> | undefined => {
    for (let hops = 0; hops < 32; hops++) {
      if (s === null || typeof s !== "object" || Array.isArray(s)) return undefined;
      const ref = (s as { $ref?: unknown }).$ref;
      if (typeof ref !== "string") return s as Record<string, unknown>;
      const name = ref.startsWith(`${SHARED_SCHEMAS_ID}#/$defs/`) ? ref.slice(SHARED_SCHEMAS_ID.length + 8) : undefined;
      const schemas = spec.schemas as Record<string, unknown> | undefined;
      s = name !== undefined && schemas !== undefined && Object.hasOwn(schemas, name) ? schemas[name] : undefined;
    }
    return undefined;
  };
  return (union) => {
    let node = deref(schema);
    let data: unknown = value;
    for (const raw of union.instancePath.split("/").slice(1)) {
      const token = raw.replace(/~1/g, "/").replace(/~0/g, "~");
      if (node === undefined || data === null || typeof data !== "object") return undefined;
      const properties = node.properties as Record<string, unknown> | undefined;
      node = Array.isArray(data) ? deref(node.items) : properties !== undefined && Object.hasOwn(properties, token) ? deref(properties[token]) : undefined;
      data = (data as Record<string, unknown>)[token];
    }
    const branches = node?.[union.keyword];
    if (!Array.isArray(branches) || data === null || typeof data !== "object" || Array.isArray(data)) return undefined;
    const shapes = branches.map(deref);
    // OpenAPI's discriminator: the tag's value names its branch through the mapping (to a shared schema).
    const discriminator = node?.discriminator as { propertyName?: unknown; mapping?: Record<string, unknown> } | undefined;
    const tagName = discriminator?.propertyName;
    if (typeof tagName === "string" && discriminator?.mapping !== undefined && Object.hasOwn(data, tagName)) {
      const tag = (data as Record<string, unknown>)[tagName];
      const to = typeof tag === "string" && Object.hasOwn(discriminator.mapping, tag) ? discriminator.mapping[tag] : undefined;
      const name = typeof to === "string" ? to.slice(to.lastIndexOf("/") + 1) : undefined;
      const chosen = branches.findIndex((b) => {
        const ref = (b as { $ref?: unknown } | null)?.$ref;
        return name !== undefined && typeof ref === "string" && ref.slice(ref.lastIndexOf("/") + 1) === name;
      });
      if (chosen >= 0) return branchError(ajvFor, branches[chosen] as object, data, union);
      if (to === undefined) {
        const at = `${union.instancePath}/${tagName.replace(/~/g, "~0").replace(/\//g, "~1")}`;
        return { ...union, keyword: "enum", instancePath: at, params: { allowedValues: Object.keys(discriminator.mapping) }, message: "must be equal to one of the allowed values" };
      }
    }
    const tagOf = (shape: Record<string, unknown> | undefined, name: string): unknown[] | undefined => {
      const p = deref((shape?.properties as Record<string, unknown> | undefined)?.[name]);
      if (p === undefined) return undefined;
      if (Object.hasOwn(p, "const")) return [p.const];
      return Array.isArray(p.enum) && p.enum.length === 1 ? p.enum : undefined;
    };
    const first = shapes[0]?.properties;
    if (first === null || typeof first !== "object") return undefined;
    for (const name of Object.keys(first)) {
      const tags = shapes.map((shape) => tagOf(shape, name));
      if (tags.some((t) => t === undefined) || !Object.hasOwn(data, name)) continue;
      const chosen = tags.findIndex((t) => t!.includes((data as Record<string, unknown>)[name]));
      if (chosen < 0) {
        // A tag no branch has: what the tag may be is the answer.
        const allowedValues = [...new Set(tags.flat())];
        const at = `${union.instancePath}/${name.replace(/~/g, "~0").replace(/\//g, "~1")}`;
        return { ...union, keyword: "enum", instancePath: at, params: { allowedValues }, message: "must be equal to one of the allowed values" };
      }
      return branchError(ajvFor, branches[chosen] as object, data, union);
    }
    return undefined;
  };
}

/** The first error of `data` against one branch of `union` (compiled on first use), at its place in the body. */
function branchError(ajvFor: () => Ajv, branch: object, data: unknown, union: ErrorObject): ErrorObject | undefined {
  let fn = branchValidators.get(branch);
  if (fn === undefined) {
    try {
      fn = ajvFor().compile(branch);
    } catch {
      return undefined;
    }
    branchValidators.set(branch, fn);
  }
  if (fn(data)) return undefined;
  const e = fn.errors?.[0];
  return e === undefined ? undefined : { ...e, instancePath: union.instancePath + e.instancePath };
}

/** How deep in the value an error is: the number of steps of its instancePath. */
function depth(e: ErrorObject): number {
  return e.instancePath === "" ? 0 : e.instancePath.split("/").length - 1;
}

/** Most unknown properties one answer names: a body of thousands names its first ones, and says there are more. */
export const MAX_UNKNOWN_NAMED = 20;

/**
 * One unknownProperty answer for every unknown property of the object `first` found one in, so that a
 * body with six typos takes one round trip, not six. Only a refused body pays for it: ajv stops at the
 * first error (the valid path stays as fast as it is), so the others are found by validating a copy
 * again without each one found, at most MAX_UNKNOWN_NAMED times. `property` is the first one in the
 * body (the one a single error names); `dev` names them all, sorted.
 * @example a body { title, colour: 1, size: 2 } → property "colour", dev '"colour" and "size" are not properties …'
 */
function unknownProperties(fn: ValidateFunction, value: object, first: ErrorObject, catalog: Catalog): ApiError {
  const names = [propertyOf(first)];
  const copy = structuredClone(value);
  const holder = valueAt(copy, first.instancePath);
  let more = false;
  for (let error = first; holder !== undefined; ) {
    const key = String((error.params as { additionalProperty?: unknown }).additionalProperty);
    // Not there to remove (a schema that reads the body elsewhere): validating again would find it again.
    if (!Object.hasOwn(holder, key)) break;
    delete holder[key];
    if (fn(copy)) break;
    const next = fn.errors?.[0];
    if (next?.keyword !== "additionalProperties" || next.instancePath !== first.instancePath) break;
    if (names.length === MAX_UNKNOWN_NAMED) {
      more = true;
      break;
    }
    names.push(propertyOf(next));
    error = next;
  }
  const listed = [...names].sort().map((n) => `"${n}"`);
  const dev =
    listed.length === 1 && !more
      ? `${listed[0]} is not a property of this resource; remove it or correct its spelling.`
      : `${more ? `${listed.join(", ")} and more` : `${listed.slice(0, -1).join(", ")} and ${listed.at(-1)}`} are not properties of this resource; remove them or correct their spelling.`;
  return new ApiError(entry(catalog, "unknownProperty"), names[0], { dev });
}

/** The object at an ajv instancePath ("/address", "/tags/0") of a value, if it is one. */
function valueAt(value: unknown, instancePath: string): Record<string, unknown> | undefined {
  let v = value;
  for (const token of instancePath.split("/").slice(1)) {
    if (v === null || typeof v !== "object") return undefined;
    v = (v as Record<string, unknown>)[token.replace(/~1/g, "/").replace(/~0/g, "~")];
  }
  return v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

/** The dotted property path of an ajv error ("address.city", "tags.0"). */
function propertyOf(e: ErrorObject): string {
  const path = e.instancePath
    .split("/")
    .slice(1)
    .map((t) => t.replace(/~1/g, "/").replace(/~0/g, "~"));
  if (e.keyword === "required") path.push(String((e.params as { missingProperty: string }).missingProperty));
  if (e.keyword === "additionalProperties") path.push(String((e.params as { additionalProperty: string }).additionalProperty));
  return path.join(".");
}

/** An example of each format the generator knows, shown when a value does not match it. */
const FORMAT_EXAMPLES: Readonly<Record<string, string>> = {
  "date-time": "2024-05-01T12:00:00Z",
  date: "2024-05-01",
  time: "12:00:00Z",
  email: "ann@example.com",
  uri: "https://example.com/page",
  uuid: "0f8fad5b-d9cb-469f-a165-70867728950e",
  ipv4: "192.0.2.1",
  ipv6: "2001:db8::1",
  hostname: "example.com",
};

/** JSON types in words: "integer" → "an integer". */
const TYPE_WORDS: Readonly<Record<string, string>> = {
  string: "a string",
  number: "a number",
  integer: "an integer",
  boolean: "true or false",
  object: "an object",
  array: "an array",
  null: "null",
};

/**
 * What is wrong with the value, in words: the allowed values of an enum, the format with an example,
 * the type (in a body, where nothing is converted, with how to send it); else ajv's own message.
 * @example whatIsWrong(an enum error at "status", …) → 'status must be one of "draft", "published"'
 */
function whatIsWrong(e: ErrorObject, property: string, where: "body" | "query"): string {
  const subject = property || "the value";
  const list = (values: readonly unknown[]) => values.map((v) => JSON.stringify(v)).join(", ");
  switch (e.keyword) {
    case "enum":
      return `${subject} must be one of ${list((e.params as { allowedValues: readonly unknown[] }).allowedValues)}`;
    case "const":
      return `${subject} must be ${list([(e.params as { allowedValue: unknown }).allowedValue])}`;
    case "format": {
      const format = String((e.params as { format: string }).format);
      const example = FORMAT_EXAMPLES[format];
      return `${subject} must be a valid ${format}${example === undefined ? "" : ` such as "${example}"`}`;
    }
    case "type": {
      const types = String((e.params as { type: string | string[] }).type).split(",");
      const words = `${subject} must be ${types.map((t) => TYPE_WORDS[t] ?? t).join(" or ")}`;
      const scalar = types.some((t) => t === "number" || t === "integer" || t === "boolean");
      return where === "body" && scalar ? `${words}. Values are never converted: send 12 and true, not "12" and "true"` : words;
    }
    case "anyOf":
    case "oneOf": {
      const passing = (e.params as { passingSchemas?: unknown }).passingSchemas;
      return Array.isArray(passing)
        ? `${subject} fits more than one of the shapes it may take (branches ${passing.join(" and ")} of its oneOf), and must fit exactly one`
        : `${subject} fits none of the shapes it may take (its ${e.keyword}); the API reference shows them`;
    }
    default:
      return `${subject} ${e.message ?? "is not valid"}`;
  }
}

/** The 400 of a query string that fails its action's schema. */
function queryError(e: ErrorObject | undefined, catalog: Catalog): ApiError {
  if (!e) return new ApiError(entry(catalog, "invalidParameter"));
  const property = propertyOf(e);
  return new ApiError(entry(catalog, "invalidParameter"), property, { dev: `Query parameter ${whatIsWrong(e, property, "query")}.` });
}

/**
 * The 400 of a body that fails its schema. A wrong value of a link says what a link looks like, with the
 * href form of the link's target; a required property that `patch` (a merge patch) set to null says that
 * it cannot be null.
 */
function bodyError(e: ErrorObject | undefined, catalog: Catalog, links: ReadonlyMap<string, LinkField>, patch: unknown): ApiError {
  if (!e) return new ApiError(entry(catalog, "invalidProperty"));
  const property = propertyOf(e);
  // The body's own property the error is in (or, at the root, the one it lacks): a link's is explained with the link's form.
  const top = e.instancePath === "" ? (e.keyword === "required" ? String((e.params as { missingProperty: string }).missingProperty) : "") : e.instancePath.split("/")[1]!.replace(/~1/g, "/").replace(/~0/g, "~");
  const link = links.get(top);
  const advice = link === undefined ? "" : ` ${linkForm(link)}`;
  switch (e.keyword) {
    case "required": {
      if (patch !== undefined && nullAt(patch, property)) {
        return new ApiError(entry(catalog, "missingProperty"), property, {
          dev:
            `"${property}" is required and cannot be null. In a merge patch null removes a property (RFC 7396), and this one may not be removed: ` +
            `send a value, or leave "${property}" out of the patch to keep it as it is.`,
        });
      }
      return new ApiError(entry(catalog, "missingProperty"), property, { dev: `The body lacks "${property}", which is required.${advice}` });
    }
    case "additionalProperties":
      return new ApiError(entry(catalog, "unknownProperty"), property, { dev: `"${property}" is not a property of this resource; remove it or correct its spelling.` });
    default:
      return new ApiError(entry(catalog, "invalidProperty"), property, { dev: `${whatIsWrong(e, property, "body")}.${advice}` });
  }
}

/**
 * What a link field takes, with its target's href form.
 * @example 'A link is written { "meta": { "href": "https://api.example.com/v1/authors/<id>" } }.'
 */
function linkForm({ field, href }: LinkField): string {
  const one = `{ "meta": { "href": "${href}" } }`;
  if (field.kind === "links") return `"${field.name}" is a list of links, written [${one}, …].`;
  return `"${field.name}" is a link, written ${one}${field.nullable === true ? ", or null" : ""}.`;
}

/** True when `patch` holds null at the dotted `property` path ("address.city"). */
function nullAt(patch: unknown, property: string): boolean {
  let at: unknown = patch;
  for (const key of property.split(".")) {
    if (at === null || typeof at !== "object" || Array.isArray(at) || !Object.prototype.hasOwnProperty.call(at, key)) return false;
    at = (at as Record<string, unknown>)[key];
  }
  return at === null;
}

/** The validators of each collection and action. */
interface ValidatorFns {
  readonly bodyFns: ReadonlyMap<string, ValidateFunction>;
  readonly queryFns: ReadonlyMap<string, ValidateFunction>;
}

/** The precompiled validators by collection and action (own properties only: the names are the spec's). */
function fromPrecompiled(precompiled: PrecompiledValidators, spec: ServiceSpec, schemas: ValidatorSchemas): ValidatorFns {
  const pick = (from: Readonly<Record<string, ValidateFunction>>, names: readonly string[], what: string) => {
    const out = new Map<string, ValidateFunction>();
    for (const name of names) {
      const fn = Object.hasOwn(from, name) ? from[name] : undefined;
      // Cannot happen with a module compiled from these schemas (the fingerprint matched): say so if it does.
      if (typeof fn !== "function") throw new Error(`the precompiled validators lack ${what} ${name}: regenerate the package with resourcery generate`);
      out.set(name, fn);
    }
    return out;
  };
  return {
    bodyFns: pick(precompiled.bodies, schemas.bodies.map(([name]) => name), "the body validator of"),
    queryFns: pick(precompiled.queries, spec.actions.map((a) => a.name), "the query validator of the action"),
  };
}

/** Every validator compiled now: bodies in one ajv instance, action queries (with coercion) in another; equal schemas once. */
function compileNow(schemas: ValidatorSchemas): ValidatorFns {
  const { bodies, queries } = validatorAjvs(schemas);
  return {
    bodyFns: compileDistinct(bodies, "body", schemas.bodies, (collection) => `the body schema of ${collection}`).byName,
    queryFns: compileDistinct(queries, "query", schemas.queries, (action) => `the query schema of the action ${action}`).byName,
  };
}
