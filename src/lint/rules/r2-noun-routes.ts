import { report } from "../../diagnostics/report.js";
import { nameVerb, nounFix } from "../../model/names.js";
import { defineRule } from "../rule.js";

/** R2: every other path segment a route is made of (sub-collections, the base path) is a noun too. */
export const r2NounRoutes = defineRule({
  codes: ["R2"],
  description: "route names are nouns: sub-collection and base-path segments do not start with a verb",
  check: (model) => {
    const links = model.resources.flatMap((r) =>
      r.fields
        .filter((f) => f.link?.kind === "collection")
        .flatMap((f) => {
          const verb = nameVerb(f.name);
          if (!verb) return [];
          return [report("R2", { ...f.origin, kind: "key" }, { name: f.name, verb, noun: nounFix(f.name), where: `sub-collection` })];
        }),
    );
    const base = model.service.basePath
      .split("/")
      .filter(Boolean)
      .flatMap((segment) => {
        const verb = /^v\d+$/.test(segment) ? undefined : nameVerb(segment);
        if (!verb) return [];
        return [report("R2", { file: model.service.origin.file, pointer: "/baseUrl" }, { name: segment, verb, noun: nounFix(segment), where: "baseUrl path segment" })];
      });
    return [...links, ...base];
  },
});
