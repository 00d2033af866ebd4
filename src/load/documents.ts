/** The JSON documents of a definitions project, read and parsed once each, kept for positions. */
import fs from "node:fs";
import type { Diagnostic } from "../diagnostics/diagnostic.js";
import type { SourceText } from "../diagnostics/locate.js";
import { parseJson, type JsonDocument } from "./parse-json.js";

/** Reads each file at most once; remembers what it found so diagnostics can be located later. */
export class DocumentStore {
  private readonly docs = new Map<string, JsonDocument | null>();
  /** The parsed documents in the order they were read (what all() returns, without a copy per call). */
  private readonly read: JsonDocument[] = [];
  readonly diagnostics: Diagnostic[] = [];

  /** The parsed document at an absolute path; null when the file does not exist or is not a file. */
  get(file: string): JsonDocument | null {
    const known = this.docs.get(file);
    if (known !== undefined) return known;
    let text: string;
    try {
      text = fs.readFileSync(file, "utf8");
    } catch {
      this.docs.set(file, null);
      return null;
    }
    const [doc, diagnostics] = parseJson(file, text.replace(/^\uFEFF/, ""));
    this.diagnostics.push(...diagnostics);
    this.docs.set(file, doc);
    this.read.push(doc);
    return doc;
  }

  /** Every document read so far, in reading order; grows as files are read on demand. */
  all(): readonly JsonDocument[] {
    return this.read;
  }

  /** Sources for the renderer, by absolute path. */
  sources(): Map<string, SourceText> {
    // The documents themselves: a tree is built only for a file a diagnostic is located in.
    return new Map(this.all().map((d) => [d.file, d]));
  }
}
