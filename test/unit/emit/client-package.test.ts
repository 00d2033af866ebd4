/**
 * The client's own exports and its standalone package's README (generate --client-only): the error classes,
 * etagOf and the usage of client credentials and conditional writes, named as the client exports them.
 */
import path from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { emitClientPackage } from "../../../src/emit/client.js";
import { checkProject } from "../../../src/pipeline.js";
import { repoRoot } from "../../helpers/cli.js";

const { model } = checkProject(path.join(repoRoot, "examples/library"));

test("client/index.ts exports PreconditionFailedError, TokenError and etagOf beside ApiError", async () => {
  const files = await emitClientPackage(model!, []);
  const index = files.find((f) => f.path === "client/index.ts")!.contents;
  assert.match(index, 'export { ApiError, PreconditionFailedError, ResponseTooLargeError, TokenError, etagOf, type Auth, type CallOptions, type ClientOptions, type ErrorBody, type RetryOptions } from "./runtime.js";');
});

test("the README shows client credentials, ETags and the 412 on the first collection", async () => {
  const files = await emitClientPackage(model!, []);
  const readme = files.find((f) => f.path === "README.md")!.contents;
  assert.match(readme, "## Client credentials (OAuth 2.0)");
  assert.match(readme, "auth: { clientCredentials: { id: process.env.API_KEY_ID!, secret: process.env.API_SECRET!, scope: [\"reader\"] } }");
  assert.match(readme, "throws `TokenError`, a subclass of `ApiError`,");
  assert.match(readme, "## Conditional writes (ETags) and 412");
  assert.match(readme, 'import { etagOf, PreconditionFailedError } from "library-service-client";');
  assert.match(readme, "const item = await api.authors.get(id);");
  assert.match(readme, "if (!(e instanceof PreconditionFailedError)) throw e;");
  assert.match(readme, "`createClient({ conditionalWrites: false })`");
});

test.run();
