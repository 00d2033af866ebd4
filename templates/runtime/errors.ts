/**
 * The error body of every 4xx and 5xx answer: { status, code, property, message, dev, info }, built
 * from the generated error catalog so that one condition always gives one code.
 */
import type { ErrorSpec } from "./spec.js";

/** The JSON body of an error answer. */
export interface ErrorBody {
  readonly status: number;
  readonly code: number;
  readonly property: string;
  readonly message: string;
  readonly dev: string;
  readonly info: string;
}

/**
 * An error a handler or hook throws to answer with a catalog entry.
 * @example throw new ApiError(catalog.conflict, "name")
 */
export class ApiError extends Error {
  readonly status: number;
  readonly body: ErrorBody;
  /** Extra response headers (e.g. WWW-Authenticate, Allow). */
  readonly headers: Readonly<Record<string, string | string[]>>;

  constructor(
    entry: ErrorSpec,
    property = "",
    options: {
      dev?: string;
      message?: string;
      headers?: Record<string, string | string[]>;
      /** Members the body has before the error body's own (an OAuth 2.0 error's `error` and `error_description`, RFC 6749 §5.2). */
      fields?: Readonly<Record<string, string>>;
    } = {},
  ) {
    super(options.message ?? entry.message);
    this.name = "ApiError";
    this.status = entry.status;
    this.headers = options.headers ?? {};
    this.body = {
      ...options.fields,
      status: entry.status,
      code: entry.code,
      property,
      message: options.message ?? entry.message,
      dev: options.dev ?? entry.dev,
      info: entry.info,
    };
  }
}

/** The catalog entries by key, for the runtime's own built-in conditions. */
export type Catalog = Readonly<Record<string, ErrorSpec>>;

/** Indexes catalog entries by key. @example catalogOf(spec.errors).notFound.code === 40400 */
export function catalogOf(errors: readonly ErrorSpec[]): Catalog {
  const out: Record<string, ErrorSpec> = Object.create(null);
  for (const e of errors) out[e.key] = e;
  return out;
}

/** A built-in catalog entry that must exist; a missing one is a generator bug. */
export function entry(catalog: Catalog, key: string): ErrorSpec {
  const found = catalog[key];
  if (!found) throw new Error(`error catalog has no entry "${key}"`);
  return found;
}
