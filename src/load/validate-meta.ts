/** Validates raw documents against the definition format's meta-schemas (schemas/*.json) with ajv. */
import fs from "node:fs";
import { Ajv2020, type ErrorObject, type ValidateFunction } from "ajv/dist/2020.js";
import formatsPlugin from "ajv-formats";
import { childPointer, tokensOf, type Diagnostic } from "../diagnostics/diagnostic.js";
import { report } from "../diagnostics/report.js";
import { packagePath } from "../paths.js";

const DRAFT_2020 = "https://json-schema.org/draft/2020-12/schema";

interface Validators {
  readonly service: ValidateFunction;
  readonly resourceKeywords: ValidateFunction;
  readonly draft2020: ValidateFunction;
}

let cached: Validators | undefined;

/** Compiles the meta-schemas once per process. */
function validators(): Validators {
  if (cached) return cached;
  const ajv = new Ajv2020({ allErrors: true, verbose: true, strict: false });
  type Plugin = (a: Ajv2020) => unknown;
  const addFormats = ((formatsPlugin as unknown as { default?: Plugin }).default ?? formatsPlugin) as unknown as Plugin;
  addFormats(ajv);
  const load = (name: string) => JSON.parse(fs.readFileSync(packagePath("schemas", name), "utf8")) as { $id: string };
  const service = load("service.schema.json");
  const resource = load("resource.schema.json");
  ajv.addSchema(service).addSchema(resource);
  cached = {
    service: ajv.getSchema(service.$id)!,
    resourceKeywords: ajv.getSchema(`${resource.$id}#/$defs/keywords`)!,
    draft2020: ajv.getSchema(DRAFT_2020)!,
  };
  return cached;
}

/** Diagnostics for service.json against schemas/service.schema.json. */
export function validateService(file: string, value: unknown): Diagnostic[] {
  const v = validators().service;
  return v(value) ? [] : toDiagnostics(file, v.errors ?? [], "meta-schema");
}

/** Diagnostics for a resource file: a valid draft 2020-12 schema, with valid resourcery keywords. */
export function validateResource(file: string, value: unknown): Diagnostic[] {
  const { draft2020, resourceKeywords } = validators();
  const format = resourceKeywords(value) ? [] : toDiagnostics(file, resourceKeywords.errors ?? [], "meta-schema");
  // One finding per place: a root "type": "obj" breaks both, and the format's own error has the better fix.
  const taken = new Set(format.map((d) => d.pointer));
  const schema = draft2020(value) ? [] : toDiagnostics(file, draft2020.errors ?? [], "invalid-schema").filter((d) => !taken.has(d.pointer));
  return [...schema, ...format];
}

/** Turns ajv errors into diagnostics: the most specific error per location, with a fix for each. */
function toDiagnostics(file: string, errors: readonly ErrorObject[], code: "meta-schema" | "invalid-schema"): Diagnostic[] {
  const combinators = errors.filter((e) => e.keyword === "anyOf" || e.keyword === "oneOf");
  const relevant = errors.filter((e) => !["anyOf", "oneOf", "allOf", "if", "$ref"].includes(e.keyword) && !losingAlternative(e, errors, combinators));
  const seen = new Set<string>();
  const out: Diagnostic[] = [];
  for (const e of relevant.length ? relevant : errors) {
    const { pointer, kind, problem, fix } = explain(e);
    const key = `${pointer}|${problem}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(
      code === "meta-schema"
        ? report("meta-schema", { file, pointer, kind }, { problem, fix })
        : report("invalid-schema", { file, pointer, kind }, { problem }),
    );
  }
  return out;
}

/**
 * A "type" error from one branch of an anyOf/oneOf whose sibling branch matched the type and failed
 * for a better reason ("type": "strin" fails both the enum of type names and "must be an array"):
 * only the sibling's error says what is wrong.
 */
function losingAlternative(e: ErrorObject, errors: readonly ErrorObject[], combinators: readonly ErrorObject[]): boolean {
  if (e.keyword !== "type") return false;
  const parent = combinators.find((c) => c.instancePath === e.instancePath && e.schemaPath.startsWith(`${c.schemaPath}/`));
  if (!parent) return false;
  // The sibling's schemaPath may run through a $ref ("#/$defs/simpleTypes/enum"), so match on the instance.
  const skip = ["type", "anyOf", "oneOf", "allOf", "if", "$ref"];
  return errors.some((o) => o.instancePath === e.instancePath && !skip.includes(o.keyword));
}

/** Where an ajv error points, what it means in words, and how to fix it. */
function explain(e: ErrorObject): { pointer: string; kind: "key" | "value"; problem: string; fix: string } {
  const at = e.instancePath;
  const where = describe(at);
  const schemaFix = (e.parentSchema as { "x-fix"?: string } | undefined)?.["x-fix"];
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case "required":
      return { pointer: at, kind: "value", problem: `missing required key "${p.missingProperty}" in ${where}`, fix: `add "${p.missingProperty}"` };
    case "additionalProperties": {
      const allowed = Object.keys((e.parentSchema as { properties?: object } | undefined)?.properties ?? {}).filter((k) => k !== "$schema");
      const name = String(p.additionalProperty);
      return {
        pointer: childPointer(at, name),
        kind: "key",
        problem: `unknown key "${name}" in ${where}`,
        fix: allowed.length ? `remove it or use one of: ${allowed.join(", ")}` : "remove it",
      };
    }
    case "type":
      return { pointer: at, kind: "value", problem: `${where} must be of type ${String(p.type).replace(",", " or ")}`, fix: schemaFix ?? `give a value of type ${p.type}` };
    case "enum": {
      const allowed = (p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(", ");
      return { pointer: at, kind: "value", problem: `${where} is ${JSON.stringify(e.data)}, not one of ${allowed}`, fix: `use one of: ${allowed}` };
    }
    case "const":
      return { pointer: at, kind: "value", problem: `${where} must be ${JSON.stringify(p.allowedValue)}`, fix: schemaFix ?? `set it to ${JSON.stringify(p.allowedValue)}` };
    case "pattern":
    case "format":
      return { pointer: at, kind: "value", problem: `${where} is not valid: ${JSON.stringify(e.data)}`, fix: schemaFix ?? `give a value that ${e.message ?? "is valid"}` };
    case "uniqueItems":
      return { pointer: at, kind: "value", problem: `${where} has the same item twice (items ${p.j} and ${p.i})`, fix: "remove the repeated item" };
    case "minItems":
      return { pointer: at, kind: "value", problem: `${where} is empty`, fix: `give at least ${p.limit} item${p.limit === 1 ? "" : "s"}` };
    case "minLength":
      return { pointer: at, kind: "value", problem: `${where} is an empty string`, fix: "give a non-empty value" };
    default:
      return { pointer: at, kind: "value", problem: `${where} ${e.message ?? "is not valid"}`, fix: schemaFix ?? "see the definition format in the README" };
  }
}

/** Names the value at a pointer in words (the pointer itself is printed beside the message). */
function describe(pointer: string): string {
  const tokens = tokensOf(pointer);
  const last = tokens.at(-1);
  if (last === undefined) return "the document";
  if (/^\d+$/.test(last)) return tokens.length > 1 ? `item ${last} of "${tokens.at(-2)}"` : `item ${last}`;
  return `"${last}"`;
}
