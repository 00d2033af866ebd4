// Your own tests of Directory API (your code): resourcery created this file once and never overwrites
// it. `npm test` runs test/generated/ (resourcery's contract tests, which run with stubs in place of your hooks
// and action handlers), then every *.test.ts under test/ besides it: these run the service as src/main.ts
// builds it, your hooks and handlers included, so this is where your business rules are tested.
// Run this file alone: npm run build && node dist/test/service.test.js
import { test } from "uvu";
import * as assert from "uvu/assert";
import { createService, type Service } from "../src/generated/server.js";
import { KeyRing } from "../src/generated/runtime/keys.js";
import { openSqliteStore } from "../src/generated/runtime/sqlite-store.js";
import { spec } from "../src/generated/spec.js";

// The path of the first collection a key may read (under the base URL of service.json) and every role the
// service names, read from the spec, so that this example keeps passing when the definitions change. An
// empty "read" list in x-access, with no admin role, closes a collection to every key.
const basePath = new URL(spec.baseUrl).pathname.replace(/\/$/, "");
const readable = spec.resources.find((r) => r.access.read?.length !== 0 || (r.access.admin ?? []).length > 0);
const path = `${basePath}/${(readable ?? spec.resources[0]!).collection}`;
const everyRole = [...spec.resources.flatMap((r) => Object.values(r.access).flatMap((roles) => roles ?? [])), ...spec.actions.flatMap((a) => a.roles)];

// Keys and data in memory: each run starts empty and writes no file. Create keys with fewer roles to test
// what a role may not do.
const keys = KeyRing.memory();
const key = keys.create(everyRole);
let service: Service;

test.before(async () => {
  // Settings of the test's own, not the environment's: routes sit under the base URL of service.json.
  service = await createService({ env: { LOG_LEVEL: "warn" }, store: openSqliteStore(spec, ":memory:"), keys });
});

test.after(() => service.close());

test(`GET ${path} answers ${readable ? "an empty page" : "403 (no key may read it)"}`, async () => {
  // app.inject sends a request without a network port; the answer is the one a client would get.
  const reply = await service.app.inject({ method: "GET", url: path, headers: { authorization: `Bearer ${key.secret}` } });
  if (!readable) return assert.is(reply.statusCode, 403, reply.body);
  assert.is(reply.statusCode, 200, reply.body);
  assert.is(reply.json().size, 0);
});

// A business rule is tested the same way: send what a hook of yours refuses and check the error it answers
// (with `import { errors } from "../src/generated/errors.js";`):
//   const refused = await service.app.inject({ method: "POST", url: path, headers: { authorization: `Bearer ${key.secret}` }, payload: { ... } });
//   assert.is(refused.json().code, errors.yourErrorKey.code);

test.run();
