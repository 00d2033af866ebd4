import { childPointer, type Diagnostic } from "../../diagnostics/diagnostic.js";
import { report } from "../../diagnostics/report.js";
import { isObject } from "../../model/build-schema.js";
import { SERVER_OWNED as SERVER_OWNED_NAMES } from "../../model/conventions.js";
import { describeIds, madeIds } from "../../model/id-forms.js";
import { sharedOf, type Deref } from "../../model/shared.js";
import type { Field, IdForm, Resource } from "../../model/types.js";
import { defineRule } from "../rule.js";
import { misfit, type Made, type Misfit } from "../schema-fit.js";

/** Properties every representation carries and only the server writes. */
export const SERVER_OWNED: readonly string[] = SERVER_OWNED_NAMES;

/** A timestamp as the server writes it (new Date().toISOString()). */
export const TIMESTAMP_EXAMPLE = "2024-01-15T10:30:00.000Z";

/**
 * Names that mean a server-owned timestamp under another spelling, and the timestamp they repeat: the
 * snake_case twins real APIs write (GitHub's `created_at`, `updated_at`), and `updatedAt`, the other common
 * word for modifiedAt. A definition that declares one gets a property clients write themselves beside the
 * one the server keeps: two answers to one question, which drift apart.
 */
export const TWINS: Readonly<Record<string, "createdAt" | "modifiedAt">> = {
  created_at: "createdAt",
  modified_at: "modifiedAt",
  updated_at: "modifiedAt",
  updatedAt: "modifiedAt",
};

/**
 * The server owns id, meta, createdAt and modifiedAt (CONTRACT §2). A definition may declare id, createdAt
 * and modifiedAt to document them when the declaration fits what the server makes; declaring meta, or one
 * that does not fit, is an error. A property that repeats a timestamp under another name is a warning.
 */
export const serverOwnedProperty = defineRule({
  codes: ["server-owned-property", "server-owned-mismatch", "server-owned-twin"],
  description: "id, createdAt and modifiedAt are declared only as the server makes them, meta never, and no property repeats them",
  check: (model) => {
    const { deref } = sharedOf(model);
    return model.resources.flatMap((r) => checkResource(r, deref));
  },
});

function checkResource(r: Resource, deref: Deref): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const f of r.serverOwned) {
    if (f.name === "meta") {
      out.push(report("server-owned-property", { ...f.origin, kind: "key" }, { name: f.name }));
      continue;
    }
    const found = f.name === "id" ? idMisfit(f, r.idForm, deref) : timestampMisfit(f, deref);
    if (found) out.push(report("server-owned-mismatch", pointerOf(r, f, found.keyword), found.args));
  }
  for (const f of r.fields) {
    const owned = Object.hasOwn(TWINS, f.name) ? TWINS[f.name] : undefined;
    if (owned) out.push(report("server-owned-twin", { ...f.origin, kind: "key" }, { name: f.name, owned, when: owned === "createdAt" ? "when the instance is created" : "on every change" }));
  }
  return out;
}

type Args = { name: string; declared: string; made: string; fix: string };

/** Why a declared `id` does not fit the ids of `form`, with the fix; undefined when it fits. */
function idMisfit(f: Field, form: IdForm, deref: Deref): { keyword: string; args: Args } | undefined {
  const made = `${describeIds(form)} here`;
  if (f.link) return { keyword: "", args: { name: "id", declared: "as a link", made, fix: "remove it: every representation carries its id, and a link is a property of its own" } };
  // int32 is taken as the documentation real APIs write for integer ids: a sequence passes it only after 2^31 - 1 instances.
  const formats = form.kind === "uuid" ? ["uuid"] : form.kind === "sequence" ? ["int64", "int32"] : [];
  const found = first(madeIds(form).map((value) => ({ value, formats })), f, deref);
  if (!found) return undefined;
  const sequence = form.kind === "sequence";
  if (found.keyword !== "type") {
    return { keyword: found.keyword, args: { name: "id", declared: `with ${found.says}`, made, fix: `remove ${found.says} from id, or remove id itself: every representation carries it` } };
  }
  const numeric = /\b(integer|number)\b/.test(found.says);
  let fix: string;
  if (!sequence && numeric) fix = 'add "x-id": "sequence" at the resource\'s root for integer ids, or declare id as a string';
  else if (sequence && /\bstring\b/.test(found.says)) fix = 'declare id as an integer, or remove "x-id": "sequence" for string ids';
  else fix = `declare id as ${sequence ? "an integer" : "a string"}, or remove it: every representation carries it`;
  return { keyword: "type", args: { name: "id", declared: `as ${found.says}`, made, fix } };
}

/** Why a declared createdAt or modifiedAt does not fit the date-time strings the server writes; undefined when it fits. */
function timestampMisfit(f: Field, deref: Deref): { keyword: string; args: Args } | undefined {
  const made = `date-time strings ("${TIMESTAMP_EXAMPLE}")`;
  const shape = `{"type": "string", "format": "date-time"}`;
  if (f.link) return { keyword: "", args: { name: f.name, declared: "as a link", made, fix: `declare it as ${shape}, or remove it: every representation carries it` } };
  const found = first([{ value: TIMESTAMP_EXAMPLE, formats: ["date-time"] }], f, deref);
  if (!found) return undefined;
  const declared = found.keyword === "type" ? `as ${found.says}` : `with ${found.says}`;
  const fix =
    found.keyword === "type"
      ? `declare it as ${shape}, or remove it (every representation carries it); a value of your own needs a name of its own, e.g. "publishedAt"`
      : `remove ${found.says} from ${f.name}, or remove ${f.name} itself: every representation carries it`;
  return { keyword: found.keyword, args: { name: f.name, declared, made, fix } };
}

/** The first misfit of the field's schema with any of the values the server makes. */
function first(made: readonly Made[], f: Field, deref: Deref): Misfit | undefined {
  for (const m of made) {
    const found = misfit(f.schema, m, deref);
    if (found) return found;
  }
  return undefined;
}

/** The offending keyword where it is written on the property, else the property's name. */
function pointerOf(r: Resource, f: Field, keyword: string): { file: string; pointer: string; kind?: "key" } {
  const properties = isObject(r.schema) && isObject(r.schema.properties) ? r.schema.properties : {};
  const written = properties[f.name];
  if (keyword !== "" && isObject(written) && Object.hasOwn(written, keyword)) return { file: f.origin.file, pointer: childPointer(f.origin.pointer, keyword) };
  return { ...f.origin, kind: "key" };
}
