/** Validates raw documents against the definition format's meta-schemas (schemas/*.json) with ajv. */
import fs from "node:fs";
import { Ajv2020, type ErrorObject, type ValidateFunction } from "ajv/dist/2020.js";
import formatsPlugin from "ajv-formats";
import { childPointer, type Diagnostic } from "../diagnostics/diagnostic.js";
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
  const out: Diagnostic[] = [];
  if (!draft2020(value)) out.push(...toDiagnostics(file, draft2020.errors ?? [], "invalid-schema"));
  if (!resourceKeywords(value)) out.push(...toDiagnostics(file, resourceKeywords.errors ?? [], "meta-schema"));
  return out;
}

/** Turns ajv errors into diagnostics: the most specific error per location, with a fix for each. */
function toDiagnostics(file: string, errors: readonly ErrorObject[], code: "meta-schema" | "invalid-schema"): Diagnostic[] {
  const relevant = errors.filter((e) => !["anyOf", "oneOf", "allOf", "if", "$ref"].includes(e.keyword));
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

/** Where an ajv error points, what it means in words, and how to fix it. */
function explain(e: ErrorObject): { pointer: string; kind: "key" | "value"; problem: string; fix: string } {
  const at = e.instancePath;
  const where = at === "" ? "the document" : `"${at}"`;
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
