import { report } from "../../diagnostics/report.js";
import { ROOT_IGNORED_KEYWORDS } from "../../model/build-model.js";
import { defineRule } from "../rule.js";

/**
 * A keyword at a resource's root that no request body is checked with (`not`, `if`/`then`/`else`,
 * `dependentSchemas`, `unevaluatedProperties`): the body schema is made of the resource's fields and the
 * keywords that say what else a body holds (additionalProperties …), so these would be dropped without a word.
 */
export const rootKeywordIgnored = defineRule({
  codes: ["root-keyword-ignored"],
  description: "a resource's root uses no keyword that request bodies are not checked with",
  check: (model) =>
    model.resources.flatMap((r) => {
      const root = r.schema as Record<string, unknown>;
      if (root === null || typeof root !== "object") return [];
      return ROOT_IGNORED_KEYWORDS.filter((k) => Object.hasOwn(root, k)).map((keyword) =>
        report("root-keyword-ignored", { file: r.origin.file, pointer: `/${keyword}`, kind: "key" }, { keyword, collection: r.collection }),
      );
    }),
});
