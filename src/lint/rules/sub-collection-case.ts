import { report } from "../../diagnostics/report.js";
import { camelFix, isCamelName, isSegmentName } from "../../model/names.js";
import { defineRule } from "../rule.js";

/**
 * A collection link's name is the path segment of its sub-collection (/pulls/{id}/requestedReviewers), so
 * it has the camelCase shape R3 gives every collection. A warning, not R3's error: the conventions show
 * path shapes by example rather than fix a case, and this name is also the property's wire name in every
 * representation and in `expand`, which a definition ported from a published API (`requested_reviewers`)
 * cannot change without breaking its clients; and the route works. Names that are not URL-safe at all are
 * unsafe-name's.
 */
export const subCollectionCase = defineRule({
  codes: ["sub-collection-case"],
  description: "sub-collection path segments (collection links) are camelCase",
  check: (model) =>
    model.resources.flatMap((r) =>
      r.fields
        .filter((f) => f.link?.kind === "collection" && isSegmentName(f.name) && !isCamelName(f.name))
        .map((f) => report("sub-collection-case", { ...f.origin, kind: "key" }, { name: f.name, fix: camelFix(f.name, "items") })),
    ),
});
