import { report } from "../../diagnostics/report.js";
import { camelCase, FORBIDDEN_NAMES, isCamelName } from "../../model/names.js";
import { defineRule } from "../rule.js";

/** True for a camelCase path segment: letters and digits, starting with a lower-case letter. */
export function isCamelSegment(name: string): boolean {
  return isCamelName(name);
}

/** R3: a collection's path segment has the shape /accounts: camelCase letters and digits. */
export const r3PathSegments = defineRule({
  codes: ["R3"],
  description: "collection path segments are camelCase",
  check: (model) =>
    model.resources
      .filter((r) => !isCamelSegment(r.collection) && !FORBIDDEN_NAMES.has(r.collection)) // those are unsafe-name's
      .map((r) =>
        report("R3", { file: r.origin.file, pointer: "/x-collection" }, { name: r.collection, fix: camelCase(r.collection) || "items" }),
      ),
});
