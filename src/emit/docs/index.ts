/** The reference docs of a service: openapi.json, the HTML reference and its Markdown twin, one page per error code. */
import type { Model } from "../../model/types.js";
import type { EmittedFile } from "../emitted-file.js";
import { emitHtmlReference } from "./html.js";
import { emitMarkdownReference } from "./markdown.js";
import { emitOpenApi } from "./openapi.js";

/** Every docs file, with paths relative to the docs root (the folder hosted at errorDocsUrl). */
export function emitDocs(model: Model): EmittedFile[] {
  return [...emitOpenApi(model), ...emitHtmlReference(model), ...emitMarkdownReference(model)].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
