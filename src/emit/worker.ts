/**
 * A worker thread that runs one emitter: the docs (the largest emitter) are rendered on the
 * second core while the main thread emits the rest of the package. The worker loads its emitter as
 * soon as it starts, so that a worker started early (while the main thread still checks the
 * definitions) has nothing left to load when its input arrives. It renders its files one at a time
 * and posts them in batches, encoded (their buffers moved, not copied), so that the main thread
 * writes them while the rest renders; a last message says it is done. The validators (ajv compiling
 * every schema of a big service) run in a worker of their own, started as soon as the model is built.
 */
import fs from "node:fs";
import path from "node:path";
import { parentPort, workerData } from "node:worker_threads";
import type { Model } from "../model/types.js";
import type { ValidatorSchemas } from "../model/validator-schemas.js";
import type { LazyFile } from "./emitted-file.js";
import { printedDocumentKey } from "./memo.js";
import { hashOf } from "../write/manifest.js";

/** The emitters a worker can run, by name, with the input each takes. */
export interface WorkerJobs {
  /** `known`: the key of each file (by its path in the docs) the worker may leave unrendered when it finds that key again. */
  docs: { model: Model; known?: ReadonlyMap<string, string>; memo?: { readonly out: string; readonly generator: string } };
  validators: { schemas: ValidatorSchemas; model?: Model };
}
export type WorkerJob = keyof WorkerJobs;

/**
 * What a regeneration tells the docs worker before the model is built: where the last generation's memo is and
 * which docs files are still as it wrote them (`known`: their paths in the docs), which the worker then reads
 * while the main thread checks the definitions. The job's `memo` and `known` say the same.
 */
export interface Prepare {
  readonly memo: { readonly out: string; readonly generator: string };
  readonly known: readonly string[];
}

/** A file as a worker posts it: its contents UTF-8 encoded. */
export interface WorkerFile {
  readonly path: string;
  readonly owner: LazyFile["owner"];
  readonly data: Uint8Array;
  /** The file's key, when it has one (emit/keys.ts). */
  readonly key?: string;
  /** Not rendered: its key is the one the job's `known` gave (`data` is empty). */
  readonly known?: true;
}
/** What a worker posts: batches of files, then `done`. */
export type WorkerMessage = { readonly files: readonly WorkerFile[] } | { readonly done: true };

/** Files are posted once a batch holds this many bytes. */
const BATCH_BYTES = 256 * 1024;

type Emitter<J extends WorkerJob> = (input: WorkerJobs[J]) => LazyFile[];
const loaders: { [J in WorkerJob]: () => Promise<Emitter<J>> } = {
  docs: async () => {
    const { docsFiles, prepareDocs } = await import("./docs/index.js");
    // While the model is being built on the main thread: the first page rendered would do it otherwise.
    prepareDocs();
    const { Memo, useMemo } = await import("./memo.js");
    // The memo of the last generation (emit/memo.ts), read here: what the docs share with the rest (sample bodies) is not computed twice.
    return ({ model, memo, known }) => {
      const ready = prepared !== undefined && memo !== undefined && prepared.memo.out === memo.out && prepared.memo.generator === memo.generator ? prepared : undefined;
      const remembered = memo === undefined ? undefined : (ready?.read ?? Memo.read(memo.out, memo.generator));
      if (remembered !== undefined) useMemo(remembered);
      // An OpenAPI document of the last generation, when it is still as written (known), is taken parts of (docs/ is
      // started.ts DOCS); when the worker prepared, it read and checked every known one already.
      const previous = memo === undefined || known === undefined ? undefined : (file: string) => (!known.has(file) ? undefined : ready ? ready.files.get(file) : printedDocument(memo.out, file, remembered!));
      return docsFiles(model, previous);
    };
  },
  validators: async () => {
    const { validatorsFiles } = await import("./validators.js");
    return ({ schemas, model }) => validatorsFiles(schemas, model);
  },
};

/**
 * The bytes of the OpenAPI document `file` (its path in the docs) of the last generation in `out`, when they
 * are the ones the memo's entries were made with (their hash is the one it remembers: another run may have
 * written OUT since the memo was read); else undefined.
 */
function printedDocument(out: string, file: string, memo: import("./memo.js").Memo): Buffer | undefined {
  const key = printedDocumentKey(`docs/${file}`);
  const hash = key === undefined ? undefined : memo.findKey<string>(key);
  if (key === undefined || hash === undefined) return undefined;
  let bytes: Buffer;
  try {
    bytes = fs.readFileSync(path.join(out, "docs", file));
  } catch {
    return undefined;
  }
  if (hashOf(bytes) !== hash) return undefined;
  memo.keep(key);
  return bytes;
}

function post(message: WorkerMessage, transfer: ArrayBuffer[] = []): void {
  parentPort!.postMessage(message, transfer);
}

/** What the docs worker read before its input came (see Prepare): the memo, and the openapi files it may take parts of. */
let prepared: { readonly memo: Prepare["memo"]; readonly read: import("./memo.js").Memo; readonly files: ReadonlyMap<string, Buffer> } | undefined;

async function prepare(what: Prepare): Promise<void> {
  const [{ Memo }, { printedEntries }] = await Promise.all([import("./memo.js"), import("./docs/openapi.js")]);
  const read = Memo.read(what.memo.out, what.memo.generator).load();
  const files = new Map<string, Buffer>();
  for (const file of what.known) {
    const bytes = printedDocument(what.memo.out, file, read);
    if (bytes === undefined) continue;
    files.set(file, bytes);
    printedEntries(bytes); // indexed now (kept by the buffer)
  }
  prepared = { memo: what.memo, read, files };
}

const { job } = workerData as { job: WorkerJob };
const emitter = loaders[job]() as Promise<Emitter<WorkerJob>>;
let preparing: Promise<void> = Promise.resolve();
const onMessage = (message: WorkerJobs[WorkerJob] | { readonly prepare: Prepare }): void => {
  if ("prepare" in message) {
    preparing = prepare(message.prepare).catch(() => undefined); // never needed: the job reads what it lacks itself
    return;
  }
  parentPort!.off("message", onMessage);
  void preparing.then(() => run(message));
};
parentPort!.on("message", onMessage);

async function run(input: WorkerJobs[WorkerJob]): Promise<void> {
  let batch: WorkerFile[] = [];
  let transfer: ArrayBuffer[] = [];
  let bytes = 0;
  const known = "known" in input ? input.known : undefined;
  for (const file of (await emitter)(input)) {
    const key = file.key?.();
    if (key !== undefined && known?.get(file.path) === key) {
      batch.push({ path: file.path, owner: file.owner, data: new Uint8Array(0), key, known: true });
      continue;
    }
    const data = file.bytes?.() ?? Buffer.from(file.render());
    batch.push({ path: file.path, owner: file.owner, data, ...(key !== undefined ? { key } : {}) });
    // A buffer of its own is moved; a small one sharing Node's pool is copied.
    if (data.byteOffset === 0 && data.byteLength === data.buffer.byteLength) transfer.push(data.buffer as ArrayBuffer);
    bytes += data.byteLength;
    // The validators worker's files are few, and the first (the schema-compile findings) is awaited on its own.
    if (bytes >= BATCH_BYTES || job === "validators") {
      post({ files: batch }, transfer);
      batch = [];
      transfer = [];
      bytes = 0;
    }
  }
  // What the docs remembered (emit/memo.ts): the main thread saves the memo, with this thread's entries.
  if (job === "docs") {
    const { MEMO_ENTRIES, memo } = await import("./memo.js");
    batch.push({ path: MEMO_ENTRIES, owner: "generated", data: Buffer.from(JSON.stringify(memo().entries())) });
  }
  post({ files: batch }, transfer);
  post({ done: true });
  parentPort!.close();
}
