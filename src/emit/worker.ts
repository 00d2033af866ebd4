/**
 * A worker thread that runs one emitter on a model it is sent: the docs (the largest emitter) are
 * rendered on the second core while the main thread emits the rest of the package. The worker
 * loads its emitter as soon as it starts, so that a worker started early (while the main thread
 * still checks the definitions) has nothing left to load when the model arrives.
 */
import { parentPort, workerData } from "node:worker_threads";
import type { Model } from "../model/types.js";
import type { EmittedFile } from "./emitted-file.js";

/** The emitters a worker can run, by name. */
export type WorkerJob = "docs";

const { job } = workerData as { job: WorkerJob };
const emitters: Record<WorkerJob, () => Promise<(model: Model) => EmittedFile[]>> = {
  docs: async () => (await import("./docs/index.js")).emitDocs,
};
const emitter = emitters[job]();
parentPort!.once("message", async (model: Model) => {
  parentPort!.postMessage((await emitter)(model));
  parentPort!.close();
});
