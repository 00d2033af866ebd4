/**
 * Stores for tests of the store seam: a store's required methods alone, so that a test can serve the
 * same data through a store without the optional capabilities (immediate reads and writes, transactions,
 * nextId) and compare.
 */
import type { Store } from "../../templates/runtime/store.js";

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
