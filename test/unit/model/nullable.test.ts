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

test("a DAG of $refs whose unions refer to the same schemas again, 40 levels deep: judged at once, each $ref once", () => {
  // Walked once per path, 18 levels took 1.4 s and 29 never finished (generate's merge-patch facts).
  const defs = new Map<string, JsonSchema>([["l40", { oneOf: [{ type: "string" }, { type: "null" }] }]]);
  for (let i = 0; i < 40; i++) {
    defs.set(`l${i}`, { oneOf: [{ $ref: `m${i + 1}` }, { $ref: `l${i + 1}` }] } as JsonSchema);
    defs.set(`m${i + 1}`, { anyOf: [{ $ref: `l${i + 1}` }, { type: "boolean" }] } as JsonSchema);
  }
  let resolved = 0;
  const resolve = (ref: string) => (resolved++, defs.get(ref));
  const started = performance.now();
  // The bottom allows null, and so does m40 (anyOf); l39's oneOf then has two branches that allow it (refused),
  // and from there up nothing allows it.
  assert.ok(isNullable({ $ref: "m40" }, resolve), "m40's anyOf reaches the bottom's null");
  assert.not.ok(isNullable({ $ref: "l39" }, resolve), "exactly one branch of a oneOf must allow null");
  assert.not.ok(isNullable({ $ref: "l0" }, resolve));
  assert.not.ok(isNullable({ $ref: "m1" }, resolve));
  assert.ok(performance.now() - started < 500, `${Math.round(performance.now() - started)} ms`);
  assert.ok(resolved < 1000, `${resolved} $refs resolved`);
});

test.run();
