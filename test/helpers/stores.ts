/**
 * Stores for tests of the store seam: the specs they are opened with (testResource, testSpec), and a store's
 * required methods alone, so that a test can serve the same data through a store without the optional
 * capabilities (immediate reads and writes, transactions, nextId) and compare.
 */
import type { FieldSpec, ResourceSpec, ServiceSpec } from "../../templates/runtime/spec.js";
import type { Store } from "../../templates/runtime/store.js";

/** A resource of a store test: `collection` with `fields`, its x-unique properties, and whatever `extra` sets. */
export function testResource(collection: string, fields: readonly FieldSpec[], unique: readonly string[] = [], extra: Partial<ResourceSpec> = {}): ResourceSpec {
  return {
    name: collection.replace(/s$/, ""),
    collection,
    fields,
    required: [],
    unique,
    access: {},
    mediaType: `application/vnd.test.v1.${collection}+json`,
    collectionMediaType: `application/vnd.test.v1.${collection}-collection+json`,
    bodySchema: true,
    ...extra,
  };
}

/** The spec of a store test's service (`name`), serving `resources`. */
export function testSpec(resources: readonly ResourceSpec[], name = "test"): ServiceSpec {
  return {
    name,
    title: name,
    vendor: "test",
    version: 1,
    baseUrl: "https://api.example.com/v1",
    errorDocsUrl: "https://docs.example.com/errors",
    auth: { schemes: ["apiKey"], realm: "test" },
    paging: { defaultLimit: 25, maxLimit: 100 },
    bodyLimit: 1 << 20,
    resources,
    actions: [],
    errors: [],
    mediaTypes: [],
  } as unknown as ServiceSpec;
}

/** `store`'s required methods, forwarded; none of its optional capabilities. `close` closes it unless `keepOpen`. */
export function requiredOnly(store: Store, options: { readonly keepOpen?: boolean } = {}): Store {
  return {
    insert: (c, r) => store.insert(c, r),
    get: (c, id) => store.get(c, id),
    existing: (c, ids) => store.existing(c, ids),
    list: (c, q) => store.list(c, q),
    update: (c, r) => store.update(c, r),
    delete: (c, id) => store.delete(c, id),
    close: options.keepOpen ? async () => undefined : () => store.close(),
  };
}
