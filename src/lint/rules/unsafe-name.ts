import { childPointer, type Diagnostic } from "../../diagnostics/diagnostic.js";
import { report } from "../../diagnostics/report.js";
import { isObject } from "../../model/build-schema.js";
import { camelFix, FORBIDDEN_NAMES, isActionName, isCamelName, isDeviceName, unsafeReason } from "../../model/names.js";
import { defineRule } from "../rule.js";

/** The fix of a name that is not an identifier once camel-cased, or reaches the prototype. */
const IDENTIFIER_FIX = "use a name of letters and digits that starts with a letter and is not __proto__, constructor or prototype";
const PROTOTYPE = "would reach the object prototype";
const DEVICE_FIX = "choose another name: Windows reserves CON, PRN, AUX, NUL, COM0-9 and LPT0-9 (in any case) as file names in every folder";

/**
 * Names that become identifiers, object keys, URL segments or file names are safe. Property and parameter
 * names are quoted where they are emitted: they must only camel-case to an identifier and stay off the
 * prototype. Action names and collection links are written as they are, into paths (src/actions/<name>.ts,
 * /<name>): collection links must be camelCase names already (they are bare identifiers too), action names
 * camelCase or dashed lower-case words (their handler and client method are camel-cased). Collections (whose shape is R3's)
 * and actions must not be Windows device names; error keys must stay off the prototype.
 */
export const unsafeName = defineRule({
  codes: ["unsafe-name"],
  description: "names of properties, collections, actions, parameters and error keys are safe identifiers and file names",
  check: (model) => {
    const out: Diagnostic[] = [];
    for (const r of model.resources) {
      const at = { file: r.origin.file, pointer: "/x-collection" };
      if (FORBIDDEN_NAMES.has(r.collection)) out.push(report("unsafe-name", at, { what: "collection", name: r.collection, reason: PROTOTYPE, fix: IDENTIFIER_FIX }));
      else if (isDeviceName(r.collection)) out.push(report("unsafe-name", at, { what: "collection", name: r.collection, reason: deviceReason("src/hooks", r.collection), fix: DEVICE_FIX }));
      nestedNames(r.schema, r.origin.file, "", out);
      for (const f of r.fields) {
        // A collection link is a URL segment (/books/{id}/<name>) and a client method: written as it is.
        if (f.link?.kind !== "collection" || unsafeReason(f.name) || isCamelName(f.name)) continue;
        out.push(report("unsafe-name", { ...f.origin, kind: "key" }, { what: "collection link", name: f.name, reason: notCamel("a URL segment and a client method"), fix: camelFixText(f.name, "items") }));
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

function notCamel(becomes: string): string {
  return `is not a camelCase name (ASCII letters and digits, starting with a lower-case letter): it becomes ${becomes}`;
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
    if (k === "const" || k === "enum" || k === "examples" || k === "default") continue;
    const here = childPointer(pointer, k);
    if (k === "properties" && isObject(v)) {
      for (const name of Object.keys(v)) {
        const reason = unsafeReason(name);
        if (reason) out.push(report("unsafe-name", { file, pointer: childPointer(here, name), kind: "key" }, { what: "property", name, reason, fix: IDENTIFIER_FIX }));
      }
    }
    nestedNames(v, file, here, out);
  }
}
