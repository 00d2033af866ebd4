import { report } from "../../diagnostics/report.js";
import { defineRule } from "../rule.js";

/** E3: an action's query parameters are scalars (string, number, integer, boolean) with a schema. */
export const e3ActionParams = defineRule({
  codes: ["E3"],
  description: "action query parameters are scalars with a schema",
  check: (model) =>
    model.actions.flatMap((a) =>
      a.params
        .filter((p) => !p.scalar)
        .map((p) =>
          report("E3", p.origin, {
            action: a.name,
            param: p.name,
            problem: p.kind === "any" ? "has no type" : `is of type ${p.kind}, not a scalar`,
          }),
        ),
    ),
});
