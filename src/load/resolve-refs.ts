/** Resolves $ref between definition files, offline; files referenced but not listed are read on demand. */
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { childPointer, tokensOf } from "../diagnostics/diagnostic.js";
import type { DocumentStore } from "./documents.js";
import type { JsonDocument } from "./parse-json.js";
import type { ReadProblem } from "./read-file.js";

/** Where a $ref lands: the document, the pointer inside it, and the value there. */
export interface Resolved {
  readonly file: string;
  readonly pointer: string;
  readonly value: unknown;
}

/**
 * Why a $ref does not resolve: no such file, a file that was not read (outside the project, not a
 * regular file, too large), a file that did not parse, or nothing at the fragment.
 */
export type RefFailure =
  | { readonly kind: "no-file" | "no-id" | "unparsed" | "bad-uri" }
  | { readonly kind: "refused"; readonly problem: ReadProblem }
  | { readonly kind: "no-target"; readonly file: string; readonly fragment: string };

/** Resolves $ref values against documents by file path and by `$id`. */
export class RefResolver {
  /** Base URI (without a trailing "#") → the first document read with that base, so a lookup is not a scan. */
  private readonly byBase = new Map<string, JsonDocument>();
  /** How many of the store's documents byBase covers: the store grows as refs name unlisted files. */
  private indexed = 0;
  private readonly bases = new WeakMap<JsonDocument, string>();
  private readonly anchors = new WeakMap<JsonDocument, Map<string, { pointer: string; value: unknown }>>();

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

  /**
   * The `$anchor`s of a document, indexed once: a walk of the whole document per "#name" $ref made
   * a file of many such $refs quadratic (20 000 of them in 500 KB took minutes).
   */
  private anchorsOf(doc: JsonDocument): ReadonlyMap<string, { pointer: string; value: unknown }> {
    let anchors = this.anchors.get(doc);
    if (!anchors) {
      anchors = new Map();
      indexAnchors(doc.value, "", anchors);
      this.anchors.set(doc, anchors);
    }
    return anchors;
  }

  /** baseOf(doc).href, computed once per document (pathToFileURL is too slow to repeat per lookup). */
  private baseHref(doc: JsonDocument): string {
    let href = this.bases.get(doc);
    if (href === undefined) this.bases.set(doc, (href = this.baseOf(doc).href));
    return href;
  }

  /** byBase, extended with the documents read since the last lookup (the first document of a base wins). */
  private indexedBases(): ReadonlyMap<string, JsonDocument> {
    const docs = this.store.all();
    for (; this.indexed < docs.length; this.indexed++) {
      const doc = docs[this.indexed]!;
      const key = this.baseHref(doc).replace(/#$/, "");
      if (!this.byBase.has(key)) this.byBase.set(key, doc);
    }
    return this.byBase;
  }

  /** Resolves `ref` written in `fromFile`; undefined when nothing is there. */
  resolve(fromFile: string, ref: string): Resolved | undefined {
    const hit = this.lookup(fromFile, ref);
    return "failure" in hit ? undefined : hit;
  }

  /** Why `ref` in `fromFile` does not resolve, or undefined when it does. */
  explain(fromFile: string, ref: string): RefFailure | undefined {
    const hit = this.lookup(fromFile, ref);
    return "failure" in hit ? hit.failure : undefined;
  }

  /** Where `ref` written in `fromFile` lands, or why it does not. */
  lookup(fromFile: string, ref: string): Resolved | { failure: RefFailure } {
    const from = this.store.get(fromFile);
    if (!from) return { failure: { kind: "no-file" } };
    let url: URL;
    let fragment: string;
    let doc: JsonDocument | ReadProblem | null;
    try {
      url = new URL(ref, this.baseHref(from));
      fragment = decodeURIComponent(url.hash.replace(/^#/, ""));
      url.hash = "";
      doc = this.documentAt(url, fromFile, ref);
    } catch {
      // new URL, decodeURIComponent and fileURLToPath all throw on malformed input such as "%%%".
      return { failure: { kind: "bad-uri" } };
    }
    if (doc !== null && "kind" in doc && doc.kind !== "missing") return { failure: { kind: "refused", problem: doc } };
    if (!doc || "kind" in doc) return { failure: { kind: url.protocol === "file:" ? "no-file" : "no-id" } };
    // The file's own json-syntax error says what is wrong with it.
    if (doc.value === undefined) return { failure: { kind: "unparsed" } };
    const missing: RefFailure = { kind: "no-target", file: doc.file, fragment };
    if (fragment === "" || fragment.startsWith("/")) {
      const target = valueAt(doc.value, fragment);
      return target ? { file: doc.file, pointer: fragment, value: target.value } : { failure: missing };
    }
    const anchored = this.anchorsOf(doc).get(fragment);
    return anchored ? { file: doc.file, pointer: anchored.pointer, value: anchored.value } : { failure: missing };
  }

  /** The document a URL names: by `$id` among loaded documents, else by file path (read only inside the project). */
  private documentAt(url: URL, fromFile: string, ref: string): JsonDocument | ReadProblem | null {
    const found = this.indexedBases().get(url.href);
    if (found) return found;
    if (url.protocol === "file:") return this.store.load(fileURLToPath(url));
    // An absolute $id that matches no document: try the ref's path beside the referencing file.
    const relative = ref.split("#")[0] ?? "";
    if (relative && !/^[a-z][a-z0-9+.-]*:/i.test(relative)) return this.store.load(path.resolve(path.dirname(fromFile), relative));
    const last = url.pathname.split("/").pop();
    return last ? this.store.load(path.resolve(path.dirname(fromFile), last)) : null;
  }
}

/** The value a JSON pointer names in a parsed document (own keys only; array indexes in range), if any. */
function valueAt(value: unknown, pointer: string): { value: unknown } | undefined {
  let v = value;
  for (const token of tokensOf(pointer)) {
    if (Array.isArray(v)) {
      if (!/^\d+$/.test(token) || Number(token) >= v.length) return undefined;
      v = v[Number(token)];
    } else if (v !== null && typeof v === "object" && Object.prototype.hasOwnProperty.call(v, token)) {
      v = (v as Record<string, unknown>)[token];
    } else {
      return undefined;
    }
  }
  return { value: v };
}

/** Every `$anchor` of a document and where it is; the first in document order wins. */
function indexAnchors(value: unknown, pointer: string, anchors: Map<string, { pointer: string; value: unknown }>): void {
  if (value === null || typeof value !== "object") return;
  const anchor = (value as { $anchor?: unknown }).$anchor;
  if (typeof anchor === "string" && !anchors.has(anchor)) anchors.set(anchor, { pointer, value });
  for (const [k, v] of Object.entries(value)) indexAnchors(v, childPointer(pointer, k), anchors);
}
