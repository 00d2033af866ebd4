/**
 * The emitters `generate` starts in other threads as soon as the model is built, before it lints: the docs
 * (the longest of all, in a worker thread) and the validators (a worker of their own for a big service). A
 * module of its own, light to load: `generate` loads it with the check, and the other emitters after the
 * check, so that the docs worker has its model without waiting for them to load.
 */
import type { Diagnostic } from "../diagnostics/diagnostic.js";
import type { Model } from "../model/types.js";
import type { ValidatorSchemas } from "../model/validator-schemas.js";
import { mark } from "../timing.js";
import type { KnownKeys } from "./keys.js";
import { inWorker, type WorkerFile } from "./in-worker.js";
import { SCHEMA_COMPILE_FINDINGS, VALIDATORS_FILE, validatorSchemasOf, validatorsFiles } from "./validators.js";
import { keyOf } from "./keys.js";
import { MEMO_ENTRIES, memo as currentMemo, type MemoEntries } from "./memo.js";

/** The validators module (src/generated/validators.js), compiled or being compiled. */
export interface PendingValidators {
  /** The module, once compiled. */
  readonly files: Promise<readonly WorkerFile[]>;
  /** Stops a worker compiling it (it is not needed: the definitions have errors, or nothing changed). */
  cancel(): void;
  /**
   * The findings of the schema-compile rule on the model, when the worker compiling the validators runs
   * that rule too (startValidators with `lint`, for a big service): the check then leaves it out.
   */
  readonly compiled?: Promise<Diagnostic[]>;
}

/**
 * Below this much schema text (JSON, distinct bodies and queries and the shared schemas) the validators are
 * compiled on this thread: a worker first spends ~0.25 s of CPU loading ajv and the emitter, more than ajv
 * takes for this much (the synthetic API of 850 resources has 4 KB: its bodies differ only in annotations).
 */
const WORKER_FROM_BYTES = 64 * 1024;

/**
 * Starts compiling the validators of `model`: ajv takes a while on big services (Stripe's schemas: seconds),
 * so `generate` starts it as soon as the model is built, in a worker thread when the schemas are many, so
 * that it runs on the other core while this one lints and emits the rest; few are compiled at once here.
 */
export function startValidators(model: Model, lint = false, known?: KnownKeys): PendingValidators {
  const schemas = validatorSchemasOf(model);
  // Incremental generation: the module of the same schemas is the last generation's, not compiled again (the
  // check then runs the schema-compile rule itself, from its memo).
  const key = keyOf("validators module", schemas);
  if (known?.get(VALIDATORS_FILE)?.key === key) {
    const files = Promise.resolve([{ path: VALIDATORS_FILE, owner: "generated" as const, data: new Uint8Array(0), key, known: true as const }]);
    return { files, cancel: () => undefined };
  }
  if (schemaBytes(schemas) < WORKER_FROM_BYTES) {
    // Compiled when first awaited (emitService, once the docs worker has its model), not now: the check
    // this is started from holds up the docs, which take longest.
    let files: Promise<readonly WorkerFile[]> | undefined;
    const compile = () => validatorsFiles(schemas).map((f): WorkerFile => ({ path: f.path, owner: f.owner, data: Buffer.from(f.render()), ...(f.path === VALIDATORS_FILE ? { key } : {}) }));
    return {
      get files() {
        return (files ??= new Promise((resolve) => resolve(compile())));
      },
      cancel: () => undefined,
    };
  }
  const stop = new AbortController();
  const files: WorkerFile[] = [];
  let found: ((diagnostics: Diagnostic[]) => void) | undefined;
  const compiled = lint ? new Promise<Diagnostic[]>((resolve) => (found = resolve)) : undefined;
  const done = inWorker(
    "validators",
    { schemas, ...(lint ? { model } : {}) },
    (batch) => {
      for (const f of batch) {
        if (f.path === SCHEMA_COMPILE_FINDINGS) found!(JSON.parse(Buffer.from(f.data).toString("utf8")) as Diagnostic[]);
        else files.push(f.path === VALIDATORS_FILE ? { ...f, key } : f);
      }
    },
    stop.signal,
  ).then(() => files);
  done.catch(() => undefined); // awaited by emitService; not an unhandled rejection when cancelled
  // A worker that fails before its findings fails them too (the caller then runs the rule itself).
  const findings = compiled && Promise.race([compiled, done.then(() => Promise.reject(new Error("the validators worker sent no findings")))]);
  findings?.catch(() => undefined);
  return { files: done, cancel: () => stop.abort(new Error("the validators are not needed")), ...(findings ? { compiled: findings } : {}) };
}

/** The JSON size of the distinct schemas the validators are compiled from. */
function schemaBytes(schemas: ValidatorSchemas): number {
  const texts = new Set([...schemas.bodies, ...schemas.queries].map(([, schema]) => JSON.stringify(schema)));
  let bytes = JSON.stringify(schemas.shared ?? null).length;
  for (const text of texts) bytes += text.length;
  return bytes;
}

/** The docs (src/emit/docs), being rendered in a worker thread. */
export interface PendingDocs {
  /** Hands `onFile` every page rendered so far, then each as it arrives (replacing any earlier `onFile`). */
  follow(onFile: (file: WorkerFile) => void): void;
  /** Every page, once all are rendered; rejects with the worker's error or the first `onFile` throws. */
  readonly done: Promise<readonly WorkerFile[]>;
  /** Stops the worker (the docs are not needed: the definitions have errors, or nothing changed). */
  cancel(): void;
}

/**
 * Starts rendering the docs of `model` in a worker thread (the one prestart() started, if any). `generate`
 * starts it as soon as the model is built, so that the docs, which take longest, do not wait for the lint;
 * the pages are kept until the caller follows them.
 */
export function startDocs(model: Model, known?: KnownKeys, memo?: { readonly out: string; readonly generator: string }): PendingDocs {
  const stop = new AbortController();
  const pages: WorkerFile[] = [];
  let onFile: ((file: WorkerFile) => void) | undefined;
  // The worker sees the docs' own paths (without docs/).
  const docsKnown = known === undefined ? undefined : new Map([...known].filter(([p]) => p.startsWith(DOCS)).map(([p, k]) => [p.slice(DOCS.length), k.key]));
  const done = inWorker(
    "docs",
    { model, ...(docsKnown !== undefined && docsKnown.size > 0 ? { known: docsKnown } : {}), ...(memo !== undefined ? { memo } : {}) },
    (files) => {
      for (const f of files) {
        if (f.path === MEMO_ENTRIES) {
          currentMemo().take(JSON.parse(Buffer.from(f.data).toString("utf8")) as MemoEntries);
          continue;
        }
        pages.push(f);
        onFile?.(f);
      }
    },
    stop.signal,
  ).then(() => {
    mark(`docs (worker; ${pages.filter((p) => p.known).length} of ${pages.length} left unrendered)`);
    return pages;
  });
  done.catch(() => undefined); // awaited by emitService; not an unhandled rejection when cancelled
  return {
    follow(next) {
      onFile = next;
      for (const f of pages) next(f);
    },
    done,
    cancel: () => stop.abort(new Error("the docs are not needed")),
  };
}

/** The folder of the package the docs are in. */
export const DOCS = "docs/";

/** What the caller started before emitService (startValidators, startDocs): each is started there otherwise. */
export interface Started {
  readonly validators?: PendingValidators | undefined;
  readonly docs?: PendingDocs | undefined;
}
