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
const KEYWORDS: Readonly<Record<string, { effect: string; fix: string }>> = {
  $async: {
    effect: "is an ajv keyword that makes the service's validator asynchronous: the service would accept every body, or not start",
    fix: 'remove "$async": definitions are validated synchronously',
  },
  nullable: {
    effect: 'is OpenAPI\'s, not JSON Schema\'s: the service\'s validator (ajv) would let null through, or not start without "type"',
    fix: 'remove "nullable" and allow null in the type instead, e.g. "type": ["string", "null"]',
  },
};

export const unsupportedKeyword = defineRule({
  codes: ["unsupported-keyword"],
  description: "schemas use no keyword that ajv, the service's validator, would read differently from JSON Schema",
  check: (model) => {
    const out: Diagnostic[] = [];
    const reported = new Set<string>();
    visitSchemas(model, (schema, at, viaRef) => {
      for (const keyword of Object.keys(KEYWORDS)) {
        if (!Object.hasOwn(schema, keyword) || (viaRef && reported.has(keyword))) continue;
        const { effect, fix } = KEYWORDS[keyword]!;
        const where = viaRef ? at : { file: at.file, pointer: childPointer(at.pointer, keyword), kind: "key" as const };
        out.push(report("unsupported-keyword", where, { keyword, effect: viaRef ? `${effect} (reached through a $ref)` : effect, fix }));
        reported.add(keyword);
      }
    });
    return out;
  },
});
