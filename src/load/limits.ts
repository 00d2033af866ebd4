/**
 * What a check of definitions may read and build. Definitions arrive in pull requests and `generate`
 * runs in CI, so they are untrusted input: these bounds keep a hostile project from reading files
 * outside it, blocking on a FIFO, exhausting memory or the stack, or running for minutes.
 */

/** The bounds of one check; every one is far above what a real definitions project needs. */
export interface Limits {
  /** Bytes one definition file may hold: 16 MiB. */
  readonly fileBytes: number;
  /** Bytes all definition files of a project may hold together: 64 MiB. */
  readonly totalBytes: number;
  /** Levels of arrays and objects nested in one definition file: 128. */
  readonly nesting: number;
  /** Schema nodes the $ref expansion of one resource or action may produce: 100 000. */
  readonly schemaNodes: number;
  /** Schema nodes the $ref expansion of the whole project may produce: 1 000 000. */
  readonly totalSchemaNodes: number;
}

export const DEFAULT_LIMITS: Limits = {
  fileBytes: 16 * 1024 * 1024,
  totalBytes: 64 * 1024 * 1024,
  nesting: 128,
  schemaNodes: 100_000,
  totalSchemaNodes: 1_000_000,
};

/** What a check may read: the project folder, the folders `allowPaths` adds, and the limits. */
export interface CheckOptions {
  /**
   * Folders besides the project's (the one holding service.json) that $refs and `resources` entries
   * may lead into (the CLI's `--allow-path DIR`); relative ones are taken from the working folder.
   */
  readonly allowPaths?: readonly string[];
  /** Overrides of DEFAULT_LIMITS. */
  readonly limits?: Partial<Limits>;
}

/** The limits of `options`, defaults filled in. */
export function limitsOf(options: CheckOptions = {}): Limits {
  return { ...DEFAULT_LIMITS, ...options.limits };
}

/** A byte count in words: "16 MiB", "52 428 800 bytes". */
export function bytesInWords(n: number): string {
  if (n >= 1024 * 1024 && n % (1024 * 1024) === 0) return `${n / (1024 * 1024)} MiB`;
  return `${n.toLocaleString("en-US").replace(/,/g, " ")} bytes`;
}
