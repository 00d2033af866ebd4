import { childPointer, type Diagnostic } from "../../diagnostics/diagnostic.js";
import { report } from "../../diagnostics/report.js";
import { defineRule } from "../rule.js";
import { visitSchemas } from "../schema-sites.js";

/**
 * Keywords that are not JSON Schema's but that ajv, the validator of the generated service, gives a
 * meaning of its own. `$async` makes a validator asynchronous: at a schema's root it returns a promise,
 * which reads as "valid" for every body; anywhere below, the service cannot start. `nullable` is
 * OpenAPI's: ajv lets null through where the schema's type does not, and cannot compile it without
 * "type" or beside a type that allows null already.
 */
const KEYWORDS: Readonly<Record<string, { effect: string; fix: (schema: Readonly<Record<string, unknown>>) => string }>> = {
  $async: {
    effect: "is an ajv keyword that makes the service's validator asynchronous: the service would accept every body, or not start",
    fix: () => 'remove "$async": definitions are validated synchronously',
  },
  nullable: {
    effect: 'is OpenAPI\'s, not JSON Schema\'s: the service\'s validator (ajv) would let null through, or not start without "type"',
    fix: nullableFix,
  },
};

/**
 * The JSON Schema 2020-12 form of this very schema's `"nullable": true`: null added to its `type` (and
 * to its `enum`); a `$ref` beside `{"type": "null"}` in an `anyOf`; `{"type": "null"}` added to its own
 * `anyOf` or `oneOf`; nothing for a schema without `type` that lets null through already.
 */
export function nullableFix(schema: Readonly<Record<string, unknown>>): string {
  const remove = 'remove "nullable"';
  if (schema.nullable !== true) return `${remove}: JSON Schema has no such keyword, and "type" alone says whether null is allowed`;
  const { type } = schema;
  const types = typeof type === "string" ? [type] : Array.isArray(type) && type.every((t) => typeof t === "string") ? (type as string[]) : undefined;
  const enumNeedsNull = Array.isArray(schema.enum) && !schema.enum.includes(null);
  const andEnum = enumNeedsNull ? ', and add null to "enum"' : "";
  if (typeof schema.$ref === "string") {
    return `${remove} and write the schema as "anyOf": [{ "$ref": ${JSON.stringify(schema.$ref)} }, { "type": "null" }]`;
  }
  if (types !== undefined && types.length > 0) {
    if (types.includes("null")) return `${remove}: "type" allows null already${andEnum}`;
    return `${remove} and allow null in the type: "type": ${JSON.stringify([...types, "null"]).replace(/,/g, ", ")}${andEnum}`;
  }
  for (const k of ["anyOf", "oneOf"]) {
    if (Array.isArray(schema[k])) return `${remove} and add { "type": "null" } to "${k}"${andEnum}`;
  }
  if (enumNeedsNull) return `${remove} and add null to "enum"`;
  if (!["const", "allOf", "not", "if"].some((k) => Object.hasOwn(schema, k))) return `${remove}: without "type", the schema allows null already`;
  const rest = Object.entries(schema).filter(([k]) => k !== "nullable");
  const written = `{ ${rest.map(([k, v]) => `${JSON.stringify(k)}: ${JSON.stringify(v)}`).join(", ")} }`;
  const shown = written.length <= 60 ? written : "<this schema>";
  return `${remove} and write the schema as "anyOf": [${shown}, { "type": "null" }]`;
}

export const unsupportedKeyword = defineRule({
  codes: ["unsupported-keyword"],
  description: "schemas use no keyword that ajv, the service's validator, would read differently from JSON Schema",
  check: (model) => {
    const out: Diagnostic[] = [];
    const reported = new Set<string>();
    visitSchemas(model, (schema, at, viaRef) => {
      for (const keyword of Object.keys(KEYWORDS)) {
        if (!Object.hasOwn(schema, keyword) || (viaRef && reported.has(keyword))) continue;
        const { effect, fix: fixOf } = KEYWORDS[keyword]!;
        const fix = fixOf(schema);
        const where = viaRef ? at : { file: at.file, pointer: childPointer(at.pointer, keyword), kind: "key" as const };
        out.push(report("unsupported-keyword", where, { keyword, effect: viaRef ? `${effect} (reached through a $ref)` : effect, fix }));
        reported.add(keyword);
      }
    });
    return out;
  },
});
