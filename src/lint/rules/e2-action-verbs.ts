import { report } from "../../diagnostics/report.js";
import { isPlural, leadingVerb } from "../../model/names.js";
import { defineRule } from "../rule.js";

/** E2: an action is a verb (convert, translate, compute), not a resource noun. */
export const e2ActionVerbs = defineRule({
  codes: ["E2"],
  description: "actions are named with verbs",
  check: (model) => {
    // An action named like a collection is reported once, as duplicate-route.
    const collections = new Set(model.resources.map((r) => r.collection));
    return model.actions
      .filter((a) => !leadingVerb(a.name) && isPlural(a.name) && !collections.has(a.name))
      .map((a) =>
        report("E2", { ...a.origin, kind: "key" }, {
          name: a.name,
          problem: "is a plural noun, not a verb",
          fix: `name the action with a verb, e.g. "convert"; if "${a.name}" is a collection, define it as a resource schema`,
        }),
      );
  },
});
