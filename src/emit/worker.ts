/**
 * A worker thread that runs one emitter: the docs (the largest emitter) are rendered on the
 * second core while the main thread emits the rest of the package. The worker loads its emitter as
 * soon as it starts, so that a worker started early (while the main thread still checks the
 * definitions) has nothing left to load when its input arrives. (The jobs are named so that another
 * emitter can move into a worker when measurements call for it.)
 */
import { parentPort, workerData } from "node:worker_threads";
import type { Model } from "../model/types.js";
import type { EmittedFile } from "./emitted-file.js";

/** The emitters a worker can run, by name, with the input each takes. */
export interface WorkerJobs {
  docs: { model: Model };
}
export type WorkerJob = keyof WorkerJobs;

type Emitter<J extends WorkerJob> = (input: WorkerJobs[J]) => EmittedFile[] | Promise<EmittedFile[]>;
const loaders: { [J in WorkerJob]: () => Promise<Emitter<J>> } = {
  docs: async () => {
    const { emitDocs } = await import("./docs/index.js");
    return ({ model }) => emitDocs(model);
  },
};

const { job } = workerData as { job: WorkerJob };
const emitter = loaders[job]() as Promise<Emitter<WorkerJob>>;
parentPort!.once("message", async (input: WorkerJobs[WorkerJob]) => {
  parentPort!.postMessage(await (await emitter)(input));
  parentPort!.close();
});
