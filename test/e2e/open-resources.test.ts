/**
 * A resource's root says what else a body holds (CONTRACT §2: additionalProperties is typed, validated and
 * documented), over real HTTP against a generated, built and started package: an open resource
 * (`additionalProperties` a schema, `patternProperties`) stores, represents and merges the other properties
 * it allows and refuses the ones its schemas refuse; `minProperties` and `dependentRequired` at the root are
 * checked; a closed resource (the default) still names every unknown property in one 400; a body that fits no
 * branch of a oneOf gets the error of the branch its tag names; the types and
 * openapi.json say the same; a root keyword no body is checked with is a warning.
 */
import fs from "node:fs";
import path from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { runCli } from "../helpers/cli.js";
import { serve, serviceJson, writeDefinitions, type Served } from "../helpers/served.js";

const NOTE = {
  title: "Note",
  type: "object",
  "x-collection": "notes",
  required: ["title"],
  properties: { title: { type: "string" }, body: { type: "string" } },
  additionalProperties: { type: "string", maxLength: 20 },
  patternProperties: { "^count_": { type: "integer" } },
  dependentRequired: { body: ["title"] },
};
const CARD = { type: "object", additionalProperties: false, required: ["type", "number"], properties: { type: { const: "card" }, number: { type: "string", minLength: 12 } } };
const BANK = { type: "object", additionalProperties: false, required: ["type", "iban"], properties: { type: { const: "bank" }, iban: { type: "string", pattern: "^[A-Z]{2}[0-9]+$" } } };
const TAG = {
  title: "Tag",
  type: "object",
  "x-collection": "tags",
  required: ["name"],
  minProperties: 1,
  properties: {
    name: { type: "string" },
    colour: { type: "string" },
    payment: { oneOf: [{ $ref: "../shared/card.json" }, { $ref: "../shared/bank.json" }] },
    // OpenAPI's form: the branches say nothing of the tag; the discriminator's mapping does.
    contact: {
      oneOf: [{ $ref: "../shared/email.json" }, { $ref: "../shared/phone.json" }],
      discriminator: { propertyName: "kind", mapping: { email: "../shared/email.json", phone: "../shared/phone.json", gone: "../shared/none.json" } },
    },
  },
};
const EMAIL = { type: "object", required: ["kind", "address"], properties: { kind: { type: "string" }, address: { type: "string", format: "email" } } };
const PHONE = { type: "object", required: ["kind", "number"], properties: { kind: { type: "string" }, number: { type: "string", pattern: "^[0-9+]+$" } } };

let s: Served;

test.before(async () => {
  s = await serve("open", { "service.json": serviceJson("open-notes"), "resources/note.json": NOTE, "resources/tag.json": TAG, "shared/card.json": CARD, "shared/bank.json": BANK, "shared/email.json": EMAIL, "shared/phone.json": PHONE });
});
test.after(async () => {
  await s?.close();
});

test("an open resource stores and represents the other properties its root allows, and merge patch sets and removes them", async () => {
  const created = await s.call("POST", "/notes", { title: "Shopping", colour: "red", count_items: 3 });
  assert.is(created.status, 201, JSON.stringify(created.body));
  assert.is(created.body.colour, "red");
  assert.is(created.body.count_items, 3);
  const read = await s.call("GET", `/notes/${created.body.id}`);
  assert.is(read.status, 200);
  assert.is(read.body.colour, "red");
  assert.is(read.body.count_items, 3);
  const patched = await s.call("PATCH", `/notes/${created.body.id}`, { colour: null, mood: "calm" });
  assert.is(patched.status, 200, JSON.stringify(patched.body));
  assert.not.ok("colour" in patched.body, JSON.stringify(patched.body));
  assert.is(patched.body.mood, "calm");
  assert.is(patched.body.count_items, 3, "what the patch does not name is kept");
  const replaced = await s.call("PUT", `/notes/${created.body.id}`, { title: "Groceries" });
  assert.is(replaced.status, 200, JSON.stringify(replaced.body));
  assert.not.ok("mood" in replaced.body || "count_items" in replaced.body, JSON.stringify(replaced.body));
  const page = await s.call("GET", "/notes");
  assert.is(page.body.items.length, 1);
  assert.is(page.body.items[0].title, "Groceries");
});

test("the other properties are checked against the root's schemas: 400 with the property", async () => {
  const tooLong = await s.call("POST", "/notes", { title: "x", colour: "a".repeat(21) });
  assert.is(tooLong.status, 400);
  assert.is(tooLong.body.property, "colour");
  const counted = await s.call("POST", "/notes", { title: "x", count_items: "three" });
  assert.is(counted.status, 400);
  assert.is(counted.body.property, "count_items");
  // Server-owned names are still the server's.
  const owned = await s.call("POST", "/notes", { title: "x", createdAt: "2020-01-01T00:00:00Z" });
  assert.is(owned.status, 400);
  assert.is(owned.body.property, "createdAt");
});

test("a closed resource still refuses unknown properties, all named in one 400; minProperties holds at the root", async () => {
  const unknown = await s.call("POST", "/tags", { name: "a", shade: "b", size: 1 });
  assert.is(unknown.status, 400);
  assert.match(unknown.body.dev, /"shade" and "size" are not properties/);
  const tag = await s.call("POST", "/tags", { name: "a" });
  assert.is(tag.status, 201, JSON.stringify(tag.body));
});

test("a body that fits no branch of a oneOf is answered with the error of the branch its tag names", async () => {
  const ok = await s.call("POST", "/tags", { name: "p", payment: { type: "bank", iban: "GB12" } });
  assert.is(ok.status, 201, JSON.stringify(ok.body));
  const lacking = await s.call("POST", "/tags", { name: "p", payment: { type: "bank" } });
  assert.is(lacking.status, 400);
  assert.is(lacking.body.property, "payment.iban", JSON.stringify(lacking.body));
  const wrong = await s.call("POST", "/tags", { name: "p", payment: { type: "card", number: "1" } });
  assert.is(wrong.body.property, "payment.number", JSON.stringify(wrong.body));
  const none = await s.call("POST", "/tags", { name: "p", payment: { type: "cash" } });
  assert.is(none.body.property, "payment.type");
  assert.match(none.body.dev, 'payment.type must be one of "card", "bank"');
  // By a discriminator's mapping.
  assert.is((await s.call("POST", "/tags", { name: "c", contact: { kind: "phone", number: "+4712" } })).status, 201);
  const badPhone = await s.call("POST", "/tags", { name: "c", contact: { kind: "phone", number: "call me" } });
  assert.is(badPhone.body.property, "contact.number", JSON.stringify(badPhone.body));
  const badKind = await s.call("POST", "/tags", { name: "c", contact: { kind: "fax", address: "nowhere" } });
  assert.is(badKind.body.property, "contact.kind", JSON.stringify(badKind.body));
  assert.match(badKind.body.dev, 'contact.kind must be one of "email", "phone"');
});

test("types and openapi.json say what the service does", () => {
  const types = fs.readFileSync(path.join(s.out, "client/types.ts"), "utf8");
  const fields = types.slice(types.indexOf("export interface NoteFields"), types.indexOf("}", types.indexOf("export interface NoteFields")));
  assert.match(fields, /\[k: string\]: /, fields);
  const doc = JSON.parse(fs.readFileSync(path.join(s.out, "docs/openapi.json"), "utf8"));
  const schemas = doc.components.schemas;
  const note = Object.entries(schemas).find(([k]) => k === "Note")![1] as any;
  assert.equal(note.additionalProperties, { type: "string", maxLength: 20 });
  assert.equal(note.patternProperties, { "^count_": { type: "integer" } });
  const input = schemas.NoteInput;
  assert.equal(input.dependentRequired, { body: ["title"] });
  assert.is(schemas.Tag.additionalProperties, false);
  // A discriminator's mapping names the components; a mapping to nothing is left out.
  assert.equal(schemas.Tag.properties.contact.discriminator, { propertyName: "kind", mapping: { email: "#/components/schemas/Email", phone: "#/components/schemas/Phone" } });
  assert.ok(schemas.Email && schemas.Phone);
  assert.is(schemas.TagInput.minProperties, 1);
});

test("a root keyword that no body is checked with is a warning at the keyword, with a fix", () => {
  const { tmp, defs } = writeDefinitions("root-keyword", {
    "service.json": serviceJson("root-keyword"),
    "resources/tag.json": { ...TAG, if: { required: ["colour"] }, then: { required: ["name"] } },
    "shared/card.json": CARD,
    "shared/bank.json": BANK,
    "shared/email.json": EMAIL,
    "shared/phone.json": PHONE,
  });
  try {
    const r = runCli(["check", defs, "--json"]);
    assert.is(r.code, 0, r.stdout + r.stderr);
    const found = (JSON.parse(r.stdout) as { rule: string; pointer: string; hint: string }[]).filter((d) => d.rule === "root-keyword-ignored");
    assert.equal(found.map((d) => d.pointer).sort(), ["/if", "/then"]);
    assert.match(found[0]!.hint, /hook/);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});

test.run();
