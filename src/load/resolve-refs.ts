/** Resolves $ref between definition files, offline; files referenced but not listed are read on demand. */
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { childPointer } from "../diagnostics/diagnostic.js";
import { walkPointer } from "../diagnostics/locate.js";
import type { DocumentStore } from "./documents.js";
import type { JsonDocument } from "./parse-json.js";

/** Where a $ref lands: the document, the pointer inside it, and the value there. */
export interface Resolved {
  readonly file: string;
  readonly pointer: string;
  readonly value: unknown;
}

/** Resolves $ref values against documents by file path and by `$id`. */
export class RefResolver {
  constructor(private readonly store: DocumentStore) {}

  /** The base URI of a document: its root `$id` when absolute, else its file URL. */
  baseOf(doc: JsonDocument): URL {
    const id = (doc.value as { $id?: unknown } | undefined)?.$id;
    if (typeof id === "string") {
      try {
        return new URL(id);
      } catch {
        /* a relative $id is resolved against the file */
        try {
          return new URL(id, pathToFileURL(doc.file));
        } catch {
          /* fall through */
        }
      }
    }
    return pathToFileURL(doc.file);
  }

  /** Resolves `ref` written in `fromFile`; undefined when nothing is there. */
  resolve(fromFile: string, ref: string): Resolved | undefined {
    const from = this.store.get(fromFile);
    if (!from) return undefined;
    let url: URL;
    try {
      url = new URL(ref, this.baseOf(from));
    } catch {
      return undefined;
    }
    const fragment = decodeURIComponent(url.hash.replace(/^#/, ""));
    url.hash = "";
    const doc = this.documentAt(url, fromFile, ref);
    if (doc?.value === undefined || !doc.tree) return undefined;
    if (fragment === "" || fragment.startsWith("/")) {
      const { complete } = walkPointer(doc.tree, fragment);
      if (!complete) return undefined;
      return { file: doc.file, pointer: fragment, value: valueAt(doc.value, fragment) };
    }
    const anchored = findAnchor(doc.value, fragment, "");
    return anchored ? { file: doc.file, pointer: anchored.pointer, value: anchored.value } : undefined;
  }

  /** The document a URL names: by `$id` among loaded documents, else by file path. */
  private documentAt(url: URL, fromFile: string, ref: string): JsonDocument | null {
    const href = url.href;
    for (const doc of this.store.all()) {
      if (this.baseOf(doc).href.replace(/#$/, "") === href) return doc;
    }
    if (url.protocol === "file:") return this.store.get(fileURLToPath(url));
    // An absolute $id that matches no document: try the ref's path beside the referencing file.
    const relative = ref.split("#")[0] ?? "";
    if (relative && !/^[a-z][a-z0-9+.-]*:/i.test(relative)) return this.store.get(path.resolve(path.dirname(fromFile), relative));
    const last = url.pathname.split("/").pop();
    return last ? this.store.get(path.resolve(path.dirname(fromFile), last)) : null;
  }
}

/** The value at a JSON pointer of a plain value. */
function valueAt(value: unknown, pointer: string): unknown {
  let v = value;
  for (const token of pointer.split("/").slice(1)) {
    const key = token.replace(/~1/g, "/").replace(/~0/g, "~");
    v = v !== null && typeof v === "object" ? (v as Record<string, unknown>)[key] : undefined;
  }
  return v;
}

function findAnchor(value: unknown, anchor: string, pointer: string): { pointer: string; value: unknown } | undefined {
  if (value === null || typeof value !== "object") return undefined;
  if ((value as { $anchor?: unknown }).$anchor === anchor) return { pointer, value };
  for (const [k, v] of Object.entries(value)) {
    const hit = findAnchor(v, anchor, childPointer(pointer, k));
    if (hit) return hit;
  }
  return undefined;
}
