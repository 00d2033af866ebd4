/**
 * Which resource is which across generations (CONTRACT §5): a resource is identified by its schema file, so
 * that a changed x-collection in the same file is told apart from a removed resource and a new one.
 */
import path from "node:path";
import type { Model } from "../model/types.js";
import type { ResourceIdentity } from "../write/manifest.js";

/** One renamed resource: what it was and what it is. */
export interface Rename {
  readonly identity: string;
  readonly from: ResourceIdentity;
  readonly to: ResourceIdentity;
}

/** The identity of each resource of `model`: its schema file, relative to the definitions folder `dir`. */
export function identitiesOf(model: Model, dir: string): Record<string, ResourceIdentity> {
  const out: Record<string, ResourceIdentity> = {};
  const seen = new Set<string>();
  for (const r of model.resources) {
    const file = path.relative(dir, r.origin.file).split(path.sep).join("/");
    // A file that defines two resources identifies neither: no rename is told by it.
    if (seen.has(file)) delete out[file];
    else Object.defineProperty(out, file, { value: { collection: r.collection, name: r.name }, enumerable: true, writable: true, configurable: true });
    seen.add(file);
  }
  return out;
}

/**
 * The resources whose collection or singular name (its type names: a `title` changed) changed since the last
 * generation (`previous`, from its manifest).
 */
export function renamesOf(previous: Readonly<Record<string, ResourceIdentity>> | undefined, now: Readonly<Record<string, ResourceIdentity>>): Rename[] {
  if (previous === undefined) return [];
  const collections = new Set(Object.values(now).map((r) => r.collection));
  const out: Rename[] = [];
  for (const [identity, to] of Object.entries(now)) {
    const from = Object.hasOwn(previous, identity) ? previous[identity] : undefined;
    if (from === undefined || (from.collection === to.collection && from.name === to.name)) continue;
    if (from.collection !== to.collection) {
      // A collection that changed to one the previous generation also had under another file is no rename of it.
      if (Object.values(previous).some((p) => p.collection === to.collection)) continue;
      if (collections.has(from.collection)) continue; // the old name is taken by another resource now
    } else if (Object.values(previous).some((p) => p.name === to.name)) continue; // the new type names were another resource's
    out.push({ identity, from, to });
  }
  return out;
}

