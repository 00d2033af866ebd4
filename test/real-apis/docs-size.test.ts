/** The openapi.json breakdown of test/real-apis (docs-size.ts) on a small document: each part's minified bytes, and the ratio. */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { docsSize, formatDocsSize } from "./docs-size.js";

const bytes = (v: unknown) => Buffer.byteLength(JSON.stringify(v));
const book = { type: "object", properties: { title: { type: "string", description: "Le titre, écrit tel quel." } } };
const partial = { type: "object", properties: { title: { $ref: "#/components/schemas/Book/properties/title" } } };
const media = { schema: { $ref: "#/components/schemas/Book" } };
const vendorMedia = { schema: { $ref: "#/components/schemas/Book" } };
const aliasMedia = { schema: { type: "string", contentMediaType: "application/json", contentSchema: { $ref: "#/components/schemas/Book" } } };
const bookAnswer = { description: "OK", content: { "application/json": media, "application/vnd.x.v1.book+json": vendorMedia, "application/x.v1.book.json": aliasMedia } };
const error = { description: "Not Found: 40400", "x-error-codes": [40400] };
const get = { operationId: "getBook", responses: { "200": { $ref: "#/components/responses/Book" }, "404": { $ref: "#/components/responses/Error404_40400" } } };
const head = { operationId: "getBookHead", responses: { "200": { $ref: "#/components/responses/BookHead" } } };
const doc = {
  openapi: "3.1.0",
  paths: { "/books/{id}": { parameters: [{ $ref: "#/components/parameters/id" }], get, head } },
  components: { schemas: { Book: book, BookPartial: partial }, responses: { Book: bookAnswer, BookHead: { description: "OK, no body" }, Error404_40400: error } },
};

test("docsSize: the total, each component kind and its pieces, each method and its members, in minified UTF-8 bytes", () => {
  const lines = new Map(docsSize(doc).map((l) => [l.part, l.bytes]));
  assert.is(lines.get("total"), bytes(doc));
  assert.is(lines.get("openapi"), bytes("3.1.0"));
  assert.is(lines.get("components.schemas (2)"), bytes(doc.components.schemas));
  assert.is(lines.get("  schemas full or shared"), bytes(book));
  assert.is(lines.get("  schemas Partial"), bytes(partial));
  assert.is(lines.get("components.responses (3)"), bytes(doc.components.responses));
  assert.is(lines.get("  responses success"), bytes(bookAnswer));
  assert.is(lines.get("  responses of HEAD"), bytes({ description: "OK, no body" }));
  assert.is(lines.get("  responses errors"), bytes(error));
  assert.is(lines.get("  responses' media application/json"), bytes({ "application/json": media }));
  assert.is(lines.get("  responses' media vendor"), bytes({ "application/vnd.x.v1.book+json": vendorMedia }));
  assert.is(lines.get("  responses' media alias"), bytes({ "application/x.v1.book.json": aliasMedia }));
  assert.is(lines.get("paths (1)"), bytes(doc.paths));
  assert.is(lines.get("  path-item parameters"), bytes(doc.paths["/books/{id}"].parameters));
  assert.is(lines.get("  get"), bytes(get));
  assert.is(lines.get("    get.responses"), bytes(get.responses));
  assert.is(lines.get("  head"), bytes(head));
  assert.is(lines.get("    head.operationId"), bytes("getBookHead"));
});

test("formatDocsSize: bytes, share of the total and, given the source's schema bytes, the ratio to them", () => {
  const total = bytes(doc);
  const [first] = formatDocsSize(docsSize(doc), total / 2).split("\n");
  assert.match(first!, new RegExp(`^total\\s+${total}\\s+100\\.0%\\s+2\\.00×$`));
  assert.not.match(formatDocsSize(docsSize(doc)), /×/);
});

test.run();
