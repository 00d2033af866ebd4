import { childPointer, type Diagnostic } from "../../diagnostics/diagnostic.js";
import { report } from "../../diagnostics/report.js";
import { isObject } from "../../model/build-schema.js";
import { isDataKeyword, SCHEMA_MAPS } from "../../model/schema-walk.js";
import { camelFix, FORBIDDEN_NAMES, isActionName, isDeviceName, isSegmentName, isSelectableName, unsafeReason } from "../../model/names.js";
import { defineRule } from "../rule.js";

/** The fix of a name that reaches the prototype, holds U+0000 or is empty. */
const IDENTIFIER_FIX = "use a name that is not __proto__, constructor or prototype, holds no U+0000 and is not empty";
const PROTOTYPE = "would reach the object prototype";
const DEVICE_FIX = "choose another name: Windows reserves CON, PRN, AUX, NUL, COM0-9 and LPT0-9 (in any case) as file names in every folder";

/**
 * Names that become identifiers, object keys, URL segments or file names are safe. Property and parameter
 * names are quoted where they are emitted, so any JSON key is one (`"+1"`, `"16x16"`, `"user-name"`) except
 * a prototype name, one holding U+0000, and the empty name; a property name `fields` and `expand` cannot
 * write is a warning (unselectable-name). Action names and collection links are written as they are, into
 * paths (src/actions/<name>.ts, /<name>): a collection link is a URL-safe name (a camelCase one is
 * sub-collection-case's), an action name camelCase or dashed lower-case words (their handler and client
 * method are camel-cased). Collections (whose shape is R3's) and actions must not be Windows device names;
 * error keys must stay off the prototype.
 */
export const unsafeName = defineRule({
  codes: ["unsafe-name", "unselectable-name"],
  description: "names of properties, collections, actions, parameters and error keys are safe identifiers and file names; property names can be selected",
  check: (model) => {
    const out: Diagnostic[] = [];
    for (const r of model.resources) {
      const at = { file: r.origin.file, pointer: "/x-collection" };
      if (FORBIDDEN_NAMES.has(r.collection)) out.push(report("unsafe-name", at, { what: "collection", name: r.collection, reason: PROTOTYPE, fix: IDENTIFIER_FIX }));
      else if (isDeviceName(r.collection)) out.push(report("unsafe-name", at, { what: "collection", name: r.collection, reason: deviceReason("src/hooks", r.collection), fix: DEVICE_FIX }));
      nestedNames(r.schema, r.origin.file, "", out);
      // A collection link that is not URL-safe is unsafe-name's already.
      const unsafeLinks = new Set(r.fields.filter((f) => f.link?.kind === "collection" && !isSegmentName(f.name)).map((f) => f.name));
      selectableNames(r.schema, r.origin.file, "", unsafeLinks, out);
      for (const f of r.fields) {
        // An older name (x-renamed) is a property name in its versions, and a collection link's its sub-collection's segment there.
        for (const rename of f.history?.renames ?? []) {
          const at = { file: f.origin.file, pointer: childPointer(f.origin.pointer, "x-renamed", String(rename.upTo)), kind: "value" as const };
          const why = unsafeReason(rename.name);
          if (why) out.push(report("unsafe-name", at, { what: "older name", name: rename.name, reason: why, fix: IDENTIFIER_FIX }));
          else if (f.link?.kind === "collection" && !isSegmentName(rename.name)) out.push(report("unsafe-name", at, { what: "older name of a collection link", name: rename.name, reason: notSegment(), fix: camelFixText(rename.name, "items") }));
        }
        // A collection link is a URL segment (/books/{id}/<name>), written into the route as it is.
        if (f.link?.kind !== "collection" || unsafeReason(f.name) || isSegmentName(f.name)) continue;
        out.push(report("unsafe-name", { ...f.origin, kind: "key" }, { what: "collection link", name: f.name, reason: notSegment(), fix: camelFixText(f.name, "items") }));
      }
    }
    for (const a of model.actions) {
      const at = { ...a.origin, kind: "key" as const };
      if (FORBIDDEN_NAMES.has(a.name)) out.push(report("unsafe-name", at, { what: "action", name: a.name, reason: PROTOTYPE, fix: IDENTIFIER_FIX }));
      else if (!isActionName(a.name)) out.push(report("unsafe-name", at, { what: "action", name: a.name, reason: notActionName(), fix: camelFixText(a.name, "convert") }));
      else if (isDeviceName(a.name)) out.push(report("unsafe-name", at, { what: "action", name: a.name, reason: deviceReason("src/actions", a.name), fix: DEVICE_FIX }));
      for (const p of a.params) {
        const why = unsafeReason(p.name);
        if (why) out.push(report("unsafe-name", { ...p.origin, kind: "key" }, { what: "parameter", name: p.name, reason: why, fix: IDENTIFIER_FIX }));
      }
    }
    for (const e of model.errors) {
      // Keys the model derived from titles are never forbidden: a forbidden one was written as "key".
      if (e.origin && FORBIDDEN_NAMES.has(e.key)) {
        out.push(report("unsafe-name", { file: e.origin.file, pointer: childPointer(e.origin.pointer, "key") }, { what: "error key", name: e.key, reason: PROTOTYPE, fix: IDENTIFIER_FIX }));
      }
    }
    return out;
  },
});

function notSegment(): string {
  return 'is not a URL-safe name (ASCII letters, digits, "_" and "-", starting with a letter): it becomes the URL segment of its sub-collection, /<collection>/{id}/<name>';
}

function notActionName(): string {
  return "is not a camelCase or dashed lower-case name (ASCII letters and digits, words joined by \"-\", starting with a lower-case letter): it becomes a URL segment and the file src/actions/<name>.ts";
}

function deviceReason(folder: string, name: string): string {
  return `is a device name Windows reserves: ${folder}/${name}.ts cannot be written there`;
}

function camelFixText(name: string, fallback: string): string {
  return `write it in camelCase, e.g. "${camelFix(name, fallback)}"`;
}

/** Walks every `properties` map of a schema (any depth) and reports unsafe property names. */
function nestedNames(schema: unknown, file: string, pointer: string, out: Diagnostic[]): void {
  if (Array.isArray(schema)) {
    schema.forEach((s, i) => nestedNames(s, file, childPointer(pointer, i), out));
    return;
  }
  if (!isObject(schema)) return;
  for (const [k, v] of Object.entries(schema)) {
    const here = childPointer(pointer, k);
    if (SCHEMA_MAPS.has(k) && isObject(v)) {
      for (const [name, sub] of Object.entries(v)) {
        // Inside an object, an error about the empty name carries its parent's path ("custom_fields."): only a
        // resource's own property may not be empty.
        const reason = k === "properties" && (name !== "" || pointer === "") ? unsafeReason(name) : undefined;
        if (reason) out.push(report("unsafe-name", { file, pointer: childPointer(here, name), kind: "key" }, { what: "property", name, reason, fix: IDENTIFIER_FIX }));
        // A name is not a keyword: a property named "default" or "x-rate" is a schema like any other.
        nestedNames(sub, file, childPointer(here, name), out);
      }
    } else if (!isDataKeyword(k)) {
      nestedNames(v, file, here, out);
    }
  }
}

/**
 * Reports the property names `fields` (and `expand`) cannot write, where a selection can reach: a
 * resource's properties and, written in place, the properties of its object properties (`address(city)`).
 * Such a property still works (stored, validated, returned in full); only a selection cannot name it.
 */
function selectableNames(schema: unknown, file: string, pointer: string, skip: ReadonlySet<string>, out: Diagnostic[]): void {
  const properties = isObject(schema) ? schema.properties : undefined;
  if (!isObject(properties)) return;
  for (const [name, sub] of Object.entries(properties)) {
    const here = childPointer(pointer, "properties", name);
    if (unsafeReason(name) || skip.has(name)) continue;
    if (!isSelectableName(name)) out.push(report("unselectable-name", { file, pointer: here, kind: "key" }, { name, fix: selectableFix(name) }));
    selectableNames(sub, file, here, new Set(), out);
  }
}

/** The hint of an unselectable name: a selectable one close to it, when there is one. */
function selectableFix(name: string): string {
  const near = name.replace(/\+/g, "plus").replace(/[^A-Za-z0-9_$-]+/g, "_").replace(/^_+|_+$/g, "");
  const e = near === "" || FORBIDDEN_NAMES.has(near) ? "" : `, e.g. "${near}"`;
  return `to select it, name it with ASCII letters, digits, "_", "$" and "-" only${e}; as it is, it is stored, validated and returned in every full representation`;
}
