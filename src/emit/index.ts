/** Every emitter of a service package: (model) → files. No emitter touches the output disk. */
import type { Model } from "../model/types.js";
import type { EmittedFile } from "./emitted-file.js";
import { emitClient, emitClientPackage } from "./client.js";
import { emitErrors } from "./errors.js";
import { emitHandlers } from "./handlers.js";
import { inWorker } from "./in-worker.js";
import { mark } from "../timing.js";
import { emitMediaTypes } from "./media-types.js";
import { emitPackage } from "./package.js";
import { emitReadme } from "./readme.js";
import { emitRuntime } from "./runtime.js";
import { emitSpec } from "./spec.js";
import { emitTests } from "./tests.js";
import { emitTypes, type Orphans } from "./types.js";

export type { EmittedFile } from "./emitted-file.js";
export type { Orphans } from "./types.js";

/**
 * The whole generated package, sorted by path. The docs (most of the work) are emitted in a worker
 * thread meanwhile (started early by prestart() when the caller knows it will emit).
 */
export async function emitService(model: Model, orphans?: Orphans): Promise<EmittedFile[]> {
  const docs = inWorker("docs", { model }).then((files) => (mark("docs (worker)"), files));
  docs.catch(() => undefined); // awaited below; not an unhandled rejection while the rest is emitted
  const files = [
    ...emitPackage(model),
    ...emitReadme(model),
    ...emitSpec(model),
    ...emitErrors(model),
    ...emitMediaTypes(model),
    ...(await emitTypes(model, orphans)),
    ...emitHandlers(model),
    ...emitRuntime(),
    ...emitTests(model),
    ...emitClient(model),
  ];
  mark("emitted but docs");
  files.push(...(await docs).map((f) => ({ ...f, path: `docs/${f.path}` })));
  return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

export { emitDocs } from "./docs/index.js";

/** The standalone client package (`generate --client-only`), sorted by path. */
export async function emitClientOnly(model: Model): Promise<EmittedFile[]> {
  const files = await emitClientPackage(model, await emitTypes(model));
  return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
