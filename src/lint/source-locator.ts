/**
 * Where a part of a model schema is written. The model's property and action schemas have their $refs
 * inlined: a pointer inside one may run through a $ref into another file. This follows it through the
 * schemas as written (Model.schemaRoots), as the inlining did, so a finding points at the very keyword.
 */
import path from "node:path";
import { childPointer, tokensOf, type Target } from "../diagnostics/diagnostic.js";
import type { Model, Origin } from "../model/types.js";

/** Most $refs followed for one token of a pointer (a chain of refs to refs). */
const MAX_HOPS = 32;

/**
 * A function from (where a schema is written, a pointer inside its inlined form) to where that part is
 * written: the deepest place the pointer reaches in the files (the schema's own position at worst).
 * @example locate(field.origin, "/anyOf/0/pattern") → { file: ".../common.json", pointer: "/$defs/code/pattern" }
 */
export function sourceLocator(model: Model): (origin: Origin, pointer: string) => Target {
  const documents = new Map<string, { pointer: string; schema: unknown }[]>();
  for (const root of model.schemaRoots) {
    const list = documents.get(root.origin.file) ?? [];
    list.push({ pointer: root.origin.pointer, schema: root.schema });
    documents.set(root.origin.file, list);
  }
  /** The raw node at (file, pointer), from the schema root that holds it. */
  const rawAt = (file: string, pointer: string): { found: boolean; node: unknown } => {
    for (const root of documents.get(file) ?? []) {
      if (pointer !== root.pointer && !pointer.startsWith(`${root.pointer}/`)) continue;
      let node: unknown = root.schema;
      for (const t of tokensOf(pointer.slice(root.pointer.length))) {
        if (node === null || typeof node !== "object" || !Object.hasOwn(node, t)) return { found: false, node: undefined };
        node = (node as Record<string, unknown>)[t];
      }
      return { found: true, node };
    }
    return { found: false, node: undefined };
  };
  /** Where a $ref written in `file` leads, when it leads to a schema the model read. */
  const follow = (file: string, ref: string): { file: string; pointer: string; node: unknown } | undefined => {
    const hash = ref.indexOf("#");
    const target = hash === -1 ? ref : ref.slice(0, hash);
    const fragment = hash === -1 ? "" : ref.slice(hash);
    let to = file;
    if (target !== "") {
      try {
        to = path.resolve(path.dirname(file), decodeURIComponent(target));
      } catch {
        return undefined;
      }
    }
    const pointer = tokensOf(fragment).reduce((p, t) => childPointer(p, t), "");
    const hit = rawAt(to, pointer);
    return hit.found ? { file: to, pointer, node: hit.node } : undefined;
  };
  return (origin, inner) => {
    let file = origin.file;
    let pointer = origin.pointer;
    let node = rawAt(file, pointer).node;
    for (const token of tokensOf(inner)) {
      // A $ref's siblings win over its target's keywords, as in the inlined schema.
      for (let hops = 0; isObject(node) && !Object.hasOwn(node, token) && typeof node.$ref === "string" && hops < MAX_HOPS; hops++) {
        const hit = follow(file, node.$ref);
        if (!hit) break;
        ({ file, pointer, node } = hit);
      }
      if (node === null || typeof node !== "object" || !Object.hasOwn(node, token)) break;
      node = (node as Record<string, unknown>)[token];
      pointer = childPointer(pointer, token);
    }
    return { file, pointer };
  };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
