/**
 * Null in a generated service (templates/runtime/routes-resource.ts, validate.ts, represent.ts): a nullable
 * property or link is set to null by a JSON merge patch and stays present with that value; null removes an
 * optional property that is not nullable (RFC 7396); null for a required one that is not nullable is a 400
 * naming it. And the errors of wrong link values, which show what a link to the target looks like.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { LightMyRequestResponse } from "fastify";
import { BUILTIN_ERRORS } from "../../../src/model/builtin-errors.js";
import { buildApp } from "../../../templates/runtime/app.js";
import { KeyRing, type NewKey } from "../../../templates/runtime/keys.js";
import { mergePatch } from "../../../templates/runtime/routes-resource.js";
import type { ErrorSpec, FieldSpec, MediaTypeSpec, ResourceSpec, ServiceSpec } from "../../../templates/runtime/spec.js";
import { openSqliteStore } from "../../../templates/runtime/sqlite-store.js";
import { acceptedBodySchema } from "../../../templates/runtime/validate.js";

type Json = Record<string, any>;

const BASE = "https://api.example.com/v1";
const DOCS = "https://docs.example.com/errors";
const LINK_INPUT_SCHEMA = {
  type: "object",
  required: ["meta"],
  properties: { meta: { type: "object", required: ["href"], properties: { href: { type: "string", minLength: 1 }, mediaType: { type: "string" } } } },
};

const type = (subject: string) => `application/vnd.acme.v1.${subject}+json`;

/** A resource whose body schema is built as src/emit/spec.ts bodySchemaOf builds it. */
function resource(name: string, collection: string, fields: readonly [FieldSpec, Json][], required: string[]): ResourceSpec {
  const properties: Json = {};
  for (const [f, schema] of fields) {
    properties[f.name] = f.kind === "link" ? LINK_INPUT_SCHEMA : f.kind === "links" ? { type: "array", items: LINK_INPUT_SCHEMA } : schema;
  }
  return {
    name,
    collection,
    fields: fields.map(([f]) => f),
    required,
    unique: [],
    access: {},
    mediaType: type(name),
    collectionMediaType: type(collection),
    bodySchema: { type: "object", additionalProperties: false, required, properties },
  };
}

const TEAM_FIELDS: [FieldSpec, Json][] = [
  [{ name: "name", kind: "string" }, { type: "string", minLength: 1 }],
  [{ name: "description", kind: "string", nullable: true }, { type: ["string", "null"] }],
  [{ name: "motto", kind: "string" }, { type: "string" }],
  [{ name: "nickname", kind: "string", nullable: true }, { anyOf: [{ type: "string" }, { type: "null" }] }],
  [
    { name: "address", kind: "object", properties: [{ name: "city", kind: "string", nullable: true }, { name: "street", kind: "string" }, { name: "zip", kind: "string" }] },
    { type: "object", required: ["zip"], properties: { city: { type: ["string", "null"] }, street: { type: "string" }, zip: { type: "string" } } },
  ],
  [{ name: "parent", kind: "link", nullable: true, link: { kind: "instance", target: "teams", onDelete: "clear" } }, {}],
  [{ name: "coach", kind: "link", link: { kind: "instance", target: "people" } }, {}],
  [{ name: "members", kind: "links", link: { kind: "collection", target: "people" } }, {}],
];

const ERRORS: ErrorSpec[] = BUILTIN_ERRORS.map((e) => ({ ...e, info: `${DOCS}/${e.code}` }));
const RESOURCES = [resource("team", "teams", TEAM_FIELDS, ["name", "description"]), resource("person", "people", [[{ name: "name", kind: "string" }, { type: "string" }]], ["name"])];
const MEDIA_TYPES: MediaTypeSpec[] = [
  { subject: "error", kind: "error" as const },
  ...RESOURCES.flatMap((r) => [
    { subject: r.name, kind: "instance" as const },
    { subject: r.collection, kind: "collection" as const },
  ]),
].map((t) => ({ name: type(t.subject), alias: `application/acme.v1.${t.subject}.json`, subject: t.subject, kind: t.kind, version: 1 }));

const spec: ServiceSpec = {
  name: "teams",
  title: "Teams",
  vendor: "acme",
  version: 1,
  baseUrl: BASE,
  errorDocsUrl: DOCS,
  auth: { schemes: ["bearer"], realm: "Teams" },
  paging: { defaultLimit: 25, maxLimit: 100 },
  bodyLimit: 1_048_576,
  resources: RESOURCES,
  actions: [],
  errors: ERRORS,
  mediaTypes: MEDIA_TYPES,
};

async function withApp(fn: (call: (method: string, path: string, body?: unknown) => Promise<LightMyRequestResponse>) => Promise<void>): Promise<void> {
  const store = openSqliteStore(spec, ":memory:");
  const keys = KeyRing.memory();
  const key: NewKey = keys.create([]);
  const app = await buildApp({ spec, store, keys });
  const call = (method: string, path: string, body?: unknown) =>
    app.inject({
      method: method as "GET",
      url: `/v1${path}`,
      headers: { authorization: `Bearer ${key.secret}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    });
  try {
    await fn(call);
  } finally {
    await app.close();
    await store.close();
  }
}

const json = (res: LightMyRequestResponse): Json => JSON.parse(res.body) as Json;
const link = (collection: string, id: string) => ({ meta: { href: `${BASE}/${collection}/${id}` } });

function ok(res: LightMyRequestResponse, status = 200): Json {
  assert.is(res.statusCode, status, res.body);
  return json(res);
}

/** The error body of a 400 with `key` and `property`. */
function error400(res: LightMyRequestResponse, key: string, property: string): Json {
  const body = json(res);
  const entry = ERRORS.find((e) => e.key === key)!;
  assert.is(res.statusCode, 400, res.body);
  assert.is(body.code, entry.code, res.body);
  assert.is(body.property, property, res.body);
  return body;
}

// ---------------------------------------------------------------------------------------------------
// mergePatch itself
// ---------------------------------------------------------------------------------------------------

test("mergePatch: null sets a nullable field to null and removes any other; objects merge with their own properties' rules", () => {
  const fields = TEAM_FIELDS.map(([f]) => f);
  const current = { name: "A", description: "d", motto: "m", nickname: "n", address: { city: "c", street: "s", zip: "z" }, members: [] };
  const out = mergePatch(current, { description: null, motto: null, nickname: null, address: { city: null, street: null } }, fields);
  assert.equal(out, { name: "A", description: null, nickname: null, address: { city: null, zip: "z" }, members: [] });
  assert.ok(Object.hasOwn(out, "description") && Object.hasOwn(out.address as Json, "city"));
  // A stored list of links is never null, whatever its spec says; without field specs, RFC 7396 as written.
  assert.equal(mergePatch({ members: [] }, { members: null }, [{ name: "members", kind: "links", nullable: true }]), {});
  assert.equal(mergePatch(current, { description: null, address: { city: null } }), { name: "A", motto: "m", nickname: "n", address: { street: "s", zip: "z" }, members: [] });
  // The current value is not changed; a null target of a nested patch starts from an empty object.
  assert.is(current.description, "d");
  assert.equal(mergePatch({ address: null }, { address: { city: "x" } }, fields), { address: { city: "x" } });
});

test("acceptedBodySchema: a nullable instance link accepts null beside { meta: { href } }; others are left as they are", () => {
  const team = RESOURCES[0]!;
  const props = (acceptedBodySchema(team) as Json).properties;
  assert.equal(props.parent, { anyOf: [LINK_INPUT_SCHEMA, { type: "null" }] });
  assert.equal(props.coach, LINK_INPUT_SCHEMA);
  assert.equal(props.description, { type: ["string", "null"] });
  // Already accepting null: unchanged. Nothing nullable: the very same schema.
  const already = { ...team, bodySchema: { ...(team.bodySchema as Json), properties: { ...props, parent: { anyOf: [LINK_INPUT_SCHEMA, { type: "null" }] } } } };
  assert.equal((acceptedBodySchema(already) as Json).properties.parent, { anyOf: [LINK_INPUT_SCHEMA, { type: "null" }] });
  const person = RESOURCES[1]!;
  assert.is(acceptedBodySchema(person), person.bodySchema);
});

// ---------------------------------------------------------------------------------------------------
// Over HTTP (inject)
// ---------------------------------------------------------------------------------------------------

test("PATCH null on a required, nullable property stores null: the property stays present, and reads back as null", () =>
  withApp(async (call) => {
    const t = ok(await call("POST", "/teams", { name: "Ravens", description: "Night shift" }), 201);
    const patched = ok(await call("PATCH", `/teams/${t.id}`, { description: null }));
    assert.ok(Object.hasOwn(patched, "description"), JSON.stringify(patched));
    assert.is(patched.description, null);
    const read = ok(await call("GET", `/teams/${t.id}`));
    assert.is(read.description, null);
    assert.ok(Object.hasOwn(read, "description"));
    // A later merge patch of another field keeps the null; a value replaces it again.
    assert.is(ok(await call("PATCH", `/teams/${t.id}`, { motto: "Caw" })).description, null);
    assert.is(ok(await call("POST", `/teams/${t.id}`, { description: "Day shift" })).description, "Day shift");
    // fields= selects it as any other value.
    assert.equal(ok(await call("PATCH", `/teams/${t.id}`, { description: null })).description, null);
    const picked = ok(await call("GET", `/teams/${t.id}?fields=description`));
    assert.equal(Object.keys(picked).sort(), ["description", "meta"]);
    assert.is(picked.description, null);
  }));

test("PATCH null on an optional nullable property stores null; on an optional property that is not nullable it removes it (RFC 7396)", () =>
  withApp(async (call) => {
    const t = ok(await call("POST", "/teams", { name: "Owls", description: "d", motto: "Hoot", nickname: "O" }), 201);
    const patched = ok(await call("PATCH", `/teams/${t.id}`, { motto: null, nickname: null }));
    assert.not.ok(Object.hasOwn(patched, "motto"), JSON.stringify(patched));
    assert.ok(Object.hasOwn(patched, "nickname"));
    assert.is(patched.nickname, null);
    const read = ok(await call("GET", `/teams/${t.id}`));
    assert.not.ok(Object.hasOwn(read, "motto"));
    assert.is(read.nickname, null);
  }));

test("PATCH null on a required property that is not nullable is a 400 naming it, and changes nothing", () =>
  withApp(async (call) => {
    const t = ok(await call("POST", "/teams", { name: "Hawks", description: "d" }), 201);
    const body = error400(await call("PATCH", `/teams/${t.id}`, { name: null }), "missingProperty", "name");
    assert.match(body.dev, /"name" is required and cannot be null/);
    assert.match(body.dev, /leave "name" out of the patch/);
    // Inside an object: its required property, by its path.
    ok(await call("PATCH", `/teams/${t.id}`, { address: { zip: "12345", city: "Oslo" } }));
    const nested = error400(await call("PATCH", `/teams/${t.id}`, { address: { zip: null } }), "missingProperty", "address.zip");
    assert.match(nested.dev, /"address.zip" is required and cannot be null/);
    const read = ok(await call("GET", `/teams/${t.id}`));
    assert.is(read.name, "Hawks");
    assert.equal(read.address, { zip: "12345", city: "Oslo" });
    // A property missing from a whole body (PUT, POST) says only that.
    assert.not.match(error400(await call("PUT", `/teams/${t.id}`, { description: "d" }), "missingProperty", "name").dev, /null/);
    assert.not.match(error400(await call("POST", "/teams", { name: "x" }), "missingProperty", "description").dev, /null/);
  }));

test("nested: null sets a nullable property of an object to null and removes another; POST and PUT take null where the schema allows it", () =>
  withApp(async (call) => {
    const t = ok(await call("POST", "/teams", { name: "Jays", description: null, nickname: null, address: { zip: "1", city: "Rome", street: "Via" } }), 201);
    assert.is(t.description, null);
    assert.is(t.nickname, null);
    const patched = ok(await call("PATCH", `/teams/${t.id}`, { address: { city: null, street: null } }));
    assert.equal(patched.address, { zip: "1", city: null });
    assert.equal(ok(await call("PUT", `/teams/${t.id}`, { name: "Jays", description: null, nickname: "J" })).nickname, "J");
    // null where the schema does not allow it, in a whole body: the type error, as ever.
    error400(await call("POST", "/teams", { name: "x", description: "d", motto: null }), "invalidProperty", "motto");
  }));

test("a nullable link takes null: stored, represented, expanded and selected as null; a merge patch sets it to null or to a link", () =>
  withApp(async (call) => {
    const root = ok(await call("POST", "/teams", { name: "Root", description: "d", parent: null }), 201);
    assert.ok(Object.hasOwn(root, "parent"));
    assert.is(root.parent, null);
    const child = ok(await call("POST", "/teams", { name: "Child", description: "d", parent: link("teams", root.id) }), 201);
    assert.is(child.parent.meta.href, `${BASE}/teams/${root.id}`);
    const cleared = ok(await call("PATCH", `/teams/${child.id}`, { parent: null }));
    assert.is(cleared.parent, null);
    assert.is(ok(await call("GET", `/teams/${child.id}?expand=parent`)).parent, null);
    assert.is(ok(await call("GET", `/teams/${child.id}?fields=parent(name)`)).parent, null);
    assert.is(ok(await call("GET", `/teams?expand=parent`)).items.find((i: Json) => i.id === child.id).parent, null);
    // A merge patch of another field keeps the null link; a link replaces it.
    assert.is(ok(await call("PATCH", `/teams/${child.id}`, { motto: "m" })).parent, null);
    const relinked = ok(await call("PATCH", `/teams/${child.id}`, { parent: link("teams", root.id) }));
    assert.is(relinked.parent.meta.href, `${BASE}/teams/${root.id}`);
    assert.is(ok(await call("GET", `/teams/${child.id}?expand=parent`)).parent.name, "Root");
    // PUT with a null link, then deleting what nothing links to any more.
    assert.is(ok(await call("PUT", `/teams/${child.id}`, { name: "Child", description: "d", parent: null })).parent, null);
    assert.is((await call("DELETE", `/teams/${root.id}`)).statusCode, 204);
  }));

test("x-on-delete clear of a nullable link leaves it null; a link that is not nullable takes no null and a merge patch's null removes it", () =>
  withApp(async (call) => {
    const root = ok(await call("POST", "/teams", { name: "Root", description: "d" }), 201);
    const child = ok(await call("POST", "/teams", { name: "Child", description: "d", parent: link("teams", root.id) }), 201);
    assert.is((await call("DELETE", `/teams/${root.id}`)).statusCode, 204);
    const read = ok(await call("GET", `/teams/${child.id}`));
    assert.ok(Object.hasOwn(read, "parent"));
    assert.is(read.parent, null);

    const coach = ok(await call("POST", "/people", { name: "Pat" }), 201);
    const refused = error400(await call("POST", "/teams", { name: "x", description: "d", coach: null }), "invalidProperty", "coach");
    assert.not.match(refused.dev, /or null/);
    const coached = ok(await call("PATCH", `/teams/${child.id}`, { coach: link("people", coach.id) }));
    assert.is(coached.coach.meta.href, `${BASE}/people/${coach.id}`);
    const uncoached = ok(await call("PATCH", `/teams/${child.id}`, { coach: null }));
    assert.not.ok(Object.hasOwn(uncoached, "coach"), JSON.stringify(uncoached));
  }));

test("a wrong link value says what a link to the target looks like: { meta: { href: <base>/<collection>/<id> } }", () =>
  withApp(async (call) => {
    const people = `{ "meta": { "href": "${BASE}/people/<id>" } }`;
    const teams = `{ "meta": { "href": "${BASE}/teams/<id>" } }`;
    for (const wrong of ["Pat", 42, true, []]) {
      const body = error400(await call("POST", "/teams", { name: "x", description: "d", coach: wrong }), "invalidProperty", "coach");
      assert.ok(body.dev.includes(`"coach" is a link, written ${people}.`), `${JSON.stringify(wrong)}: ${body.dev}`);
    }
    const noMeta = error400(await call("POST", "/teams", { name: "x", description: "d", coach: { href: `${BASE}/people/1` } }), "missingProperty", "coach.meta");
    assert.ok(noMeta.dev.includes(`"coach" is a link, written ${people}.`), noMeta.dev);
    const missingHref = error400(await call("POST", "/teams", { name: "x", description: "d", coach: { meta: {} } }), "missingProperty", "coach.meta.href");
    assert.ok(missingHref.dev.includes(people), missingHref.dev);
    const badHref = error400(await call("POST", "/teams", { name: "x", description: "d", coach: { meta: { href: 7 } } }), "invalidProperty", "coach.meta.href");
    assert.ok(badHref.dev.includes(people), badHref.dev);
    // A nullable link says null is allowed too; a list of links shows a list.
    const parent = error400(await call("POST", "/teams", { name: "x", description: "d", parent: "Root" }), "invalidProperty", "parent");
    assert.ok(parent.dev.includes(`"parent" is a link, written ${teams}, or null.`), parent.dev);
    for (const [wrong, property] of [["Pat", "members"], [["Pat"], "members.0"]] as const) {
      const list = error400(await call("POST", "/teams", { name: "x", description: "d", members: wrong }), "invalidProperty", property);
      assert.ok(list.dev.includes(`"members" is a list of links, written [${people}, …].`), list.dev);
    }
    // A well-formed link naming another collection, or nothing: invalidLink, with the target's form.
    const t = ok(await call("POST", "/teams", { name: "y", description: "d" }), 201);
    const other = json(await call("POST", "/teams", { name: "x", description: "d", coach: link("teams", t.id) }));
    assert.is(other.property, "coach");
    assert.ok(other.dev.includes(`written ${people}`), other.dev);
    // A member POST to a stored list: the member's form.
    const member = error400(await call("POST", `/teams/${t.id}/members`, "Pat"), "invalidProperty", "");
    assert.ok(member.dev.includes(people), member.dev);
    // Other properties' errors say nothing of links.
    assert.not.match(error400(await call("POST", "/teams", { name: 5, description: "d" }), "invalidProperty", "name").dev, /link/);
  }));

test.run();
