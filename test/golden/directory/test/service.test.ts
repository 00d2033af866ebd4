// Your own tests (your code): resourcery created this file once and never overwrites it. `npm test` runs
// test/generated/ (resourcery's contract tests, which run with stubs in place of your hooks and action
// handlers), then every *.test.ts under test/ besides it: these run the service as src/main.ts builds it,
// your hooks and handlers included, so this is where your business rules are tested.
// Run this file alone: npm run build && node dist/test/service.test.js
import { test } from "uvu";
import * as assert from "uvu/assert";
import { createService, type Service } from "../src/generated/server.js";
import { KeyRing } from "../src/generated/runtime/keys.js";
import { openSqliteStore } from "../src/generated/runtime/sqlite-store.js";
import { spec } from "../src/generated/spec.js";

// Keys and data in memory: each run starts empty and writes no file.
const keys = KeyRing.memory();
// A key with every role the service names; create others to test what a role may not do.
const key = keys.create(["admin"]);
let service: Service;

test.before(async () => {
  // Settings of the test's own, not the environment's: the routes sit under the base URL of service.json.
  service = await createService({ env: { LOG_LEVEL: "warn" }, store: openSqliteStore(spec, ":memory:"), keys });
});

test.after(() => service.close());

test("GET /v1/accounts answers an empty page of accounts", async () => {
  // app.inject sends a request without a network port; the answer is the one a client would get.
  const reply = await service.app.inject({ method: "GET", url: "/v1/accounts", headers: { authorization: `Bearer ${key.secret}` } });
  assert.is(reply.statusCode, 200, reply.body);
  assert.is(reply.json().size, 0);
});

// A business rule is tested the same way: send what a hook of yours refuses and check the error it answers
// (with `import { errors } from "../src/generated/errors.js";`):
//   const refused = await service.app.inject({ method: "POST", url: "/v1/accounts", headers: { authorization: `Bearer ${key.secret}` }, payload: { ... } });
//   assert.is(refused.json().code, errors.yourErrorKey.code);

test.run();
