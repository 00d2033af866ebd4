/**
 * A worker thread that runs one emitter: the docs (the largest emitter) and the types (the
 * json-schema-to-typescript compile) run on the second core while the main thread emits the rest
 * of the package. The worker loads its emitter as soon as it starts, so that a worker started
 * early (while the main thread still checks the definitions) has nothing left to load when its
 * input arrives.
 */
import { parentPort, workerData } from "node:worker_threads";
import type { Model } from "../model/types.js";
import type { EmittedFile } from "./emitted-file.js";
import type { Orphans } from "./types.js";

/** The emitters a worker can run, by name, with the input each takes. */
export interface WorkerJobs {
  docs: { model: Model };
  types: { model: Model; orphans?: Orphans };
}
export type WorkerJob = keyof WorkerJobs;

type Emitter<J extends WorkerJob> = (input: WorkerJobs[J]) => EmittedFile[] | Promise<EmittedFile[]>;
const loaders: { [J in WorkerJob]: () => Promise<Emitter<J>> } = {
  docs: async () => {
    const { emitDocs } = await import("./docs/index.js");
    return ({ model }) => emitDocs(model);
  },
  types: async () => {
    const { emitTypes } = await import("./types.js");
    return ({ model, orphans }) => emitTypes(model, orphans);
  },
};

const { job } = workerData as { job: WorkerJob };
const emitter = loaders[job]() as Promise<Emitter<WorkerJob>>;
parentPort!.once("message", async (input: WorkerJobs[WorkerJob]) => {
  parentPort!.postMessage(await (await emitter)(input));
  parentPort!.close();
});
