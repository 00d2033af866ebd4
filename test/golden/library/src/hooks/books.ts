// Hooks of the books collection (your code): resourcery created this file once and never
// overwrites it. A hook may throw ctx.error("<key>", "<property>") to answer with an entry of the error catalog
// (src/generated/errors.ts; another key does not compile); any other throw answers 500.
//
//   beforeCreate(input, ctx)          before a create; may return a changed input
//   afterCreate(instance, ctx)        once it is stored, before the answer
//   beforeUpdate(input, current, ctx) before PUT, PATCH, or a member added to / removed from a stored list
//   afterUpdate(instance, ctx)        once it is stored, before the answer
//   beforeDelete(current, ctx)        before a delete, also of an instance an x-on-delete cascade takes along
//   afterDelete(current, ctx)         once it is deleted
//   read(instance, ctx)               before a caller sees an instance: return a changed representation,
//                                     false to hide it from this caller (403, left out of pages), or nothing
//
// The before and after hooks of a write run inside its transaction: a throw in any of them undoes the write,
// and what a hook writes through ctx.store commits or rolls back with it (write through ctx.store only).
// ctx.caller is { id, roles } of the calling key; ctx.log logs with the request's id. For example:
//
//   async beforeDelete(current, ctx) {
//     if (!ctx.caller.roles.includes("admin")) throw ctx.error("forbidden", "", "Only admins delete.");
//   },
import type { ResourceHooks } from "../generated/errors.js";
import type * as types from "../generated/types.js";

/** Business rules of books. */
export const hooks: ResourceHooks<types.BookInput, types.Book> = {
  // Your hooks go here (see above); none is needed.
};
