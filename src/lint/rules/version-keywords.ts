import { childPointer, type Diagnostic } from "../../diagnostics/diagnostic.js";
import { report } from "../../diagnostics/report.js";
import { withArticle } from "../../model/names.js";
import type { Field, Resource } from "../../model/types.js";
import { servedVersions, versionView } from "../../model/versions.js";
import { defineRule } from "../rule.js";

/**
 * The version keywords (CONTRACT §7) each say something of a served version: `versions` lists versions
 * older than the current one, each deprecated no later than its sunset; `x-since` names a version no later than the current one; `x-until` one
 * before it (a property in every version needs none) and not before its `x-since`; `x-renamed` keys
 * versions before the current one (the current name is the property's key). In each served version no two
 * properties of a resource share a name. A required property that a served version does not have yet
 * cannot come from that version's bodies: without a `default` their creates would fail (a converter of the
 * user's may supply it, so that is a warning).
 */
export const versionKeywords = defineRule({
  codes: ["older-version", "version-dates", "version-keyword", "rename-taken", "required-added"],
  description: "the version keywords name versions they can mean something in, and no version has two properties of one name",
  check: (model) => {
    const out: Diagnostic[] = [];
    const { service } = model;
    const current = service.version;
    for (const older of service.versions) {
      if (older.number >= current) out.push(report("older-version", { ...older.origin, kind: "key" }, { version: older.number, current }));
      if (older.deprecated !== undefined && older.sunset !== undefined && older.deprecated > older.sunset) {
        out.push(report("version-dates", { file: older.origin.file, pointer: childPointer(older.origin.pointer, "deprecated"), kind: "value" }, { version: older.number, deprecated: older.deprecated, sunset: older.sunset }));
      }
    }
    const served = servedVersions(service);
    const keyword = (at: { file: string; pointer: string }, name: string, problem: string, fix: string) =>
      out.push(report("version-keyword", { file: at.file, pointer: childPointer(at.pointer, name), kind: "value" }, { keyword: name, problem, fix }));
    for (const resource of model.resources) {
      if (resource.since !== undefined && resource.since > current) {
        keyword(resource.origin, "x-since", `is ${resource.since}, later than the current version ${current}: no version serves ${resource.collection}`, `write a version up to ${current}, or raise "version" in service.json when the new version ships`);
      }
      for (const field of resource.fields) checkField(resource, field, current, keyword);
    }
    for (const version of served.slice(0, -1)) {
      for (const { resource, fields } of versionView(model, version).resources) {
        const seen = new Map<string, Field>();
        for (const { field, wire } of fields) {
          const other = seen.get(wire);
          if (other === undefined) {
            seen.set(wire, field);
            continue;
          }
          const renamed = field.history?.renames.some((r) => r.name === wire) ? field : other;
          const pointer = renamed.history?.renames.length ? childPointer(renamed.origin.pointer, "x-renamed") : renamed.origin.pointer;
          out.push(report("rename-taken", { file: renamed.origin.file, pointer, kind: "key" }, { name: wire, version, resource: resource.collection, renamed: renamed.name, other: (renamed === field ? other : field).name }));
        }
      }
    }
    const oldest = served[0]!;
    for (const resource of model.resources) {
      for (const field of resource.fields) {
        const since = field.history?.since;
        if (!field.required || since === undefined || since <= oldest || since > current || field.history?.until !== undefined) continue;
        if (typeof field.schema === "object" && field.schema !== null && Object.hasOwn(field.schema, "default")) continue;
        if (resource.since !== undefined && resource.since >= since) continue; // the resource itself is no older
        const without = served.filter((v) => v < since && (resource.since === undefined || resource.since <= v));
        if (without.length === 0) continue;
        out.push(report("required-added", { file: field.origin.file, pointer: childPointer(field.origin.pointer, "x-since"), kind: "value" }, { name: field.name, since, versions: without.join(", ") }));
      }
    }
    return out;
  },
});

/** The keywords of one property against the current version. */
function checkField(resource: Resource, field: Field, current: number, keyword: (at: { file: string; pointer: string }, name: string, problem: string, fix: string) => void): void {
  const history = field.history;
  if (history === undefined) return;
  const { since, until } = history;
  const of = `"${field.name}" of ${withArticle(resource.name)}`;
  if (since !== undefined && since > current) {
    keyword(field.origin, "x-since", `is ${since}, later than the current version ${current}: no version serves ${of}`, `write a version up to ${current}, or raise "version" in service.json when the new version ships`);
  }
  if (until !== undefined && until >= current) {
    keyword(field.origin, "x-until", `is ${until}, but the current version is ${current}: ${of} would be in every version`, `remove "x-until", or write the last version that serves ${of} (below ${current}) to take it out of the current one`);
  } else if (until !== undefined && since !== undefined && until < since) {
    keyword(field.origin, "x-until", `is ${until}, before "x-since" ${since}: no version serves ${of}`, `write an "x-until" from ${since} on, or remove the property`);
  }
  for (const { upTo, name } of history.renames) {
    if (upTo >= current) {
      keyword(field.origin, "x-renamed", `names version ${upTo}, but the current version is ${current}: the current name of ${of} is its key`, `key each old name by the last version that used it (below ${current}), or rename the property's key itself`);
    } else if (name === field.name) {
      keyword(field.origin, "x-renamed", `gives version ${upTo} the name "${name}", the property's current name`, `remove the entry for ${upTo}: the property has that name already`);
    }
  }
}
