/**
 * The reference docs of a service: openapi.json, the HTML reference and its Markdown twin, one page per error
 * code; for a service that serves older versions too, each one's openapi.v<N>.json and page set (v<N>/) and a
 * changelog (./versions.ts).
 */
import type { Model } from "../../model/types.js";
import { byPath, renderAll, type EmittedFile, type LazyFile } from "../emitted-file.js";
import { htmlReferenceFiles } from "./html.js";
import { markdownReferenceFiles } from "./markdown.js";
import { openApiFiles, type PreviousDocs } from "./openapi.js";
import { modelOfVersion } from "../../model/version-model.js";
import { useSharedSchemas } from "../samples.js";
import { docsVersionsOf } from "./versions.js";
import { prepareTemplates } from "../shared/templates.js";

/** Every docs file, with paths relative to the docs root (the folder hosted at errorDocsUrl). */
export function emitDocs(model: Model): EmittedFile[] {
  return byPath(renderAll(docsFiles(model)));
}

/** The docs files, each rendered when asked (openapi.json, the largest, first); `previous` reads the last generation's (a regeneration). */
export function docsFiles(model: Model, previous?: PreviousDocs): LazyFile[] {
  useSharedSchemas(model.schemas);
  const versions = docsVersionsOf(model);
  // Each version's reference is made from its model: the current one's without what x-until took out of it.
  const models = (versions?.all ?? [{ version: model.service.version }]).map((v) => modelOfVersion(model, v.version)).reverse();
  return [...openApiFiles(model, previous), ...models.flatMap((m) => [...htmlReferenceFiles(m, versions), ...markdownReferenceFiles(m, versions)])];
}

/** Readies what rendering the docs needs before any model is at hand (their templates): see worker.ts. */
export function prepareDocs(): void {
  prepareTemplates("docs");
}
