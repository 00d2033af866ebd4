/**
 * A worker thread that runs one emitter on a model it is sent: the docs (the largest emitter) are
 * rendered on the second core while the main thread emits the rest of the package.
 */
import { parentPort, workerData } from "node:worker_threads";
import type { Model } from "../model/types.js";
import type { EmittedFile } from "./emitted-file.js";

/** The emitters a worker can run, by name. */
export type WorkerJob = "docs";

const { job, model } = workerData as { job: WorkerJob; model: Model };
const emitters: Record<WorkerJob, () => Promise<EmittedFile[]>> = {
  docs: async () => (await import("./docs/index.js")).emitDocs(model),
};
parentPort!.postMessage(await emitters[job]());
