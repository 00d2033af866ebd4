/**
 * Every emitter of a service package: (model) → files. No emitter touches the output disk; only a
 * first generation hands what they emit to its staging folder as it goes (write/stage.ts).
 */
import type { Model } from "../model/types.js";
import type { FreshStage } from "../write/stage.js";
import { byPath, type EmittedFile, type PackageFile, type StagedFile } from "./emitted-file.js";
import { emitClient, emitClientPackage } from "./client.js";
import { emitErrors } from "./errors.js";
import { emitHandlers } from "./handlers.js";
import { inWorker, type WorkerFile } from "./in-worker.js";
import { mark } from "../timing.js";
import { emitMediaTypes } from "./media-types.js";
import { emitPackage } from "./package.js";
import { emitReadme } from "./readme.js";
import { useSharedSchemas } from "./samples.js";
import { emitRuntime } from "./runtime.js";
import { emitSpec } from "./spec.js";
import { emitTests } from "./tests.js";
import { emitTypes, type Orphans } from "./types.js";

export type { EmittedFile, PackageFile, StagedFile } from "./emitted-file.js";
export type { Orphans } from "./types.js";

/** The validators module (src/generated/validators.js) being compiled in a worker thread. */
export interface PendingValidators {
  /** The module, once compiled. */
  readonly files: Promise<readonly WorkerFile[]>;
  /** Stops the worker (the module is not needed: the definitions have errors, or nothing changed). */
  cancel(): void;
}

/**
 * Starts compiling the validators of `model` in a worker thread: ajv takes a while on big services, and
 * `generate` starts it as soon as the model is built, so that it runs on the other core while this one
 * lints and emits the rest.
 */
export function compileValidatorsInWorker(model: Model): PendingValidators {
  const stop = new AbortController();
  const files: WorkerFile[] = [];
  const done = inWorker("validators", { model }, (batch) => files.push(...batch), stop.signal).then(() => files);
  done.catch(() => undefined); // awaited by emitService; not an unhandled rejection when cancelled
  return { files: done, cancel: () => stop.abort(new Error("the validators are not needed")) };
}

/**
 * The whole generated package, sorted by path. The docs (most of the work) are emitted in a worker
 * thread meanwhile (started early by prestart() when the caller knows it will emit), and so are the
 * validators (`validators`, when the caller started them, else started now). With `stage` (a first
 * generation) every file is written into the staging folder as soon as it is at hand — the worker's
 * pages as they arrive, this thread's files once emitted — and comes back as a StagedFile.
 */
export async function emitService(model: Model, orphans?: Orphans, stage?: undefined, validators?: PendingValidators): Promise<EmittedFile[]>;
export async function emitService(model: Model, orphans: Orphans | undefined, stage: FreshStage, validators?: PendingValidators): Promise<StagedFile[]>;
export async function emitService(model: Model, orphans?: Orphans, stage?: FreshStage, validators: PendingValidators = compileValidatorsInWorker(model)): Promise<PackageFile[]> {
  useSharedSchemas(model.schemas);
  const docs: PackageFile[] = [];
  const stop = new AbortController();
  const done = inWorker(
    "docs",
    { model },
    (files) => {
      for (const f of files) {
        const file = `docs/${f.path}`;
        docs.push(stage ? stage.write(file, f.owner, f.data) : { path: file, owner: f.owner, contents: Buffer.from(f.data.buffer, f.data.byteOffset, f.data.byteLength).toString("utf8") });
      }
    },
    stop.signal,
  ).then(() => mark("docs (worker)"));
  done.catch(() => undefined); // awaited below; not an unhandled rejection while the rest is emitted
  let files: PackageFile[];
  try {
    files = [
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
    ].map((f) => (stage ? stage.write(f.path, f.owner, f.contents) : f));
    mark("emitted but validators and docs");
    files.push(...(await validators.files).map((f) => (stage ? stage.write(f.path, f.owner, f.data) : { path: f.path, owner: f.owner, contents: Buffer.from(f.data).toString("utf8") })));
    mark("validators (worker)");
  } catch (error) {
    stop.abort(error); // no page of the worker's is written after this fails
    validators.cancel();
    throw error;
  }
  mark("emitted but docs");
  await done;
  return byPath([...files, ...docs]);
}

export { emitDocs } from "./docs/index.js";

/** The standalone client package (`generate --client-only`), sorted by path. */
export async function emitClientOnly(model: Model): Promise<EmittedFile[]> {
  useSharedSchemas(model.schemas);
  return byPath(await emitClientPackage(model, await emitTypes(model)));
}
