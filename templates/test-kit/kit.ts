/**
 * Contract tests of a generated service, run by its own `npm test`: every route of every resource and
 * action over real HTTP against the in-memory store, checking the conventions, the error body and auth.
 * They test the conventions, not your business rules: the service runs without your hooks, and each
 * action's handler is a stub that answers a sample of the action's response. A case that needs sample
 * data the definitions do not yield, or a route an empty x-access list closes to every key, is registered
 * as skipped, and its reason is printed after the summary. With TEST_DATABASE_URL (postgres://…) they run
 * against PostgreSQL instead: each test service in a schema of its own, made for it and dropped afterwards.
 */
import { randomUUID } from "node:crypto";
import { suite, type Test } from "uvu";
import * as assert from "uvu/assert";
import type { ActionHandler } from "../../src/generated/runtime/context.js";
import { KeyRing, type NewKey } from "../../src/generated/runtime/keys.js";
import { buildService, type Service } from "../../src/generated/runtime/server.js";
import { openSqliteStore } from "../../src/generated/runtime/sqlite-store.js";
import type { Store } from "../../src/generated/runtime/store.js";
import type { ActionSpec, ResourceSpec, ServiceSpec } from "../../src/generated/runtime/spec.js";
import { loadValidators } from "../../src/generated/runtime/validate.js";

type Json = Record<string, any>;

/** Sample data decided at generate time, and why a sample is missing where there is none. */
export interface Samples {
  readonly resources: Readonly<Record<string, ResourceSamples>>;
  readonly actions: Readonly<Record<string, ActionSamples>>;
}

/** Valid bodies of a resource (links left out: the tests create link targets) and a wrongly typed value. */
export interface ResourceSamples {
  readonly bodies: readonly Json[];
  readonly invalid?: { readonly property: string; readonly value: unknown };
  /** Why `bodies` is empty. */
  readonly noBody?: string;
}

/** An action's parameters, and the response its stub answers with. */
export interface ActionSamples {
  readonly params?: Json;
  readonly noParams?: string;
  readonly response?: { readonly value: unknown };
  readonly noResponse?: string;
}

interface Reply {
  readonly status: number;
  readonly headers: Headers;
  readonly body: any;
}

/**
 * The stand-ins of your code: no hooks, and per action a handler that answers the action's sample
 * response (an action without one keeps no handler, and answers 501 as an unwritten one does).
 */
export function stubActions(spec: ServiceSpec, samples: Samples): Record<string, ActionHandler> {
  const stubs: Record<string, ActionHandler> = {};
  for (const action of spec.actions) {
    const response = samples.actions[action.name]?.response;
    if (response) stubs[action.name] = () => structuredClone(response.value);
  }
  return stubs;
}

/**
 * The store of one test service: the in-memory SQLite store, or with TEST_DATABASE_URL a PostgreSQL store in a
 * schema of its own (so that test files running at once, and earlier runs, never see each other's data), and
 * what drops that schema.
 */
async function testStore(spec: ServiceSpec): Promise<{ store: Store; drop: () => Promise<void> }> {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) return { store: openSqliteStore(spec, ":memory:"), drop: async () => undefined };
  const { default: pg } = await import("pg");
  const { openPgStore } = await import("../../src/generated/runtime/pg-store.js");
  const schema = `rsc_test_${randomUUID().replace(/-/g, "")}`;
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await admin(`CREATE SCHEMA ${schema}`);
  if (!announced) console.log(`# contract tests on PostgreSQL (TEST_DATABASE_URL), each test service in a schema of its own (${schema}, …)`);
  announced = true;
  const scoped = new URL(url);
  scoped.searchParams.set("options", `-c search_path=${schema}`);
  const store = await openPgStore(spec, scoped.href, { poolSize: 4 });
  return { store, drop: () => admin(`DROP SCHEMA ${schema} CASCADE`) };
}
let announced = false;

/** A running test service with three keys: all roles, no roles, and all roles but the admin ones. */
export class TestService {
  private constructor(
    readonly spec: ServiceSpec,
    readonly service: Service,
    readonly origin: string,
    readonly keys: { readonly admin: NewKey; readonly nobody: NewKey; readonly other: NewKey },
    private readonly drop: () => Promise<void>,
  ) {}

  static async start(spec: ServiceSpec, samples: Samples): Promise<TestService> {
    const ring = KeyRing.memory();
    const roles = new Set<string>();
    const adminRoles = new Set<string>();
    for (const r of spec.resources) {
      for (const [action, list] of Object.entries(r.access)) for (const role of list ?? []) (action === "admin" ? adminRoles : roles).add(role);
    }
    for (const a of spec.actions) for (const role of a.roles) roles.add(role);
    const keys = {
      admin: ring.create([...roles, ...adminRoles]),
      nobody: ring.create([]),
      other: ring.create([...roles].filter((r) => !adminRoles.has(r))),
    };
    // Built as createService builds the package's service (its precompiled validators too), with stubs for
    // your code, and settings of its own: whatever the environment says (BASE_URL, LOG_LEVEL, ...) the same
    // tests run the same way. This file is dist/test/generated/kit.js when it runs.
    const validators = await loadValidators(new URL("../../../src/generated/validators.js", import.meta.url));
    const { store, drop } = await testStore(spec);
    const service = await buildService(spec, { hooks: {}, actions: stubActions(spec, samples), validators }, { env: { PORT: "0", HOST: "127.0.0.1", LOG_LEVEL: "silent" }, store, keys: ring });
    return new TestService(spec, service, await service.listen(), keys, drop);
  }

  /** The path of a route under the base URL. */
  path(...segments: string[]): string {
    return new URL(this.spec.baseUrl + "/").pathname.replace(/\/+$/, "") + "/" + segments.map(encodeURIComponent).join("/");
  }

  /** Sends a request; `key` null sends no credentials. */
  async request(method: string, path: string, options: { body?: unknown; raw?: string; headers?: Record<string, string>; key?: NewKey | null } = {}): Promise<Reply> {
    const key = options.key === undefined ? this.keys.admin : options.key;
    const headers: Record<string, string> = { ...(key ? { authorization: `Bearer ${key.secret}` } : {}), ...options.headers };
    let body: string | undefined = options.raw;
    if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers["content-type"] ??= "application/json";
    }
    const res = await fetch(this.origin + path, { method, headers, ...(body === undefined ? {} : { body }) });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      /* not JSON: keep the text */
    }
    return { status: res.status, headers: res.headers, body: parsed };
  }

  async close(): Promise<void> {
    await this.service.close();
    await this.drop();
  }
}

/** Asserts the contract's error body: status, code, property, message, dev, info. */
export function assertError(reply: Reply, status: number, code: number | undefined, spec: ServiceSpec, property?: string): void {
  assert.is(reply.status, status, `status ${reply.status}: ${JSON.stringify(reply.body)}`);
  assert.match(reply.headers.get("content-type") ?? "", /json/);
  assert.equal(Object.keys(reply.body).sort(), ["code", "dev", "info", "message", "property", "status"]);
  assert.is(reply.body.status, status);
  if (code !== undefined) assert.is(reply.body.code, code);
  assert.is(reply.body.info, `${spec.errorDocsUrl}/${reply.body.code}`);
  if (property !== undefined) assert.is(reply.body.property, property);
}

const codeOf = (spec: ServiceSpec, key: string): number => spec.errors.find((e) => e.key === key)!.code;

/** Why a case cannot run: sample data the definitions do not yield, or a route closed to every key. */
interface Missing {
  readonly kind: "sample" | "closed";
  readonly reason: string;
}

const lacking = (reason: string): Missing => ({ kind: "sample", reason });

/** The first reason of several, or undefined when there is none. */
const first = (...reasons: (Missing | undefined)[]): Missing | undefined => reasons.find((m) => m !== undefined);

/**
 * Why the routes of `action` on `resource` answer 403 to every key, or undefined when some key may call them:
 * an empty x-access list (`"create": []`) names no role a key could hold, and no admin role passes it.
 */
function closed(resource: ResourceSpec, action: "read" | "create" | "update" | "delete"): Missing | undefined {
  if (resource.access[action]?.length !== 0 || (resource.access.admin ?? []).length > 0) return undefined;
  return { kind: "closed", reason: `no key may ${action} ${resource.collection}: its x-access "${action}" is [] and names no admin role` };
}

/** How deep the factory follows required links: a longer chain (or a cycle) cannot be created. */
const MAX_LINK_DEPTH = 4;

/** How many members a body must give the stored list of links `name` of `resource` (its minItems when required; 0 else). */
function linksNeeded(resource: ResourceSpec, name: string): number {
  if (!resource.required.includes(name)) return 0;
  const schema = ((resource.bodySchema as Json).properties ?? {})[name] as Json | undefined;
  return typeof schema?.minItems === "number" ? schema.minItems : 0;
}

/** Creates instances (and the instances their required links need) from the samples. */
class Factory {
  private readonly seeds = new Map<string, number>();
  constructor(
    private readonly spec: ServiceSpec,
    private readonly samples: Samples,
    private readonly service: () => TestService,
  ) {}

  /** Why no instance of `collection` can be created (from the samples, through its POST), or undefined when one can. */
  whyNot(collection: string, depth = 0): Missing | undefined {
    const r = this.spec.resources.find((x) => x.collection === collection);
    if (!r) return lacking(`there is no collection ${collection}`);
    const shut = closed(r, "create");
    if (shut) return shut;
    const own = this.samples.resources[collection];
    if (!own || own.bodies.length === 0) return lacking(`${collection} has no sample body: ${own?.noBody ?? "none was generated"}`);
    for (const f of r.fields) {
      if (!f.link || (f.kind === "link" ? !r.required.includes(f.name) : linksNeeded(r, f.name) === 0)) continue;
      if (depth >= MAX_LINK_DEPTH) return lacking(`${collection} needs a chain of more than ${MAX_LINK_DEPTH} required links (or a cycle of them)`);
      const why = this.whyNot(f.link!.target, depth + 1);
      if (why) return { kind: why.kind, reason: `${collection} needs a link to ${f.link!.target} (${JSON.stringify(f.name)} is required), and ${why.reason}` };
    }
    return undefined;
  }

  /** A valid body for a new instance, with links to fresh targets (required links always, others while cheap). */
  async body(resource: ResourceSpec, depth = 0): Promise<Json> {
    const bodies = this.samples.resources[resource.collection]!.bodies;
    const seed = this.seeds.get(resource.collection) ?? 0;
    this.seeds.set(resource.collection, seed + 1);
    const body: Json = structuredClone(bodies[seed % bodies.length]!);
    for (const f of resource.fields) {
      if (f.kind === "link") {
        const required = resource.required.includes(f.name);
        if (required || (depth < 2 && this.whyNot(f.link!.target, depth + 1) === undefined)) {
          const target = await this.create(f.link!.target, depth + 1);
          body[f.name] = { meta: { href: target.meta.href } };
        }
      } else if (f.kind === "links" && resource.required.includes(f.name) && !f.link!.inverse) {
        const list: Json[] = [];
        for (let i = 0; i < linksNeeded(resource, f.name); i++) list.push({ meta: { href: (await this.create(f.link!.target, depth + 1)).meta.href } });
        body[f.name] = list;
      }
    }
    return body;
  }

  /** POSTs `body` (a new sample body by default) and asserts the 201. */
  async create(collection: string, depth = 0, body?: Json): Promise<Json> {
    const resource = this.spec.resources.find((r) => r.collection === collection)!;
    const service = this.service();
    const reply = await service.request("POST", service.path(collection), { body: body ?? (await this.body(resource, depth)) });
    assert.is(reply.status, 201, `creating an instance of ${collection}: ${JSON.stringify(reply.body)}`);
    return reply.body;
  }
}

/** The skipped cases of this run by kind and reason, printed after uvu's summary (uvu counts skips but names none). */
const skipped = { sample: new Map<string, string[]>(), closed: new Map<string, string[]>() };

/** The heading of each kind of skip in the printed list, with what lifts it. */
const SKIP_HEADINGS: Readonly<Record<Missing["kind"], string>> = {
  sample: 'Skipped for want of sample data (a valid "examples" entry in the schema gives them one)',
  closed: "Skipped because a route they need is closed to every key (leave the action out of x-access to open it to any key, or name a role)",
};

/**
 * Registers the case `name` of suite `s`, or, when `missing` says what it lacks (sample data, or a route
 * some key may call), registers it as skipped (uvu counts it under Skipped) and keeps the reason to print.
 */
function register(s: Test, suiteName: string, name: string, missing: Missing | undefined, fn: () => Promise<void>): void {
  if (missing === undefined) {
    s(name, fn);
    return;
  }
  s.skip(name, fn);
  if (skipped.sample.size + skipped.closed.size === 0) process.once("exit", printSkipped);
  const byReason = skipped[missing.kind];
  byReason.set(missing.reason, [...(byReason.get(missing.reason) ?? []), `${suiteName} › ${name}`]);
}

function printSkipped(): void {
  let text = "";
  for (const kind of ["sample", "closed"] as const) {
    if (skipped[kind].size === 0) continue;
    text += `\n  ${SKIP_HEADINGS[kind]}:\n`;
    for (const [reason, cases] of skipped[kind]) text += `    ${reason}\n${cases.map((c) => `      skipped: ${c}\n`).join("")}`;
  }
  process.stdout.write(text + "\n");
}

/** Registers and runs the contract suites of every resource and action of `spec`. */
export function runContract(spec: ServiceSpec, samples: Samples): void {
  const ctx: { service?: TestService; failure?: string } = {};
  const service = () => ctx.service!;
  const factory = new Factory(spec, samples, service);
  // Before each case: the service, started once. When it does not start, every case fails with its start-up
  // error (a suite's `before` hook that throws would leave its cases uncounted, "(0 / 7)", with no reason).
  const boot = async () => {
    if (ctx.failure === undefined && ctx.service === undefined) {
      try {
        ctx.service = await TestService.start(spec, samples);
      } catch (e) {
        ctx.failure = `The service did not start, so no case can run: ${errorText(e)}`;
        process.stderr.write(`\n${ctx.failure}\n`);
      }
    }
    if (ctx.failure !== undefined) throw startFailure(ctx.failure);
  };
  for (const resource of spec.resources) resourceSuite(spec, resource, samples, boot, service, factory);
  for (const action of spec.actions) actionSuite(spec, action, samples, boot, service);
  const routes = suite("routes");
  routes.before.each(boot);
  routes("an unknown route is a 404 with the error body", async () => {
    assertError(await service().request("GET", service().path("no-such-route-here")), 404, codeOf(spec, "routeNotFound"), spec);
  });
  routes.after(() => ctx.service?.close());
  routes.run();
}

/** An error's message with those of its causes: "the body schema of books cannot be compiled: …". */
function errorText(e: unknown): string {
  const parts: string[] = [];
  for (let at: unknown = e, depth = 0; at !== undefined && depth < 5; depth++) {
    const text = at instanceof Error ? at.message : String(at);
    if (!parts.some((p) => p.includes(text))) parts.push(text);
    at = at instanceof Error ? at.cause : undefined;
  }
  return parts.join(" (because: ") + ")".repeat(parts.length - 1);
}

/** The error each case fails with when the service did not start: its text, without the kit's own stack. */
function startFailure(text: string): Error {
  const error = new Error(text);
  error.stack = text.replace(/\n/g, " ");
  return error;
}

function resourceSuite(spec: ServiceSpec, resource: ResourceSpec, samples: Samples, boot: () => Promise<void>, service: () => TestService, factory: Factory): void {
  const name = resource.collection;
  const s = suite(name);
  s.before.each(boot);
  const collection = () => service().path(resource.collection);
  // Decided now, from the spec and the samples: a case without the data or the route it needs is skipped, never passed.
  const noInstance = factory.whyNot(resource.collection);
  const shut = { read: closed(resource, "read"), create: closed(resource, "create"), update: closed(resource, "update"), delete: closed(resource, "delete") };
  const own = samples.resources[resource.collection];
  const isLink = (property: string) => resource.fields.some((f) => f.name === property && f.kind === "link");

  s("without credentials: 401 with a challenge per scheme", async () => {
    const reply = await service().request("GET", collection(), { key: null });
    assertError(reply, 401, codeOf(spec, "unauthenticated"), spec);
    assert.ok(reply.headers.get("www-authenticate"), "WWW-Authenticate is set");
  });

  register(s, name, "GET the collection: a page with meta", shut.read, async () => {
    const reply = await service().request("GET", collection() + "?offset=0&limit=5");
    assert.is(reply.status, 200);
    assert.equal([reply.body.offset, reply.body.limit, typeof reply.body.size, Array.isArray(reply.body.items)], [0, 5, "number", true]);
    assert.is(reply.body.meta.mediaType, resource.collectionMediaType);
    assertError(await service().request("GET", collection() + "?limit=0"), 400, codeOf(spec, "invalidPaging"), spec, "limit");
  });

  s("a method a route does not have: 405 with Allow", async () => {
    const reply = await service().request("PUT", collection(), { body: {} });
    assertError(reply, 405, codeOf(spec, "methodNotAllowed"), spec);
    assert.match(reply.headers.get("allow") ?? "", "GET");
  });

  register(s, name, "an unacceptable Accept: 406", shut.read, async () => {
    assertError(await service().request("GET", collection(), { headers: { accept: "text/html" } }), 406, codeOf(spec, "notAcceptable"), spec);
  });

  register(s, name, "a missing instance is a 404 with the error body", shut.read, async () => {
    assertError(await service().request("GET", service().path(resource.collection, "no-such-id")), 404, codeOf(spec, "notFound"), spec);
  });

  register(s, name, "bodies refused whatever they hold: a server-owned property, not JSON, not a JSON media type", shut.create, async () => {
    assertError(await service().request("POST", collection(), { body: { id: "x" } }), 400, codeOf(spec, "readOnlyProperty"), spec, "id");
    assertError(await service().request("POST", collection(), { raw: "{ not json", headers: { "content-type": "application/json" } }), 400, codeOf(spec, "malformedJson"), spec);
    assertError(await service().request("POST", collection(), { raw: "text", headers: { "content-type": "text/plain" } }), 415, codeOf(spec, "unsupportedMediaType"), spec);
  });

  const form = resource.idForm ?? { kind: "uuid" as const };
  register(s, name, `ids are ${form.kind === "sequence" ? "numbers counting up from 1" : form.kind === "prefix" ? `"${form.prefix}" and 22 letters and digits` : "UUIDs"} (x-id), in the href too; an id of another form is a 404`, first(noInstance, shut.read), async () => {
    const created = await factory.create(resource.collection);
    const id: unknown = created.id;
    if (form.kind === "sequence") assert.ok(typeof id === "number" && Number.isSafeInteger(id) && id >= 1, `id ${JSON.stringify(id)}`);
    else if (form.kind === "prefix") assert.ok(typeof id === "string" && id.startsWith(form.prefix) && /^[0-9A-Za-z]{22}$/.test(id.slice(form.prefix.length)), `id ${JSON.stringify(id)}`);
    else assert.match(String(id), /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    assert.ok(created.meta.href.endsWith(`/${resource.collection}/${id}`), `href ${created.meta.href} ends in the id`);
    const text = String(id);
    const others =
      form.kind === "sequence" ? [`0${text}`, `${text}.0`, `${text}e0`, "abc"] : form.kind === "prefix" ? [text.slice(0, -1), text.toUpperCase(), `x${text}`] : [text.toUpperCase(), text.replace(/-/g, ""), `${text}0`];
    for (const other of others) {
      assertError(await service().request("GET", service().path(resource.collection, other)), 404, codeOf(spec, "notFound"), spec);
    }
  });

  register(s, name, "POST creates (201, Location, meta); GET, fields, expand and sub-collections read it", first(noInstance, shut.read), async () => {
    const created = await factory.create(resource.collection);
    assert.is(created.meta.mediaType, resource.mediaType);
    const href: string = created.meta.href;
    const path = service().path(resource.collection, created.id);
    const got = await service().request("GET", path, { headers: { accept: resource.mediaType } });
    assert.is(got.status, 200);
    assert.is(got.headers.get("content-type"), resource.mediaType);
    assert.is(got.body.meta.href, href);
    const picked = await service().request("GET", path + "?fields=id");
    assert.equal(Object.keys(picked.body).sort(), ["id", "meta"]);
    assertError(await service().request("GET", path + "?fields=noSuchField"), 400, codeOf(spec, "unknownField"), spec, "fields");
    for (const f of resource.fields.filter((x) => x.kind === "link" || x.kind === "links")) {
      const expanded = await service().request("GET", `${path}?expand=${f.name}`);
      assert.is(expanded.status, 200, `expand=${f.name}: ${JSON.stringify(expanded.body)}`);
      if (f.kind === "links") {
        const sub = await service().request("GET", `${path}/${f.name}`);
        const target = spec.resources.find((r) => r.collection === f.link!.target)!;
        // A sub-collection of a collection no key may read is closed too (its own case checks that).
        if (closed(target, "read")) {
          assertError(sub, 403, codeOf(spec, "forbidden"), spec);
          continue;
        }
        assert.is(sub.status, 200);
        assert.ok(Array.isArray(sub.body.items));
      }
    }
  });

  register(s, name, "an unknown property in a valid body is a 400 naming it", noInstance, async () => {
    const body = await factory.body(resource);
    assertError(await service().request("POST", collection(), { body: { ...body, zzNoSuchProperty: 1 } }), 400, codeOf(spec, "unknownProperty"), spec, "zzNoSuchProperty");
  });

  if (own?.invalid) {
    const invalid = own.invalid;
    register(s, name, `a wrongly typed ${JSON.stringify(invalid.property)} is a 400 naming it`, noInstance, async () => {
      const body = await factory.body(resource);
      assertError(await service().request("POST", collection(), { body: { ...body, [invalid.property]: invalid.value } }), 400, codeOf(spec, "invalidProperty"), spec, invalid.property);
    });
  }

  const required = ((resource.bodySchema as Json).required ?? []) as string[];
  if (required.length > 0) {
    register(s, name, `a missing required ${JSON.stringify(required[0])} is a 400 naming it`, noInstance, async () => {
      const { [required[0]!]: dropped, ...rest } = await factory.body(resource);
      assert.ok(dropped !== undefined, `the sample body holds ${required[0]}`);
      assertError(await service().request("POST", collection(), { body: rest }), 400, codeOf(spec, "missingProperty"), spec, required[0]);
    });
  }

  register(s, name, "PUT replaces, PATCH merges, DELETE removes", first(noInstance, shut.update, shut.delete, shut.read), async () => {
    const body = await factory.body(resource);
    const created = await factory.create(resource.collection, 0, body);
    const path = service().path(resource.collection, created.id);
    // The body it was created with: a replacement that repeats its own unique values is no conflict.
    const put = await service().request("PUT", path, { body });
    assert.is(put.status, 200, JSON.stringify(put.body));
    assert.is(put.body.id, created.id);
    const patched = await service().request("PATCH", path, { body: {}, headers: { "content-type": "application/merge-patch+json" } });
    assert.is(patched.status, 200, JSON.stringify(patched.body));
    assert.is(patched.body.id, created.id);
    assert.is((await service().request("DELETE", path)).status, 204);
    assertError(await service().request("GET", path), 404, codeOf(spec, "notFound"), spec);
  });

  if (resource.unique.length > 0) {
    // A unique link repeats too: the same body names the same targets.
    const repeated = resource.unique.find((u) => (isLink(u) ? resource.required.includes(u) : (own?.bodies.length ?? 0) > 0 && own!.bodies.every((b) => u in b)));
    const missing = noInstance ?? (repeated === undefined ? lacking(`no sample body of ${name} holds a value of a unique property (${resource.unique.join(", ")})`) : undefined);
    register(s, name, "a repeated unique value is a 409 naming the property", missing, async () => {
      const body = await factory.body(resource);
      assert.ok(repeated! in body, `the sample body holds ${repeated}`);
      const first = await service().request("POST", collection(), { body });
      assert.is(first.status, 201, JSON.stringify(first.body));
      const again = await service().request("POST", collection(), { body });
      assertError(again, 409, codeOf(spec, "conflict"), spec);
      assert.ok(resource.unique.includes(again.body.property), `property ${JSON.stringify(again.body.property)} is a unique one`);
    });
  }

  if (resource.access.create) {
    // Roles are checked before the body is read: any body will do.
    s("a key without the create role gets 403", async () => {
      assertError(await service().request("POST", collection(), { body: {}, key: service().keys.nobody }), 403, codeOf(spec, "forbidden"), spec);
    });
  }

  const shutActions = (Object.keys(shut) as (keyof typeof shut)[]).filter((a) => shut[a] !== undefined);
  if (shutActions.length > 0) {
    const named = shutActions.map((a) => `"${a}": []`).join(", ");
    s(`routes x-access closes (${named}, no admin role): 403 to every key, 401 without one`, async () => {
      const instance = (...rest: string[]) => service().path(resource.collection, "no-such-id", ...rest);
      const routes: [method: string, path: string][] = [];
      const lists = resource.fields.filter((f) => f.kind === "links");
      if (shut.read) routes.push(["GET", collection()], ["GET", instance()], ...lists.map((f): [string, string] => ["GET", instance(f.name)]));
      if (shut.create) routes.push(["POST", collection()]);
      if (shut.update) {
        routes.push(["PUT", instance()], ["PATCH", instance()], ["POST", instance()]);
        for (const f of lists.filter((x) => !x.link!.inverse)) routes.push(["POST", instance(f.name)], ["DELETE", instance(f.name, "no-such-member")]);
      }
      if (shut.delete) routes.push(["DELETE", instance()]);
      // Access is decided before the instance is looked up or the body read: no instance and any body will do.
      for (const [method, path] of routes) {
        const body = method === "GET" || method === "DELETE" ? undefined : {};
        for (const [who, key] of Object.entries(service().keys)) {
          const reply = await service().request(method, path, { key, ...(body ? { body } : {}) });
          assert.is(reply.status, 403, `${method} ${path} with the ${who} key: ${JSON.stringify(reply.body)}`);
          assertError(reply, 403, codeOf(spec, "forbidden"), spec);
        }
        assertError(await service().request(method, path, { key: null, ...(body ? { body } : {}) }), 401, codeOf(spec, "unauthenticated"), spec);
      }
    });
  }

  if (resource.owner) {
    register(s, name, "another key cannot see an owned instance", first(noInstance, shut.read), async () => {
      const created = await factory.create(resource.collection);
      const path = service().path(resource.collection, created.id);
      assertError(await service().request("GET", path, { key: service().keys.other }), 403, codeOf(spec, "forbidden"), spec);
      const list = await service().request("GET", collection(), { key: service().keys.other });
      assert.is(list.status, 200, JSON.stringify(list.body));
      assert.not.ok(list.body.items.some((i: Json) => i.id === created.id), "the list is filtered by owner");
    });
  }
  s.run();
}

function actionSuite(spec: ServiceSpec, action: ActionSpec, samples: Samples, boot: () => Promise<void>, service: () => TestService): void {
  const name = `action ${action.name}`;
  const s = suite(name);
  s.before.each(boot);
  const path = () => service().path(action.name);
  const own = samples.actions[action.name] ?? {};
  const params = own.params;
  const noParams = params ? undefined : lacking(`no sample of the parameters of ${action.name}: ${own.noParams ?? "none was generated"}`);
  const query = (p: Json) => "?" + new URLSearchParams(Object.entries(p).map(([k, v]) => [k, String(v)])).toString();

  const noResponse = own.response ? undefined : lacking(`no sample of the response of ${action.name} for its stub to answer with: ${own.noResponse ?? "none was generated"}`);
  register(s, name, "valid parameters: 200 with the handler's result", noParams ?? noResponse, async () => {
    const reply = await service().request(action.method, path() + query(params!));
    assert.is(reply.status, 200, JSON.stringify(reply.body));
    assert.equal(reply.body, own.response!.value);
  });

  const required = ((action.query as Json).required ?? []) as string[];
  if (required.length > 0) {
    register(s, name, `a missing required parameter ${JSON.stringify(required[0])} is a 400 naming it`, noParams, async () => {
      const { [required[0]!]: _dropped, ...rest } = params!;
      assertError(await service().request(action.method, path() + query(rest)), 400, codeOf(spec, "invalidParameter"), spec, required[0]);
    });
  }

  s("without credentials: 401", async () => {
    assertError(await service().request(action.method, path(), { key: null }), 401, codeOf(spec, "unauthenticated"), spec);
  });
  s.run();
}
