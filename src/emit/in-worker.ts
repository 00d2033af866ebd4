/** Runs an emitter in a worker thread (see worker.ts), so that two emitters use both cores. */
import { Worker } from "node:worker_threads";
import type { Model } from "../model/types.js";
import type { EmittedFile } from "./emitted-file.js";
import type { WorkerJob } from "./worker.js";

// From dist/ the worker is worker.js; when src/ runs through tsx (tests), worker.ts, which the
// worker loads with the parent's --import tsx (workers inherit execArgv).
const workerFile = new URL(import.meta.url.endsWith(".ts") ? "./worker.ts" : "./worker.js", import.meta.url);

/** The files `job` emits for `model`, computed in a worker thread; rejects with the worker's error. */
export function inWorker(job: WorkerJob, model: Model): Promise<EmittedFile[]> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(workerFile, { workerData: { job, model } });
    let result: EmittedFile[] | undefined;
    worker.once("message", (files: EmittedFile[]) => (result = files));
    worker.once("error", reject);
    worker.once("exit", (code) => (result ? resolve(result) : reject(new Error(`the ${job} worker exited with code ${code} before it answered`))));
  });
}
