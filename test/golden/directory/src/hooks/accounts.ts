// Hooks of the accounts collection (your code): resourcery created this file once and never
// overwrites it. Each hook may return a changed input, or throw ctx.error("<key>", "<property>") to
// answer with an entry of the error catalog (src/generated/errors.ts); another key does not compile.
import type { ResourceHooks } from "../generated/errors.js";
import type { Account, AccountInput } from "../generated/types.js";

/** Business rules of accounts. */
export const hooks: ResourceHooks<AccountInput, Account> = {
  // async beforeCreate(input, ctx) {
  //   return input;
  // },
};
