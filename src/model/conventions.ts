/**
 * Facts every generated service is built on, which both resourcery (its checks, docs and README) and the
 * service's runtime need. The runtime reads them here; resourcery's src/model/conventions.ts holds the very
 * same text (test/unit/consistency.test.ts compares the two files), so each fact is decided in one place.
 */

/** Properties the server owns: set by it, refused in request bodies, always selectable. */
export const SERVER_OWNED = ["id", "meta", "createdAt", "modifiedAt"] as const;

/** Page sizes of every collection: `limit` defaults to defaultLimit and may not exceed maxLimit. */
export const PAGING = { defaultLimit: 25, maxLimit: 100 } as const;

/** Largest request body a service accepts, in bytes (413 beyond). */
export const BODY_LIMIT = 1_048_576;

/** Deepest nesting of objects and arrays a request body may have (400 bodyTooDeep beyond). */
export const MAX_BODY_DEPTH = 64;

/** Deepest nesting of a fields or expand selection, e.g. a(b(c)) is 3. */
export const MAX_SELECTION_DEPTH = 8;

/** Most names one fields or expand selection may hold. */
export const MAX_SELECTION_NAMES = 200;

/** Most instances one response inlines through expand and fields, unless EXPAND_LIMIT says otherwise. */
export const DEFAULT_EXPAND_LIMIT = 1000;

/** Most items an expanded collection link inlines: its first page, never more than this. */
export const EXPANDED_PAGE_LIMIT = 25;

/**
 * The `$id` the shared schemas are added to ajv under (`{ $id, $defs }`): a body or query schema refers to
 * one as `<SHARED_SCHEMAS_ID>#/$defs/<name>`, so it is compiled once for every schema using it.
 */
export const SHARED_SCHEMAS_ID = "resourcery:shared";
