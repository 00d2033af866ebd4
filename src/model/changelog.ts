/**
 * What changed from one version to the next, read from the version keywords (CONTRACT §7): resources and
 * properties added (x-since), properties renamed (x-renamed) and removed (x-until). The docs' changelog page
 * lists it for every version from the oldest served one to the current one.
 */
import type { Model } from "./types.js";
import { presentIn, servedVersions, wireName } from "./versions.js";

/** One change a version made to a collection, with the names on the wire before and after it. */
export type Change =
  | { readonly kind: "resource-added"; readonly collection: string }
  | { readonly kind: "added"; readonly collection: string; readonly property: string }
  | { readonly kind: "renamed"; readonly collection: string; readonly from: string; readonly to: string }
  | { readonly kind: "removed"; readonly collection: string; readonly property: string };

/** A version and what it changed since the one before it. */
export interface VersionChanges {
  readonly version: number;
  readonly current: boolean;
  /** Whether the service still serves it (the versions between the served ones are listed too: their changes add up). */
  readonly served: boolean;
  /** What changed since version - 1; empty for the oldest version served (its own history is not a client's concern). */
  readonly changes: readonly Change[];
}

/** Every version from the current one down to the oldest one served, newest first, each with its changes. */
export function changelogOf(model: Model): VersionChanges[] {
  const { service } = model;
  const served = servedVersions(service);
  const oldest = served[0]!;
  const out: VersionChanges[] = [];
  for (let version = service.version; version >= oldest; version--) {
    out.push({
      version,
      current: version === service.version,
      served: served.includes(version),
      changes: version === oldest ? [] : changesIn(model, version),
    });
  }
  return out;
}

/** What `version` changed since the version before it, resource by resource in the model's order. */
function changesIn(model: Model, version: number): Change[] {
  const out: Change[] = [];
  const before = version - 1;
  for (const r of model.resources) {
    const { collection } = r;
    if (r.since === version) {
      out.push({ kind: "resource-added", collection });
      continue; // its properties came with it
    }
    if (r.since !== undefined && r.since > version) continue;
    for (const f of r.fields) {
      const now = presentIn(f.history, version);
      const then = presentIn(f.history, before);
      if (now && !then) out.push({ kind: "added", collection, property: wireName(f, version) });
      else if (!now && then) out.push({ kind: "removed", collection, property: wireName(f, before) });
      else if (now && wireName(f, before) !== wireName(f, version)) out.push({ kind: "renamed", collection, from: wireName(f, before), to: wireName(f, version) });
    }
  }
  return out;
}
