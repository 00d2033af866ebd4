/**
 * Contract tests of a generated service, run by its own `npm test`: every route of every resource and
 * action over real HTTP against the in-memory store, checking the conventions, the error body and auth.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import type { FastifyInstance } from "fastify";
import { buildApp, type AppOptions } from "../../src/generated/runtime/app.js";
import { KeyRing, type NewKey } from "../../src/generated/runtime/keys.js";
import { openSqliteStore } from "../../src/generated/runtime/sqlite-store.js";
import type { ActionSpec, ResourceSpec, ServiceSpec } from "../../src/generated/runtime/spec.js";

type Json = Record<string, any>;

/** Sample data decided at generate time: valid bodies (links left out) and a wrongly typed value. */
export interface Samples {
  readonly resources: Readonly<Record<string, { readonly bodies: readonly Json[]; readonly invalid?: { readonly property: string; readonly value: unknown } }>>;
  readonly actions: Readonly<Record<string, { readonly params?: Json }>>;
}

interface Reply {
  readonly status: number;
  readonly headers: Headers;
  readonly body: any;
}

/** A running test service with three keys: all roles, no roles, and all roles but the admin ones. */
export class TestService {
  private constructor(
    readonly spec: ServiceSpec,
    readonly app: FastifyInstance,
    readonly origin: string,
    readonly keys: { readonly admin: NewKey; readonly nobody: NewKey; readonly other: NewKey },
  ) {}

  static async start(spec: ServiceSpec, handlers: Pick<AppOptions, "hooks" | "actions">): Promise<TestService> {
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
    const app = await buildApp({ spec, store: openSqliteStore(spec, ":memory:"), keys: ring, ...handlers });
    const address = await app.listen({ port: 0, host: "127.0.0.1" });
    return new TestService(spec, app, address, keys);
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

  close(): Promise<void> {
    return this.app.close();
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

/** Creates instances (and the instances their required links need) from the samples. */
class Factory {
  private readonly seeds = new Map<string, number>();
  constructor(
    private readonly service: TestService,
    private readonly samples: Samples,
  ) {}

  canCreate(collection: string, depth = 0): boolean {
    const r = this.service.spec.resources.find((x) => x.collection === collection);
    if (!r || depth > 4 || (this.samples.resources[collection]?.bodies.length ?? 0) === 0) return false;
    return r.fields.filter((f) => f.kind === "link" && r.required.includes(f.name)).every((f) => this.canCreate(f.link!.target, depth + 1));
  }

  /** A valid body for a new instance, with links to fresh (or given) targets. */
  async body(resource: ResourceSpec, depth = 0): Promise<Json> {
    const bodies = this.samples.resources[resource.collection]!.bodies;
    const seed = this.seeds.get(resource.collection) ?? 0;
    this.seeds.set(resource.collection, seed + 1);
    const body: Json = structuredClone(bodies[seed % bodies.length]!);
    for (const f of resource.fields) {
      if (f.kind === "link" && (resource.required.includes(f.name) || this.canCreate(f.link!.target, depth + 1)) && depth < 3) {
        const target = await this.create(f.link!.target, depth + 1);
        body[f.name] = { meta: { href: target.meta.href } };
      }
    }
    return body;
  }

  async create(collection: string, depth = 0): Promise<Json> {
    const resource = this.service.spec.resources.find((r) => r.collection === collection)!;
    const reply = await this.service.request("POST", this.service.path(collection), { body: await this.body(resource, depth) });
    assert.is(reply.status, 201, `creating an instance of ${collection}: ${JSON.stringify(reply.body)}`);
    return reply.body;
  }
}

/** Registers and runs the contract suites of every resource and action of `spec`. */
export function runContract(spec: ServiceSpec, handlers: Pick<AppOptions, "hooks" | "actions">, samples: Samples): void {
  const ctx: { service?: TestService; factory?: Factory } = {};
  const service = () => ctx.service!;
  const boot = async () => {
    ctx.service ??= await TestService.start(spec, handlers);
    ctx.factory ??= new Factory(ctx.service, samples);
  };
  for (const resource of spec.resources) resourceSuite(spec, resource, samples, boot, service, () => ctx.factory!);
  for (const action of spec.actions) actionSuite(spec, action, samples, boot, service);
  const routes = suite("routes");
  routes.before(boot);
  routes("an unknown route is a 404 with the error body", async () => {
    assertError(await service().request("GET", service().path("no-such-route-here")), 404, codeOf(spec, "routeNotFound"), spec);
  });
  routes.after(() => service().close());
  routes.run();
}

function resourceSuite(spec: ServiceSpec, resource: ResourceSpec, samples: Samples, boot: () => Promise<void>, service: () => TestService, factory: () => Factory): void {
  const s = suite(resource.collection);
  s.before(boot);
  const collection = () => service().path(resource.collection);
  const writable = () => factory().canCreate(resource.collection);

  s("without credentials: 401 with a challenge per scheme", async () => {
    const reply = await service().request("GET", collection(), { key: null });
    assertError(reply, 401, codeOf(spec, "unauthenticated"), spec);
    assert.ok(reply.headers.get("www-authenticate"), "WWW-Authenticate is set");
  });

  s("GET the collection: a page with meta", async () => {
    const reply = await service().request("GET", collection() + "?offset=0&limit=5");
    assert.is(reply.status, 200);
    assert.equal([reply.body.offset, reply.body.limit, typeof reply.body.size, Array.isArray(reply.body.items)], [0, 5, "number", true]);
    assert.is(reply.body.meta.mediaType, resource.collectionMediaType);
    assertError(await service().request("GET", collection() + "?limit=0"), 400, codeOf(spec, "invalidPaging"), spec, "limit");
  });

  s("methods a route does not have: 405 with Allow; unacceptable Accept: 406", async () => {
    const reply = await service().request("PUT", collection(), { body: {} });
    assertError(reply, 405, codeOf(spec, "methodNotAllowed"), spec);
    assert.match(reply.headers.get("allow") ?? "", "GET");
    assertError(await service().request("GET", collection(), { headers: { accept: "text/html" } }), 406, codeOf(spec, "notAcceptable"), spec);
  });

  s("a missing instance is a 404 with the error body", async () => {
    assertError(await service().request("GET", service().path(resource.collection, "no-such-id")), 404, codeOf(spec, "notFound"), spec);
  });

  s("POST creates (201, Location, meta); GET, fields, expand and sub-collections read it", async () => {
    if (!writable()) return;
    const created = await factory().create(resource.collection);
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
        assert.is(sub.status, 200);
        assert.ok(Array.isArray(sub.body.items));
      }
    }
  });

  s("bad bodies: unknown property, wrong type, missing property, server-owned property, not JSON", async () => {
    if (!writable()) return;
    const body = await factory().body(resource);
    assertError(await service().request("POST", collection(), { body: { ...body, zzNoSuchProperty: 1 } }), 400, codeOf(spec, "unknownProperty"), spec, "zzNoSuchProperty");
    assertError(await service().request("POST", collection(), { body: { ...body, id: "x" } }), 400, codeOf(spec, "readOnlyProperty"), spec, "id");
    const invalid = samples.resources[resource.collection]?.invalid;
    if (invalid) {
      const reply = await service().request("POST", collection(), { body: { ...body, [invalid.property]: invalid.value } });
      assertError(reply, 400, codeOf(spec, "invalidProperty"), spec, invalid.property);
    }
    const required = resource.required.find((r) => r in body);
    if (required) {
      const { [required]: _dropped, ...rest } = body;
      assertError(await service().request("POST", collection(), { body: rest }), 400, codeOf(spec, "missingProperty"), spec, required);
    }
    assertError(await service().request("POST", collection(), { raw: "{ not json", headers: { "content-type": "application/json" } }), 400, codeOf(spec, "malformedJson"), spec);
    assertError(await service().request("POST", collection(), { raw: "text", headers: { "content-type": "text/plain" } }), 415, codeOf(spec, "unsupportedMediaType"), spec);
  });

  s("PUT replaces, PATCH merges, DELETE removes", async () => {
    if (!writable()) return;
    const created = await factory().create(resource.collection);
    const path = service().path(resource.collection, created.id);
    const body = await factory().body(resource);
    const put = await service().request("PUT", path, { body });
    if (resource.unique.length === 0) assert.is(put.status, 200, JSON.stringify(put.body));
    const patched = await service().request("PATCH", path, { body: {}, headers: { "content-type": "application/merge-patch+json" } });
    assert.is(patched.status, 200, JSON.stringify(patched.body));
    assert.is(patched.body.id, created.id);
    assert.is((await service().request("DELETE", path)).status, 204);
    assertError(await service().request("GET", path), 404, codeOf(spec, "notFound"), spec);
  });

  if (resource.unique.length > 0) {
    s("a repeated unique value is a 409 naming the property", async () => {
      if (!writable()) return;
      const body = await factory().body(resource);
      const first = await service().request("POST", collection(), { body });
      assert.is(first.status, 201, JSON.stringify(first.body));
      const again = await service().request("POST", collection(), { body });
      if (resource.unique.some((u) => u in body)) assertError(again, 409, codeOf(spec, "conflict"), spec);
    });
  }

  if (resource.access.create) {
    s("a key without the create role gets 403", async () => {
      if (!writable()) return;
      const body = await factory().body(resource);
      assertError(await service().request("POST", collection(), { body, key: service().keys.nobody }), 403, codeOf(spec, "forbidden"), spec);
    });
  }

  if (resource.owner) {
    s("another key cannot see an owned instance", async () => {
      if (!writable()) return;
      const created = await factory().create(resource.collection);
      const path = service().path(resource.collection, created.id);
      assertError(await service().request("GET", path, { key: service().keys.other }), 403, codeOf(spec, "forbidden"), spec);
      const list = await service().request("GET", collection(), { key: service().keys.other });
      assert.not.ok(list.body.items.some((i: Json) => i.id === created.id), "the list is filtered by owner");
    });
  }
  s.run();
}

function actionSuite(spec: ServiceSpec, action: ActionSpec, samples: Samples, boot: () => Promise<void>, service: () => TestService): void {
  const s = suite(`action ${action.name}`);
  s.before(boot);
  const path = () => service().path(action.name);
  const params = samples.actions[action.name]?.params;
  const query = (p: Json) => "?" + new URLSearchParams(Object.entries(p).map(([k, v]) => [k, String(v)])).toString();

  s("answers with its handler's result, or 501 until it is written", async () => {
    if (!params) return;
    const reply = await service().request(action.method, path() + query(params));
    if (reply.status === 501) assertError(reply, 501, codeOf(spec, "notImplemented"), spec);
    else assert.is(reply.status, 200, JSON.stringify(reply.body));
  });

  s("a missing required parameter is a 400 naming it", async () => {
    const required = ((action.query as Json).required ?? []) as string[];
    if (!params || required.length === 0) return;
    const { [required[0]!]: _dropped, ...rest } = params;
    assertError(await service().request(action.method, path() + query(rest)), 400, codeOf(spec, "invalidParameter"), spec, required[0]);
  });

  s("without credentials: 401", async () => {
    assertError(await service().request(action.method, path(), { key: null }), 401, codeOf(spec, "unauthenticated"), spec);
  });
  s.run();
}
