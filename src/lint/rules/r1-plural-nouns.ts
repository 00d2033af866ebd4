import { report } from "../../diagnostics/report.js";
import { camelCase, FORBIDDEN_NAMES, isPlural, nameVerb, nounFix, pluralize } from "../../model/names.js";
import { defineRule } from "../rule.js";
import { isCamelSegment } from "./r3-path-segments.js";

/** R1: a collection is a plural noun; a leading verb is wrong, and the noun is the fix. */
export const r1PluralNouns = defineRule({
  codes: ["R1"],
  description: "collection names are plural nouns, never verbs",
  check: (model) =>
    model.resources.flatMap((r) => {
      const at = { file: r.origin.file, pointer: "/x-collection" };
      // R3 reports a segment that is not camelCase, unsafe-name one that would reach the prototype.
      if (!isCamelSegment(r.collection) || FORBIDDEN_NAMES.has(r.collection)) return [];
      const verb = nameVerb(r.collection);
      if (verb) return [report("R1", at, { name: r.collection, verb, noun: nounFix(r.collection), problem: "verb" })];
      if (!isPlural(r.collection)) return [report("R1", at, { name: r.collection, verb: "", noun: pluralize(camelCase(r.collection)), problem: "singular" })];
      return [];
    }),
});
