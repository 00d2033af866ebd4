/** Bugs in resourcery (never the user's input) surface as InternalError: one line, exit 2. */
export class InternalError extends Error {
  override readonly name = "InternalError";
}

/** Throws an InternalError when a "cannot happen" condition happens. */
export function assertInternal(condition: unknown, message: string): asserts condition {
  if (!condition) throw new InternalError(message);
}

/** The single line printed for an unexpected failure; the stack only when DEBUG is set. */
export function describeInternalError(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  const stack = process.env.DEBUG && error instanceof Error && error.stack ? `\n${error.stack}` : "";
  return `internal error in resourcery: ${text.split("\n")[0]} (please report it; set DEBUG=1 for details)${stack}`;
}
