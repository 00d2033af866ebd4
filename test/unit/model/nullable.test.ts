/**
 * Which property schemas are nullable (src/model/nullable.ts): null is then a value a merge patch sets,
 * where it removes any other property.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { isNullable } from "../../../src/model/nullable.js";
import type { JsonSchema } from "../../../src/model/types.js";

test("a schema that names null and allows it is nullable", () => {
  for (const schema of [
    { type: "null" },
    { type: ["string", "null"] },
    { type: ["null", "integer"], minimum: 1 },
    { anyOf: [{ type: "string" }, { type: "null" }] },
    { oneOf: [{ type: "integer" }, { type: "null" }] },
    { enum: ["a", "b", null] },
    { type: ["string", "null"], enum: ["a", null] },
    { const: null },
    { allOf: [{ type: ["string", "null"] }, { maxLength: 3 }] },
    { anyOf: [{ anyOf: [{ type: "null" }] }, { type: "object" }] },
    { type: ["object", "null"], properties: { a: { type: "string" } } },
  ] as JsonSchema[]) {
    assert.ok(isNullable(schema), JSON.stringify(schema));
  }
});

test("a schema that refuses null, or says nothing of it, is not nullable", () => {
  for (const schema of [
    {},
    true,
    false,
    { description: "anything" },
    { type: "string" },
    { type: ["string", "integer"] },
    { enum: ["a", "b"] },
    { type: "string", enum: ["a", null] },
    { type: ["string", "null"], enum: ["a"] },
    { const: "x" },
    { anyOf: [{ type: "string" }, { type: "integer" }] },
    { type: "string", anyOf: [{ type: "null" }, { minLength: 1 }] },
    { oneOf: [{ type: "null" }, { enum: [null, 1] }] },
    { allOf: [{ type: ["string", "null"] }, { type: "string" }] },
  ] as JsonSchema[]) {
    assert.not.ok(isNullable(schema), JSON.stringify(schema));
  }
});

test("$refs are followed through the resolver given; an unresolved one refuses nothing and names nothing; cycles end", () => {
  const defs: Record<string, JsonSchema> = {
    "#/$defs/Maybe": { type: ["string", "null"] },
    "#/$defs/Text": { type: "string" },
    "#/$defs/Loop": { anyOf: [{ $ref: "#/$defs/Loop" }, { type: "null" }] },
    "#/$defs/Self": { $ref: "#/$defs/Self" },
  };
  const resolve = (ref: string) => defs[ref];
  assert.ok(isNullable({ $ref: "#/$defs/Maybe" }, resolve));
  assert.ok(isNullable({ anyOf: [{ $ref: "#/$defs/Text" }, { type: "null" }] }, resolve));
  assert.not.ok(isNullable({ $ref: "#/$defs/Text" }, resolve));
  assert.not.ok(isNullable({ $ref: "#/$defs/Maybe" }), "without a resolver a $ref says nothing");
  assert.ok(isNullable({ $ref: "#/$defs/Loop" }, resolve));
  assert.not.ok(isNullable({ $ref: "#/$defs/Self" }, resolve));
  assert.not.ok(isNullable({ $ref: "#/$defs/Missing" }, resolve));
  // A link (a $ref nothing resolves, to a resource) is nullable in the forms of CONTRACT §2.
  assert.ok(isNullable({ anyOf: [{ $ref: "team.json" }, { type: "null" }] }));
  assert.ok(isNullable({ oneOf: [{ type: "null" }, { $ref: "team.json" }] }));
  assert.ok(isNullable({ $ref: "team.json", type: ["object", "null"] }));
  assert.not.ok(isNullable({ $ref: "team.json" }));
  assert.not.ok(isNullable({ anyOf: [{ $ref: "team.json" }, { type: "string" }] }));
});

test.run();
