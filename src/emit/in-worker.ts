/** Runs an emitter in a worker thread (see worker.ts), so that two emitters use both cores. */
import { Worker } from "node:worker_threads";
import type { Prepare, WorkerFile, WorkerJob, WorkerJobs, WorkerMessage } from "./worker.js";

export type { WorkerFile } from "./worker.js";

// From dist/ the worker is worker.js; when src/ runs through tsx (tests, bin/dev.js), worker.ts.
const fromSource = import.meta.url.endsWith(".ts");
const workerFile = new URL(fromSource ? "./worker.ts" : "./worker.js", import.meta.url);

const started = new Map<WorkerJob, Worker>();

function newWorker(job: WorkerJob): Worker {
  if (!fromSource) return new Worker(workerFile, { workerData: { job } });
  // A worker inherits --import tsx but not the loader hooks it registers: it registers them itself first.
  const tsx = import.meta.resolve("tsx/esm/api");
  const code = `import(${JSON.stringify(tsx)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(workerFile.href)}); });`;
  return new Worker(code, { eval: true, workerData: { job } });
}

/**
 * Starts the worker of `job` now, so that it loads its modules while the caller does other work
 * (an idle started worker never keeps the process alive).
 */
export function prestart(job: WorkerJob): void {
  if (started.has(job)) return;
  const worker = newWorker(job);
  worker.unref();
  worker.on("error", () => undefined); // reported by the inWorker call that uses it
  started.set(job, worker);
}

/**
 * Hands the started worker of `job` (prestart) what it can read before its input comes: the docs worker reads the
 * last generation's memo and docs files meanwhile (worker.ts `Prepare`). Nothing when no worker was started.
 */
export function prepare(job: WorkerJob, what: Prepare): void {
  started.get(job)?.postMessage({ prepare: what });
}

/**
 * Runs `job` on `input` in a worker thread, handing each batch of files it posts to `onFiles` as it
 * arrives (whenever this thread is free). Resolves when the worker has posted every file; rejects
 * with the worker's error, or with the first error `onFiles` throws, or when `signal` aborts (the
 * worker is then stopped, and `onFiles` never called again).
 */
export function inWorker<J extends WorkerJob>(job: J, input: WorkerJobs[J], onFiles: (files: readonly WorkerFile[]) => void, signal?: AbortSignal): Promise<void> {
  const worker = started.get(job) ?? newWorker(job);
  started.delete(job);
  worker.ref();
  return new Promise((resolve, reject) => {
    let done = false;
    let failure: unknown;
    const stop = (error: unknown) => {
      failure ??= error;
      void worker.terminate();
    };
    signal?.addEventListener("abort", () => stop(signal.reason), { once: true });
    worker.on("message", (message: WorkerMessage) => {
      if (failure !== undefined) return;
      if ("done" in message) {
        done = true;
        return;
      }
      try {
        onFiles(message.files);
      } catch (error) {
        stop(error);
      }
    });
    worker.once("error", reject);
    worker.once("exit", (code) => {
      if (failure !== undefined) reject(failure);
      else if (done) resolve();
      else reject(new Error(`the ${job} worker exited with code ${code} before it finished`));
    });
    worker.postMessage(input);
  });
}
