/** The converter of test/real-apis on a small hand-written OpenAPI 3.0 description: each rewrite, and nothing more. */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { collectionOf, convertDescription } from "./convert.js";
import { examplesOf } from "./examples.js";

const description = {
  openapi: "3.0.3",
  info: { title: "Pets", version: "1.2.3", description: "A pet store." },
  paths: {
    "/pets": {
      get: {
        responses: {
          "200": { content: { "application/json": { schema: { type: "array", items: { $ref: "#/components/schemas/Pet" } }, example: [{ id: 1, name: "Rex" }, { id: 2, name: "Tom" }] } } },
        },
      },
      post: {
        requestBody: { content: { "application/json": { schema: { $ref: "#/components/schemas/Pet" }, examples: { rex: { $ref: "#/components/examples/rex" } } } } },
        responses: { "201": { description: "created" } },
      },
    },
  },
  components: {
    examples: { rex: { value: { id: 1, name: "Rex" } } },
    schemas: {
      Pet: {
        type: "object",
        required: ["name"],
        properties: {
          id: { type: "integer", format: "int64" },
          name: { type: "string", nullable: true, example: "Rex" },
          owner: { $ref: "#/components/schemas/Owner", nullable: true, description: "Who keeps it." },
          tag: { allOf: [{ $ref: "#/components/schemas/Tag" }], nullable: true },
          weight: { type: "number", minimum: 0, exclusiveMinimum: true, maximum: 100, exclusiveMaximum: false },
          nullable: { type: "boolean", description: "a property named like the keyword" },
          example: { type: "string" },
          kind: { oneOf: [{ $ref: "#/components/schemas/Tag" }], discriminator: { propertyName: "x", mapping: { t: "#/components/schemas/Tag" } } },
          "x-note": { type: "string" },
        },
        example: { id: 3, name: "Fido" },
        "x-vendor": { $ref: "#/components/schemas/Tag" },
      },
      Owner: { type: "object", properties: { id: { type: "string" }, pets: { type: "array", items: { $ref: "#/components/schemas/Pet" } } } },
      Tag: { type: "string", enum: ["a", "b"] },
      "pet-owner": { type: "object", nullable: true, properties: { id: { type: "string" }, since: { $ref: "#/components/schemas/Owner/properties/id" } } },
      PetOwner: { type: "object", properties: { id: { $ref: "#/components/schemas/tag" } } },
      NoType: { nullable: true },
      tag: { type: "integer" },
    },
  },
};

const conversion = convertDescription(description, { id: "pets.example/store" });
const file = (name: string) => conversion.files.get(`schemas/${name}.json`) as Record<string, any>;

test("one file per component schema, and a service.json listing the resources", () => {
  // Tag and tag would be one file where case does not count: the later (in name order) gets a number.
  assert.equal([...conversion.files.keys()].sort(), ["schemas/NoType.json", "schemas/Owner.json", "schemas/Pet.json", "schemas/PetOwner.json", "schemas/Tag.json", "schemas/pet-owner.json", "schemas/tag-2.json", "service.json"]);
  assert.equal(file("tag-2"), { type: "integer" });
  assert.equal(conversion.files.get("service.json"), {
    name: "pets-example-store",
    title: "Pets",
    description: "A pet store.",
    vendor: "pets",
    version: 1,
    baseUrl: "http://localhost:3000/v1",
    errorDocsUrl: "http://localhost:3000/docs/errors",
    resources: ["schemas/Owner.json", "schemas/Pet.json", "schemas/PetOwner.json", "schemas/pet-owner.json"],
  });
});

test("a resource is an object with an id: x-collection is its name's camelCase plural; an integer id (or a $ref to one) is a sequence", () => {
  assert.is(file("Pet")["x-collection"], "pets");
  assert.is(file("Pet")["x-id"], "sequence");
  assert.is(file("Owner")["x-collection"], "owners");
  assert.is(file("Owner")["x-id"], undefined);
  assert.is(file("Tag")["x-collection"], undefined);
  assert.is(file("PetOwner")["x-id"], "sequence", "an integer id read through a $ref to another component");
  assert.is(file("pet-owner")["x-id"], undefined);
  // PetOwner and pet-owner give the same collection: the later (in name order) gets a number.
  assert.equal([file("PetOwner")["x-collection"], file("pet-owner")["x-collection"]], ["petOwners", "petOwners2"]);
  assert.equal(conversion.summary.resources.map((r) => r.collection), ["owners", "pets", "petOwners", "petOwners2"]);
});

test("nullable: a type array with null, or without a type an anyOf with null and the annotations outside", () => {
  const p = file("Pet").properties;
  assert.equal(p.name, { type: ["string", "null"], examples: ["Rex"] });
  assert.equal(p.owner, { description: "Who keeps it.", anyOf: [{ $ref: "Owner.json" }, { type: "null" }] });
  assert.equal(p.tag, { anyOf: [{ allOf: [{ $ref: "Tag.json" }] }, { type: "null" }] });
  assert.equal(file("pet-owner").type, ["object", "null"]);
  assert.equal(file("NoType"), {}, "nullable on a schema that accepts anything already");
});

test("refs become file names (with the rest of the pointer), in extensions too; OpenAPI keywords stay as they are", () => {
  const p = file("Pet").properties;
  assert.equal(file("Owner").properties.pets, { type: "array", items: { $ref: "Pet.json" } });
  assert.equal(file("pet-owner").properties.since, { $ref: "Owner.json#/properties/id" });
  assert.equal(p.kind, { oneOf: [{ $ref: "Tag.json" }], discriminator: { propertyName: "x", mapping: { t: "Tag.json" } } });
  assert.equal(file("Pet")["x-vendor"], { $ref: "Tag.json" }, "refs inside extensions too, so that every ref resolves");
  assert.equal(file("Pet").properties["x-note"], { type: "string" }, "a property named like an extension is a property");
  assert.equal(conversion.summary.foreignRefs, 0);
});

test("boolean exclusive bounds become numbers; properties named like keywords are properties", () => {
  const p = file("Pet").properties;
  assert.equal(p.weight, { type: "number", exclusiveMinimum: 0, maximum: 100 });
  assert.equal(p.nullable, { type: "boolean", description: "a property named like the keyword" });
  assert.equal(p.example, { type: "string" });
  assert.equal(file("Pet").examples, [{ id: 3, name: "Fido" }]);
  assert.not.ok("example" in file("Pet"));
});

test("the description itself is not changed", () => {
  assert.is((description.components.schemas.Pet.properties.name as Record<string, unknown>).nullable, true);
  assert.is(description.components.schemas.Pet.properties.owner.$ref, "#/components/schemas/Owner");
});

test("collection names: words split at separators and case changes, the last one plural", () => {
  assert.is(collectionOf("issue-comment"), "issueComments");
  assert.is(collectionOf("PRAlert"), "prAlerts");
  assert.is(collectionOf("full_repository"), "fullRepositories");
  assert.is(collectionOf("io.k8s.api.core.v1.Pod"), "ioK8sApiCoreV1Pods");
  assert.is(collectionOf("person"), "people");
});

test("examples: the schema's own, and those of bodies whose schema is the component (array items one by one, refs resolved)", () => {
  const examples = examplesOf(description);
  assert.equal(examples.get("Pet"), [{ id: 3, name: "Fido" }, { id: 1, name: "Rex" }, { id: 2, name: "Tom" }]);
  assert.is(examples.get("Owner"), undefined);
});

test("a description that is not OpenAPI 3 is refused", () => {
  assert.throws(() => convertDescription({ swagger: "2.0" }, { id: "x" }), /not an OpenAPI 3/);
});

test.run();
