import { childPointer, type Diagnostic } from "../../diagnostics/diagnostic.js";
import { report } from "../../diagnostics/report.js";
import { sharedOf } from "../../model/shared.js";
import { servedVersions } from "../../model/versions.js";
import { defineRule } from "../rule.js";
import { visitSchemas } from "../schema-sites.js";

const isRecord = (v: unknown): v is Readonly<Record<string, unknown>> => v !== null && typeof v === "object" && !Array.isArray(v);

/** The value as JSON, cut to 40 characters. */
function shortJson(value: unknown): string {
  const text = JSON.stringify(value) ?? "null";
  return text.length > 40 ? `${text.slice(0, 39)}…` : text;
}

/**
 * A `default` on a property its object requires can never apply: every valid instance carries the
 * property, and the API description and the generated client demand it in every body. Either the
 * property is optional with that default, or required without one. Found where written (resource
 * roots, nested objects, shared definitions, action queries), and for a resource's required property
 * whose default comes from the shared schema its $ref names, at that property. Except a resource's property
 * added in a later version (x-since): there the default is what older versions' bodies store.
 */
export const requiredDefault = defineRule({
  codes: ["required-default"],
  description: "no property is both required and given a default",
  check: (model) => {
    const out: Diagnostic[] = [];
    const warn = (name: string, value: unknown, at: { file: string; pointer: string }) =>
      out.push(report("required-default", at, { name, value: shortJson(value) }));
    // A resource's required property added in a later version than the oldest served: its default is what the
    // bodies of the older versions, which cannot send it, store (rule required-added).
    const oldest = servedVersions(model.service)[0]!;
    const addedLater = new Set(model.resources.flatMap((r) => r.fields.filter((f) => (f.history?.since ?? 0) > oldest).map((f) => `${f.origin.file}#${f.origin.pointer}`)));
    visitSchemas(model, (schema, at, viaRef) => {
      if (viaRef || !Array.isArray(schema.required) || !isRecord(schema.properties)) return;
      for (const name of new Set(schema.required)) {
        if (typeof name !== "string" || !Object.hasOwn(schema.properties, name)) continue;
        const property = schema.properties[name];
        if (addedLater.has(`${at.file}#${childPointer(at.pointer, "properties", name)}`)) continue;
        if (isRecord(property) && Object.hasOwn(property, "default")) {
          warn(name, property.default, { file: at.file, pointer: childPointer(at.pointer, "properties", name, "default") });
        }
      }
    });
    // A required property whose default is not written on it but reached through its $ref.
    const shared = sharedOf(model);
    for (const r of model.resources) {
      const written = isRecord(r.schema) && isRecord(r.schema.properties) ? r.schema.properties : {};
      for (const f of r.fields) {
        const own = written[f.name];
        const schema = shared.deref(f.schema);
        const effective = isRecord(f.schema) && Object.hasOwn(f.schema, "default") ? f.schema : schema;
        if (!f.required || !isRecord(effective) || !Object.hasOwn(effective, "default") || addedLater.has(`${f.origin.file}#${f.origin.pointer}`)) continue;
        if (isRecord(own) && Object.hasOwn(own, "default")) continue;
        warn(f.name, effective.default, f.origin);
      }
    }
    return out;
  },
});
