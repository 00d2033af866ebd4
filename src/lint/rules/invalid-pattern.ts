import { childPointer, type Diagnostic } from "../../diagnostics/diagnostic.js";
import { report } from "../../diagnostics/report.js";
import { patternProblem, type PatternProblem } from "../../model/patterns.js";
import { defineRule } from "../rule.js";
import { visitSchemas } from "../schema-sites.js";

/**
 * Every `pattern` and `patternProperties` key is a regular expression the generated service can use:
 * valid ECMAScript (with the "u" flag, as ajv reads it) and accepted by RE2, the linear-time engine the
 * service tests patterns with. Found where written: resource files, shared definitions, action query and
 * response schemas; a pattern only reached through a $ref into a file's non-schema part is reported at
 * the property or action that uses it.
 */
export const invalidPattern = defineRule({
  codes: ["invalid-pattern"],
  description: "patterns are regular expressions that both ECMAScript and RE2 accept",
  check: (model) => {
    const out: Diagnostic[] = [];
    const problems = new Map<string, PatternProblem | undefined>();
    const problemOf = (p: string) => {
      if (!problems.has(p)) problems.set(p, patternProblem(p));
      return problems.get(p);
    };
    const reported = new Set<string>();
    visitSchemas(model, (schema, at, viaRef) => {
      const found: [string, string, "key" | "value"][] = [];
      if (typeof schema.pattern === "string") found.push([schema.pattern, childPointer(at.pointer, "pattern"), "value"]);
      const pp = schema.patternProperties;
      if (pp !== null && typeof pp === "object" && !Array.isArray(pp)) {
        for (const key of Object.keys(pp)) found.push([key, childPointer(at.pointer, "patternProperties", key), "key"]);
      }
      for (const [pattern, pointer, kind] of found) {
        const problem = problemOf(pattern);
        if (!problem || (viaRef && reported.has(pattern))) continue;
        if (viaRef) out.push(report("invalid-pattern", at, { pattern, problem: `${problem.problem} (reached through a $ref)`, fix: problem.fix }));
        else out.push(report("invalid-pattern", { file: at.file, pointer, kind }, { pattern, ...problem }));
        reported.add(pattern);
      }
    });
    return out;
  },
});
