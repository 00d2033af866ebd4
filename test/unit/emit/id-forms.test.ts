/**
 * Id forms and declared server fields in every output (CONTRACT §2), on the check corpus's
 * clean-declared-server-owned project: books (UUIDs, id and timestamps declared with descriptions, one
 * through a shared $ref), customers ("x-id": {"prefix": "cus_"}), orders ("x-id": "sequence") and tags
 * ("x-id": "uuid"). OpenAPI states each form's id schema and path parameter, the types and the client
 * type a sequence's ids as numbers, the spec hands the runtime each form, and the examples show each form.
 */
import path from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { emitClient } from "../../../src/emit/client.js";
import { exampleInput, exampleInstance } from "../../../src/emit/docs/operations.js";
import { openApiOf } from "../../../src/emit/docs/openapi.js";
import { buildReference } from "../../../src/emit/docs/reference.js";
import { specOf } from "../../../src/emit/spec.js";
import { typesSchema } from "../../../src/emit/types.js";
import type { Model, Resource } from "../../../src/model/types.js";
import { checkProject } from "../../../src/pipeline.js";
import { repoRoot } from "../../helpers/cli.js";

type Json = Record<string, any>;

const { model, diagnostics } = checkProject(path.join(repoRoot, "test/fixtures/check/clean-declared-server-owned"));
const resource = (collection: string): Resource => model!.resources.find((r) => r.collection === collection)!;

test("the model: each resource's id form, declared server fields kept apart from the fields", () => {
  assert.equal(diagnostics, []);
  const m = model as Model;
  assert.equal(
    m.resources.map((r) => [r.collection, r.idForm]),
    [
      ["books", { kind: "uuid" }],
      ["customers", { kind: "prefix", prefix: "cus_" }],
      ["orders", { kind: "sequence" }],
      ["tags", { kind: "uuid" }],
    ],
  );
  assert.equal(resource("books").serverOwned.map((f) => f.name), ["createdAt", "id", "modifiedAt"]);
  assert.not.ok(resource("books").fields.some((f) => ["id", "createdAt", "modifiedAt"].includes(f.name)));
  assert.equal((specOf(m).resources as Json[]).map((r) => r.idForm), m.resources.map((r) => r.idForm));
});

test("OpenAPI: the id schema of each form with the declared documentation, and a path parameter per form", () => {
  const doc = openApiOf(model!) as Json;
  const schemas = doc.components.schemas;
  assert.equal(schemas.Book.properties.id, { type: "string", format: "uuid", description: "Unique identifier of the book.", examples: ["0190b6c2-7d4e-7a10-8f3e-5b2c9d1e4f60"] });
  assert.equal(schemas.Book.properties.createdAt, { type: "string", format: "date-time", description: "When the book was catalogued." });
  assert.equal(schemas.Book.properties.modifiedAt, { type: "string", format: "date-time", description: "When it last changed." }, "documented through a shared $ref");
  assert.equal(schemas.Customer.properties.id, { type: "string", pattern: "^cus_[0-9A-Za-z]{22}$", description: "Unique identifier, starting with cus_." });
  assert.equal(schemas.Order.properties.id, { type: "integer", minimum: 1, description: "The order number." });
  assert.equal(schemas.Tag.properties.id, { type: "string", format: "uuid", description: "The id the server gave the instance." });
  const param = (p: string) => {
    const ref = doc.paths[p].parameters[0].$ref as string;
    return doc.components.parameters[ref.split("/").pop()!];
  };
  // Any segment is a request the service answers (404 for an id of another form), so a path's id is not
  // narrowed (Prism checks requests against it); the parameter per form says the form in words.
  for (const p of ["/orders/{id}", "/customers/{id}", "/tags/{id}"]) assert.equal(param(p).schema, { type: "string", minLength: 1 });
  assert.not.equal(param("/orders/{id}").description, param("/tags/{id}").description);
  assert.is(param("/orders/{id}").name, "id");
  assert.equal(doc.paths["/books/{id}"].parameters, doc.paths["/tags/{id}"].parameters, "UUID ids share one parameter");
});

test("types and client: a sequence's id is a number, declared descriptions document the fields; others stay strings", () => {
  const defs = (typesSchema(model!) as Json).$defs;
  assert.equal(defs.OrderFields.properties.id, { type: "integer", description: "The order number." });
  assert.ok(defs.OrderFields.required.includes("id"));
  assert.equal(defs.BookFields.properties.id, { type: "string", description: "Unique identifier of the book." });
  assert.equal(defs.BookFields.properties.modifiedAt, { type: "string", description: "When it last changed." });
  assert.not.ok("id" in defs.TagFields.properties, "an undocumented UUID id is the client's ServerFields' own");
  assert.not.ok("id" in defs.OrderInput.properties, "never in a body");
  const index = emitClient(model!).find((f) => f.path === "client/index.ts")!.contents;
  // Every collection's calls take its ids as the generic CollectionApi's Id: a number for a sequence.
  assert.match(index, 'export interface OrderApi extends CollectionApi<"orders", types.Order, types.OrderInput, number> {');
  assert.match(index, 'export interface CustomerApi extends CollectionApi<"customers", types.Customer, types.CustomerInput> {');
  assert.match(index, /get<[^>]+>\(id: Id,/);
  assert.match(index, /delete\(id: Id,/);
});

test("examples show each form's ids, in hrefs and links too, and the reference states the form", () => {
  const order = exampleInstance(model!, resource("orders"));
  assert.equal([order.id, (order.meta as Json).href], [42, "https://api.example.com/v1/orders/42"]);
  const customer = exampleInstance(model!, resource("customers"));
  assert.match(String(customer.id), /^cus_[0-9A-Za-z]{22}$/);
  const book = exampleInstance(model!, resource("books"));
  assert.is(book.id, "0190b6c2-7d4e-7a10-8f3e-5b2c9d1e4f60", "the declared example");
  assert.is((book.order as Json).meta.href, "https://api.example.com/v1/orders/43");
  assert.match((book.buyer as Json).meta.href, /\/customers\/cus_[0-9A-Za-z]{22}$/);
  assert.is((exampleInput(model!, resource("books")).order as Json).meta.href, "https://api.example.com/v1/orders/43");
  const reference = buildReference(model!);
  const orders = reference.resources.find((r) => r.collection === "orders")!;
  const get = orders.operationDocs.value.find((o) => o.method === "GET" && o.path === "/orders/{id}")!;
  assert.is(get.client, "const order = await api.orders.get(42);");
  assert.match(get.curl, /orders\/42 /);
  const id = orders.fields.value.find((f) => f.name === "id")!;
  assert.match(JSON.stringify(id.type), /integer/);
});

test.run();
