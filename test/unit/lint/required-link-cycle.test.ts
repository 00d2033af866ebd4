/**
 * required-link-cycle (src/lint/rules/required-link-cycle.ts): required links that lead back to where they
 * start leave no room for a first instance; an optional or nullable link on the way breaks the ring.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { requiredLinkCycle } from "../../../src/lint/rules/required-link-cycle.js";
import type { Field, JsonSchema, Model, Resource } from "../../../src/model/types.js";

type LinkDef = { name: string; to: string; required?: boolean; schema?: JsonSchema; kind?: "instance" | "collection" };

/** A model of just what the rule reads: collections with their link fields. */
function modelOf(resources: Record<string, LinkDef[]>): Model {
  const list = Object.entries(resources).map(([collection, links]): Resource => {
    const fields = links.map(
      (l): Field => ({
        name: l.name,
        propertyKey: l.name,
        kind: l.kind === "collection" ? "links" : "link",
        scalar: false,
        required: l.required !== false,
        description: "",
        schema: l.schema ?? { $ref: `${l.to}.json` },
        link: { kind: l.kind ?? "instance", target: l.to },
        origin: { file: `${collection}.json`, pointer: `/properties/${l.name}` },
      }) as Field,
    );
    return { name: collection.replace(/s$/, ""), collection, fields, required: fields.filter((f) => f.required).map((f) => f.name), origin: { file: `${collection}.json`, pointer: "" } } as unknown as Resource;
  });
  return { resources: list } as unknown as Model;
}

const found = (model: Model) => requiredLinkCycle.check(model).map((d) => `${d.file}${d.pointer}: ${d.message}`);

test("a required link to its own collection is reported at the link, with the fix that makes it optional or nullable", () => {
  const [d, ...rest] = requiredLinkCycle.check(modelOf({ teams: [{ name: "parent", to: "teams" }] }));
  assert.equal(rest, []);
  assert.is(d!.code, "required-link-cycle");
  assert.is(d!.severity, "error");
  assert.is(d!.file, "teams.json");
  assert.is(d!.pointer, "/properties/parent");
  assert.match(d!.message, /"parent" is a required link to teams, its own collection: the first team can never be created/);
  assert.match(d!.hint, /remove it from "required"/);
  assert.ok(d!.hint.includes(`"parent": { "anyOf": [{ "$ref": "teams.json" }, { "type": "null" }] }`), d!.hint);
});

test("an optional link, a nullable one (each 2020-12 form), or a collection link breaks the ring", () => {
  for (const parent of [
    { name: "parent", to: "teams", required: false },
    { name: "parent", to: "teams", schema: { anyOf: [{ $ref: "teams.json" }, { type: "null" }] } },
    { name: "parent", to: "teams", schema: { oneOf: [{ type: "null" }, { $ref: "teams.json" }] } },
    { name: "parent", to: "teams", schema: { $ref: "teams.json", type: ["object", "null"] } },
    { name: "parent", to: "teams", kind: "collection" as const },
  ]) {
    assert.equal(found(modelOf({ teams: [parent] })), [], JSON.stringify(parent));
  }
  // A ring with one nullable link in it is no ring.
  const ring = { teams: [{ name: "lead", to: "people" }], people: [{ name: "team", to: "teams", schema: { anyOf: [{ $ref: "teams.json" }, { type: "null" }] } }] };
  assert.equal(found(modelOf(ring)), []);
  // A required link to a collection that does not ring back is fine; a link to an unknown collection is another rule's.
  assert.equal(found(modelOf({ teams: [{ name: "lead", to: "people" }], people: [{ name: "boss", to: "people", required: false }], rooms: [{ name: "x", to: "nowhere" }] })), []);
});

test("a ring through several collections is reported once, at its first collection's link, naming every link of the shortest ring", () => {
  const model = modelOf({
    teams: [{ name: "lead", to: "people" }],
    people: [{ name: "desk", to: "desks" }, { name: "team", to: "teams" }],
    desks: [{ name: "team", to: "teams" }, { name: "room", to: "rooms" }],
    rooms: [{ name: "site", to: "sites", required: false }],
  });
  assert.equal(found(model), [
    'desks.json/properties/team: required links go round in a ring (desks.team → teams, teams.lead → people, people.desk → desks): no first instance of desks, teams or people can ever be created, as each needs another to exist',
  ]);
  // Two separate rings and a self link: three findings, in the order of their collections.
  const three = modelOf({ a: [{ name: "b", to: "b" }], b: [{ name: "a", to: "a" }], c: [{ name: "d", to: "d" }], d: [{ name: "c", to: "c" }, { name: "self", to: "d" }] });
  assert.equal(found(three).map((f) => f.split(":")[0]), ["a.json/properties/b", "c.json/properties/d", "d.json/properties/self"]);
});

test("a chain of 5,000 collections is judged without overflowing the stack, ring or no ring", () => {
  const chain = (closed: boolean) => {
    const defs: Record<string, LinkDef[]> = {};
    for (let i = 0; i < 5000; i++) defs[`c${i}s`] = [{ name: "next", to: i === 4999 ? (closed ? "c0s" : "ends") : `c${i + 1}s` }];
    defs.ends = [];
    return modelOf(defs);
  };
  assert.equal(found(chain(false)), []);
  const ring = found(chain(true));
  assert.is(ring.length, 1);
  assert.ok(ring[0]!.startsWith("c0s.json/properties/next: required links go round in a ring (c0s.next → c1s, c1s.next → c2s"), ring[0]!.slice(0, 200));
});

test.run();
