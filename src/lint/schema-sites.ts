/** Where the schemas of a model are, for rules that judge keywords and patterns inside them. */
import type { Target } from "../diagnostics/diagnostic.js";
import { walkSchemas } from "../model/schema-walk.js";
import type { Model } from "../model/types.js";

/**
 * Calls `visit` for every schema object of the model: first where it is written (resource files, shared
 * definitions, action query and response schemas), with `viaRef` false and `at` its own position; then
 * every shared schema (what a $ref reaches) at the position it is read from, with `viaRef` true. The second
 * pass finds what a $ref reaches in a part of a file that is not a schema (`common.json#/formats/code`);
 * a rule reports there only what the first pass did not find.
 */
export function visitSchemas(model: Model, visit: (schema: Readonly<Record<string, unknown>>, at: Target, viaRef: boolean) => void): void {
  for (const site of sitesOf(model)) visit(site.schema, site.at, site.viaRef);
}

interface Site {
  readonly schema: Readonly<Record<string, unknown>>;
  readonly at: Target;
  readonly viaRef: boolean;
}

/** The sites of a model, walked once for every rule that visits them (the model does not change once built). */
const sites = new WeakMap<Model, readonly Site[]>();

function sitesOf(model: Model): readonly Site[] {
  let found = sites.get(model);
  if (found !== undefined) return found;
  const list: Site[] = [];
  for (const root of model.schemaRoots) {
    walkSchemas(root.schema, root.origin.pointer, (schema, pointer) => list.push({ schema, at: { file: root.origin.file, pointer }, viaRef: false }));
  }
  for (const shared of model.schemas) {
    walkSchemas(shared.schema, shared.origin.pointer, (schema, pointer) => list.push({ schema, at: { file: shared.origin.file, pointer, kind: "key" }, viaRef: true }));
  }
  sites.set(model, list);
  return list;
}
