/** The JSON documents of a definitions project, read and parsed once each, kept for positions. */
import type { Diagnostic } from "../diagnostics/diagnostic.js";
import type { SourceText } from "../diagnostics/locate.js";
import { report } from "../diagnostics/report.js";
import { decodeUtf8 } from "./decode-utf8.js";
import { parseJson, type JsonDocument } from "./parse-json.js";
import type { FileReader, ReadProblem } from "./read-file.js";

/** Reads each file at most once; remembers what it found so diagnostics can be located later. */
export class DocumentStore {
  private readonly docs = new Map<string, JsonDocument | ReadProblem>();
  /** The parsed documents in the order they were read (what all() returns, without a copy per call). */
  private readonly read: JsonDocument[] = [];
  readonly diagnostics: Diagnostic[] = [];

  /** `nesting`: how deep arrays and objects may nest in one file (checked before anything walks it). */
  constructor(
    private readonly reader: FileReader,
    private readonly nesting: number,
  ) {}

  /** The parsed document at an absolute path; null when it was not read (see load()). */
  get(file: string): JsonDocument | null {
    const doc = this.load(file);
    return "kind" in doc ? null : doc;
  }

  /**
   * The parsed document at an absolute path, or why it was not read: missing, outside the project,
   * not a regular file, too large. A file that is read but is not UTF-8 or not JSON is a document
   * without a value, its diagnostic in `diagnostics`.
   */
  load(file: string): JsonDocument | ReadProblem {
    const known = this.docs.get(file);
    if (known !== undefined) return known;
    const read = this.reader.read(file);
    if ("kind" in read) {
      this.docs.set(file, read);
      return read;
    }
    const decoded = decodeUtf8(read.bytes);
    let doc: JsonDocument;
    if ("offset" in decoded) {
      doc = { file, text: decoded.text, tree: undefined, value: undefined };
      this.diagnostics.push(report("invalid-utf8", { file, pointer: "", offset: decoded.offset }, { bytes: decoded.bytes }));
    } else {
      const [parsed, diagnostics] = parseJson(file, decoded.text, this.nesting);
      this.diagnostics.push(...diagnostics);
      doc = parsed;
    }
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
