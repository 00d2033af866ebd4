/**
 * The worker thread of the user-code check: opens the checker on the package folder it is given (loading
 * TypeScript and checking the user's files against the current generation while generate goes on), then
 * answers one request: the errors of the next generation.
 */
import { parentPort, workerData } from "node:worker_threads";
import { UserCodeChecker, type UserCodeError } from "./type-check.js";

/** What the worker is asked: the user's files and the generated files that change. */
export interface UserCodeRequest {
  readonly users: ReadonlyMap<string, string>;
  readonly next: ReadonlyMap<string, string | null>;
}

/** What it answers. */
export type UserCodeReply = { readonly errors: readonly UserCodeError[] } | { readonly failure: string };

const port = parentPort!;
const { out, roots } = workerData as { out: string; roots: readonly string[] };
const opening = UserCodeChecker.open(out, roots);
opening.catch(() => undefined); // reported when a request comes
port.on("message", (request: UserCodeRequest) => {
  const fail = (error: unknown) => port.postMessage({ failure: error instanceof Error ? (error.stack ?? error.message) : String(error) } satisfies UserCodeReply);
  opening.then((checker) => {
    try {
      const errors = checker.errorsWith(request.users, request.next);
      // Before the answer: the caller stops this worker once it has it.
      checker.saveCodeCache();
      port.postMessage({ errors } satisfies UserCodeReply);
    } catch (error) {
      fail(error);
    }
  }, fail);
});
