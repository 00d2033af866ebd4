import { childPointer, type Diagnostic } from "../../diagnostics/diagnostic.js";
import { report } from "../../diagnostics/report.js";
import { withArticle } from "../../model/names.js";
import type { Field, Resource } from "../../model/types.js";
import { defineRule } from "../rule.js";
import { visitSchemas } from "../schema-sites.js";

/**
 * `x-on-delete` says what deleting a linked instance does to the instances that link to it, so it means
 * something only beside the `$ref` of a resource's property that links to one instance: anywhere else the
 * delete it was meant to allow is refused (409), or its cascade never happens. And `"clear"` removes the
 * link, which a required property cannot lose. A misplaced one at a resource's root is unknown-keyword's.
 */
export const onDelete = defineRule({
  codes: ["bad-on-delete", "required-clear"],
  description: "x-on-delete stands beside an instance link's $ref, and clear only on a link that is not required",
  check: (model) => {
    const out: Diagnostic[] = [];
    const fields = new Map<string, { r: Resource; f: Field }>(model.resources.flatMap((r) => r.fields.map((f) => [`${f.origin.file}#${f.origin.pointer}`, { r, f }] as const)));
    const roots = new Set(model.resources.map((r) => `${r.origin.file}#${r.origin.pointer}`));
    visitSchemas(model, (schema, at, viaRef) => {
      if (viaRef || !Object.hasOwn(schema, "x-on-delete")) return;
      const key = `${at.file}#${at.pointer}`;
      if (roots.has(key)) return;
      const where = { file: at.file, pointer: childPointer(at.pointer, "x-on-delete"), kind: "key" as const };
      const hit = fields.get(key);
      if (hit?.f.link?.kind === "instance") {
        const { r, f } = hit;
        // A nullable link is cleared to null, which a required property may hold.
        if (schema["x-on-delete"] === "clear" && f.required && f.link?.nullable !== true) {
          const target = model.resources.find((t) => t.collection === f.link!.target);
          out.push(report("required-clear", { ...where, kind: "value" }, { name: f.name, resource: withArticle(r.name), target: target?.name ?? f.link!.target, collection: r.collection }));
        }
        return;
      }
      const list = hit?.f.link ?? (at.pointer.endsWith("/items") ? fields.get(key.slice(0, -"/items".length))?.f.link : undefined);
      const owner = hit ?? (list ? fields.get(key.slice(0, -"/items".length)) : undefined);
      const what =
        owner === undefined
          ? "a schema that is not a property of a resource"
          : list
            ? `${hit ? "" : "the items of "}collection link "${owner.f.name}"`
            : `property "${owner.f.name}", which is not a link`;
      const fix = list
        ? "remove it: a stored list of links drops a deleted member by itself, and an inverse collection is not stored here (write x-on-delete on the target's link back)"
        : 'move it beside the "$ref" of a property that links to one instance, or remove it';
      out.push(report("bad-on-delete", where, { what, fix }));
    });
    return out;
  },
});
