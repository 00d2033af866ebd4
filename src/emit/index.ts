/**
 * Every emitter of a service package: (model) → files. No emitter touches the output disk; only a
 * first generation hands what they emit to its staging folder as it goes (write/stage.ts).
 */
import type { Model } from "../model/types.js";
import type { FreshStage } from "../write/stage.js";
import { byPath, encodedFile, type EmittedFile, type PackageFile, type StagedFile } from "./emitted-file.js";
import { emitClient, emitClientPackage } from "./client.js";
import { emitErrors } from "./errors.js";
import { emitHandlers } from "./handlers.js";
import { mark } from "../timing.js";
import { emitMediaTypes } from "./media-types.js";
import { emitPackage } from "./package.js";
import { emitReadme } from "./readme.js";
import { useSharedSchemas } from "./samples.js";
import { emitRuntime } from "./runtime.js";
import { emitSpec } from "./spec.js";
import { emitTests } from "./tests.js";
import { emitTypes, type Orphans } from "./types.js";
import { DOCS, startDocs, startValidators, type Started } from "./started.js";
import type { KnownKeys } from "./keys.js";
import { hashOfFile, knownFile } from "../write/manifest.js";

export type { EmittedFile, PackageFile, StagedFile } from "./emitted-file.js";
export type { Orphans } from "./types.js";
export { startDocs, startValidators, type PendingDocs, type PendingValidators, type Started } from "./started.js";

/**
 * The whole generated package, sorted by path. The docs (most of the work) are emitted in a worker
 * thread meanwhile (`started.docs`, when the caller started them with startDocs, else started now), and
 * so are the validators of a big service (`started.validators`, likewise). With `stage` (a first
 * generation) every file is written into the staging folder as soon as it is at hand — the worker's
 * pages as they arrive, this thread's files once emitted — and comes back as a StagedFile.
 */
export async function emitService(model: Model, orphans?: Orphans, stage?: undefined, started?: Started, known?: KnownKeys): Promise<EmittedFile[]>;
export async function emitService(model: Model, orphans: Orphans | undefined, stage: FreshStage, started?: Started, known?: KnownKeys): Promise<StagedFile[]>;
export async function emitService(model: Model, orphans?: Orphans, stage?: FreshStage, started: Started = {}, known?: KnownKeys): Promise<PackageFile[]> {
  const pendingDocs = started.docs ?? startDocs(model, known);
  useSharedSchemas(model.schemas);
  const validators = started.validators ?? startValidators(model, false, known);
  const docs: PackageFile[] = [];
  let files: PackageFile[];
  try {
    pendingDocs.follow((f) => {
      const file = `${DOCS}${f.path}`;
      const was = f.known ? known?.get(file) : undefined;
      if (was !== undefined) docs.push(knownFile(file, was.key, was.hash));
      else if (stage) docs.push(stage.write(file, f.owner, f.data, f.key));
      else {
        const page = encodedFile(file, f.owner, f.data, f.key);
        hashOfFile(page); // now, while this thread waits for the worker's last pages, not when the plan asks (openapi.json: 17 MB at N = 500)
        docs.push(page);
      }
    });
    const emitters: (() => EmittedFile[] | Promise<EmittedFile[]>)[] = [
      () => emitPackage(model),
      () => emitReadme(model),
      () => emitSpec(model),
      () => emitErrors(model),
      () => emitMediaTypes(model),
      () => emitTypes(model, orphans),
      () => emitHandlers(model),
      () => emitRuntime(),
      () => emitTests(model),
      () => emitClient(model),
    ];
    files = [];
    for (const emit of emitters) {
      for (const f of await emit()) files.push(stage ? stage.write(f.path, f.owner, f.contents) : f);
      // The docs pages that arrived meanwhile are written now, not all after this thread's last file: the
      // docs finish last, and what is left to write when they do is then their last batch only.
      await new Promise((resolve) => setImmediate(resolve));
    }
    mark("emitted but validators and docs");
    for (const f of await validators.files) {
      const was = f.known ? known?.get(f.path) : undefined;
      if (was !== undefined) files.push(knownFile(f.path, was.key, was.hash));
      else files.push(stage ? stage.write(f.path, f.owner, f.data, f.key) : encodedFile(f.path, f.owner, f.data, f.key));
    }
    mark("validators");
  } catch (error) {
    pendingDocs.cancel(); // no page of the worker's is written after this fails
    validators.cancel();
    throw error;
  }
  mark("emitted but docs");
  await pendingDocs.done;
  return byPath([...files, ...docs]);
}

export { emitDocs } from "./docs/index.js";

/** The standalone client package (`generate --client-only`), sorted by path; of an older version's model for `--version N`. */
export async function emitClientOnly(model: Model): Promise<EmittedFile[]> {
  useSharedSchemas(model.schemas);
  return byPath(await emitClientPackage(model, await emitTypes(model)));
}
