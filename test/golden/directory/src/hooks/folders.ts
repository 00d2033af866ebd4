// Hooks of the folders collection (your code): resourcery created this file once and never
// overwrites it. Each hook may return a changed input, or throw ctx.error("<key>", "<property>") to
// answer with an entry of the error catalog (src/generated/errors.ts); another key does not compile.
import type { ResourceHooks } from "../generated/errors.js";
import type { Folder, FolderInput } from "../generated/types.js";

/** Business rules of folders. */
export const hooks: ResourceHooks<FolderInput, Folder> = {
  // async beforeCreate(input, ctx) {
  //   return input;
  // },
};
