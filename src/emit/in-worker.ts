/** Runs an emitter in a worker thread (see worker.ts), so that two emitters use both cores. */
import { Worker } from "node:worker_threads";
import type { EmittedFile } from "./emitted-file.js";
import type { WorkerJob, WorkerJobs } from "./worker.js";

// From dist/ the worker is worker.js; when src/ runs through tsx (tests), worker.ts, which the
// worker loads with the parent's --import tsx (workers inherit execArgv).
const workerFile = new URL(import.meta.url.endsWith(".ts") ? "./worker.ts" : "./worker.js", import.meta.url);

const started = new Map<WorkerJob, Worker>();

/**
 * Starts the worker of `job` now, so that it loads its modules while the caller does other work
 * (an idle started worker never keeps the process alive).
 */
export function prestart(job: WorkerJob): void {
  if (started.has(job)) return;
  const worker = new Worker(workerFile, { workerData: { job } });
  worker.unref();
  worker.on("error", () => undefined); // reported by the inWorker call that uses it
  started.set(job, worker);
}

/** The files `job` emits for `input`, computed in a worker thread; rejects with the worker's error. */
export function inWorker<J extends WorkerJob>(job: J, input: WorkerJobs[J]): Promise<EmittedFile[]> {
  const worker = started.get(job) ?? new Worker(workerFile, { workerData: { job } });
  started.delete(job);
  worker.ref();
  return new Promise((resolve, reject) => {
    let result: EmittedFile[] | undefined;
    worker.once("message", (files: EmittedFile[]) => (result = files));
    worker.once("error", reject);
    worker.once("exit", (code) => (result ? resolve(result) : reject(new Error(`the ${job} worker exited with code ${code} before it answered`))));
    worker.postMessage(input);
  });
}
