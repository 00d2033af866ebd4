/**
 * What the validators are compiled from (src/model/validator-schemas.ts, the runtime's text too): schemas
 * without their annotations, where names and data stay as written; a fingerprint that follows what ajv
 * validates with and nothing else.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { validatorSchemas, validatorsFingerprint, withoutAnnotations } from "../../../src/model/validator-schemas.js";

test("annotations go, in every schema inside; property names and data stay as written", () => {
  const schema = JSON.parse(`{
    "type": "object", "title": "T", "description": "D", "x-note": 1, "$comment": "c", "examples": [{}],
    "properties": {
      "description": { "type": "string", "description": "a property named description" },
      "title": { "enum": [{ "description": "data" }, "title"], "default": { "title": "kept" }, "deprecated": true },
      "__proto__": { "type": "integer", "readOnly": true, "writeOnly": false, "example": 3 },
      "list": { "type": "array", "items": { "type": "string", "title": "item" }, "prefixItems": [{ "description": "first" }] },
      "either": { "anyOf": [{ "type": "null", "description": "none" }, { "$ref": "resourcery:shared#/$defs/A" }] }
    },
    "patternProperties": { "^x-": { "description": "p", "type": "string" } },
    "dependencies": { "a": ["b"], "c": { "description": "d", "required": ["e"] } },
    "required": ["description", "title"],
    "unknownKeyword": { "description": "not a schema: kept" }
  }`);
  const out = withoutAnnotations(schema) as Record<string, any>;
  assert.equal(Object.keys(out), ["type", "properties", "patternProperties", "dependencies", "required", "unknownKeyword"]);
  assert.equal(Object.keys(out.properties), ["description", "title", "__proto__", "list", "either"]);
  assert.ok(Object.hasOwn(out.properties, "__proto__"), "an own property, not the prototype");
  assert.equal(out.properties.description, { type: "string" });
  assert.equal(out.properties.title, { enum: [{ description: "data" }, "title"], default: { title: "kept" } });
  assert.equal(out.properties["__proto__"], { type: "integer" });
  assert.equal(out.properties.list, { type: "array", items: { type: "string" }, prefixItems: [{}] });
  assert.equal(out.properties.either, { anyOf: [{ type: "null" }, { $ref: "resourcery:shared#/$defs/A" }] });
  assert.equal(out.patternProperties, { "^x-": { type: "string" } });
  assert.equal(out.dependencies, { a: ["b"], c: { required: ["e"] } });
  assert.equal(out.unknownKeyword, { description: "not a schema: kept" });
  assert.equal(schema.properties.description.description, "a property named description", "the input is left as it was");
});

test("the fingerprint follows what is validated: a description does not change it, a keyword does", () => {
  const spec = (name: Record<string, unknown>) => ({
    resources: [{ collection: "things", fields: [], bodySchema: { type: "object", properties: { name } } }],
    actions: [{ name: "find", query: { type: "object", properties: { q: { type: "string" } } } }],
  });
  const of = (name: Record<string, unknown>) => validatorsFingerprint(validatorSchemas(spec(name)));
  assert.match(of({ type: "string" }), /^[0-9a-f]{64}$/);
  assert.is(of({ type: "string", description: "Name." }), of({ type: "string" }));
  assert.is.not(of({ type: "string", maxLength: 3 }), of({ type: "string" }));
  assert.is.not(of({ type: "string", default: "x" }), of({ type: "string" }));
});

test.run();
