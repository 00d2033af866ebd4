/**
 * openapi.json (src/emit/docs/openapi.ts) of every example and of tricky definitions made here: valid
 * OpenAPI 3.1 (@readme/openapi-parser), no Spectral errors (spectral:oas), every route and method of the
 * server, unique operationIds, error responses with catalog codes, examples that validate, and the
 * answers of the runtime (templates/runtime/app.ts, driven through inject) matching the document.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { compileErrors, validate } from "@readme/openapi-parser";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import formatsPlugin from "ajv-formats";
import type { LightMyRequestResponse } from "fastify";
import { emitOpenApi, openApiOf } from "../../../src/emit/docs/openapi.js";
import { operationsOf } from "../../../src/emit/docs/operations.js";
import { catalogOf } from "../../../src/emit/errors.js";
import { BODY_LIMIT, specOf } from "../../../src/emit/spec.js";
import type { Model, Resource } from "../../../src/model/types.js";
import { checkProject } from "../../../src/pipeline.js";
import { buildApp } from "../../../templates/runtime/app.js";
import { KeyRing } from "../../../templates/runtime/keys.js";
import type { ServiceSpec } from "../../../templates/runtime/spec.js";
import { openSqliteStore } from "../../../templates/runtime/sqlite-store.js";
import { repoRoot } from "../../helpers/cli.js";

type Json = Record<string, any>;

const METHODS = ["get", "head", "post", "put", "patch", "delete"] as const;
const RULESET = path.join(repoRoot, "test/fixtures/spectral/.spectral.yaml");
const SPECTRAL = path.join(repoRoot, "node_modules/@stoplight/spectral-cli/dist/index.js");

// ---------------------------------------------------------------------------------------------------
// Tricky definitions, written to a temporary folder
// ---------------------------------------------------------------------------------------------------

const TRICKY: Record<string, Record<string, unknown>> = {
  // Basic only over https, a base path with a trailing slash, an owner-scoped resource without links,
  // dashed property names (one that looks like an extension keyword), a nullable type, a nested
  // object, an x- keyword in a property schema, and a POST action without parameters.
  notes: {
    "service.json": {
      name: "notes-service",
      vendor: "notes-co",
      version: 3,
      baseUrl: "https://notes.example.org/api/v3/",
      errorDocsUrl: "https://notes.example.org/errors",
      resources: ["resources/*.json"],
      auth: { schemes: ["basic"] },
      actions: { refresh: { method: "POST", response: { type: "object", properties: { refreshed: { type: "integer" } } } } },
    },
    "resources/note.json": {
      title: "Note",
      type: "object",
      "x-collection": "notes",
      "x-owner": "owner-id",
      "x-access": { admin: ["admin"] },
      required: ["note-text"],
      additionalProperties: false,
      properties: {
        "note-text": { type: "string", minLength: 1, "x-widget": "textarea" },
        "owner-id": { type: "string" },
        "due-date": { type: "string", format: "date" },
        "x-ray": { type: "boolean", description: "A property whose name looks like an extension keyword." },
        priority: { type: ["integer", "null"], minimum: 1, maximum: 5 },
        "meta-data": {
          type: "object",
          required: ["source"],
          additionalProperties: false,
          properties: { source: { type: "string" }, tags: { type: "array", items: { type: "string" } }, nested: { type: "object", properties: { depth: { type: "integer" } } } },
        },
      },
    },
  },
  // OAuth 2.0 and API keys, a resource titled "Link" (the name of a shared schema here, and of the client's
  // own link type, which the resource takes), links both
  // ways and stored collection links, a local $defs $ref, a dashed action with typed parameters, an
  // action whose operationId is taken, and a service-specific error code.
  shop: {
    "service.json": {
      name: "shop",
      title: "Shop",
      vendor: "shop",
      version: 1,
      baseUrl: "http://localhost:8080",
      errorDocsUrl: "http://localhost:8080/errors",
      resources: ["resources/*.json"],
      auth: { schemes: ["oauth2", "apiKey"], realm: "shop" },
      actions: {
        "calculate-total": {
          method: "GET",
          description: "Totals a basket.",
          query: {
            type: "object",
            required: ["basket"],
            additionalProperties: false,
            properties: {
              basket: { type: "string" },
              "with-tax": { type: "boolean" },
              discount: { type: "number", minimum: 0, maximum: 1 },
              currency: { type: "string", enum: ["EUR", "USD"], default: "EUR" },
            },
          },
          response: { type: "object", required: ["total"], properties: { total: { type: "number" }, currency: { type: "string" } } },
          roles: ["clerk"],
        },
        // Its operationId would be listProducts, the id of GET /products.
        "list-products": { method: "GET", response: { type: "array", items: { type: "string" } } },
      },
      errors: [{ code: 7001, status: 422, key: "outOfStock", title: "Out of stock", message: "An item is out of stock.", dev: "Remove the item or wait." }],
    },
    "resources/product.json": {
      title: "Product",
      description: "Something to sell.",
      type: "object",
      "x-collection": "products",
      "x-unique": ["sku"],
      required: ["sku", "price"],
      additionalProperties: false,
      properties: {
        sku: { type: "string", pattern: "^[A-Z]{3}-[0-9]{4}$" },
        price: { $ref: "#/$defs/money" },
        tags: { type: "array", items: { type: "string" }, maxItems: 5 },
        baskets: { type: "array", items: { $ref: "basket.json" } },
      },
      $defs: {
        money: {
          type: "object",
          required: ["amount", "currency"],
          additionalProperties: false,
          properties: { amount: { type: "number", minimum: 0 }, currency: { type: "string", enum: ["EUR", "USD"] } },
        },
      },
    },
    "resources/basket.json": {
      title: "Basket",
      type: "object",
      "x-collection": "baskets",
      "x-access": { read: ["clerk"], create: ["clerk"], update: ["clerk"], delete: ["clerk"] },
      additionalProperties: false,
      properties: {
        label: { type: "string" },
        items: { type: "array", items: { $ref: "product.json" }, maxItems: 50, description: "Products in the basket." },
        customer: { $ref: "customer.json", description: "Who owns the basket." },
      },
    },
    "resources/customer.json": {
      title: "Customer",
      type: "object",
      "x-collection": "customers",
      required: ["name"],
      additionalProperties: false,
      properties: {
        name: { type: "string" },
        baskets: { type: "array", items: { $ref: "basket.json" } },
        address: { type: "object", properties: { city: { type: "string" } } },
      },
    },
    "resources/link.json": {
      title: "Link",
      description: "A web link.",
      type: "object",
      "x-collection": "weblinks",
      required: ["url"],
      additionalProperties: false,
      properties: { url: { type: "string", format: "uri" }, product: { $ref: "product.json" } },
    },
  },
};

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "resourcery-openapi-"));
test.after(() => fs.rmSync(tmp, { recursive: true, force: true }));

for (const [name, files] of Object.entries(TRICKY)) {
  for (const [file, value] of Object.entries(files)) {
    const target = path.join(tmp, "projects", name, file);
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(target, JSON.stringify(value, null, 2));
  }
}

interface Project {
  readonly name: string;
  readonly model: Model;
  readonly doc: Json;
  /** Where the document was written for Spectral. */
  readonly file: string;
}

const projects: Project[] = [
  ...fs.readdirSync(path.join(repoRoot, "examples")).sort().map((e) => ({ name: e, dir: path.join(repoRoot, "examples", e) })),
  ...Object.keys(TRICKY).map((t) => ({ name: `tricky/${t}`, dir: path.join(tmp, "projects", t) })),
].map(({ name, dir }) => {
  const { model, diagnostics } = checkProject(dir);
  const errors = diagnostics.filter((d) => d.severity === "error");
  if (!model || errors.length > 0) throw new Error(`${name} does not check: ${errors.map((d) => d.message).join("; ")}`);
  const file = path.join(tmp, `${name.replace(/\W/g, "-")}.openapi.json`);
  fs.writeFileSync(file, emitOpenApi(model)[0]!.contents);
  return { name, model, doc: openApiOf(model) as Json, file };
});

// ---------------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------------

/**
 * Spectral (spectral:oas) over every document in one process, started now so that it runs while the
 * other tests do; its results by document file.
 */
const spectralRun: Promise<Map<string, Json[]>> = new Promise((resolve, reject) => {
  const out = path.join(tmp, "spectral.json");
  const child = spawn(process.execPath, [SPECTRAL, "lint", ...projects.map((p) => p.file), "-r", RULESET, "-f", "json", "-o", out, "-q"], { stdio: ["ignore", "pipe", "pipe"] });
  let log = "";
  child.stdout.on("data", (d) => (log += d));
  child.stderr.on("data", (d) => (log += d));
  child.on("error", reject);
  child.on("close", (code) => {
    if (!fs.existsSync(out)) return reject(new Error(`spectral did not run (exit ${code}): ${log}`));
    const results = JSON.parse(fs.readFileSync(out, "utf8")) as Json[];
    resolve(new Map(projects.map((p) => [p.file, results.filter((x) => path.resolve(x.source) === p.file)])));
  });
});
spectralRun.catch(() => {}); // reported by the tests that await it

const operationsCache = new Map<Model, ReturnType<typeof operationsOf>>();
/** operations.ts's operations of a model (computed once: its examples take a while). */
function opsOf(model: Model): ReturnType<typeof operationsOf> {
  let ops = operationsCache.get(model);
  if (!ops) operationsCache.set(model, (ops = operationsOf(model)));
  return ops;
}

/** The value at a local JSON pointer ("#/components/..."). */
function at(doc: Json, pointer: string): any {
  assert.ok(pointer.startsWith("#/"), `a local $ref: ${pointer}`);
  return pointer
    .slice(2)
    .split("/")
    .map((t) => t.replace(/~1/g, "/").replace(/~0/g, "~"))
    .reduce((v: any, k) => (v === undefined ? undefined : v[k]), doc);
}

/** Follows $refs of OpenAPI objects (responses, parameters, examples). */
function deref(doc: Json, value: any): any {
  while (value && typeof value === "object" && typeof value.$ref === "string") value = at(doc, value.$ref);
  return value;
}

/** The tags of the service's own endpoints (health, OAuth 2.0): not operations of operations.ts. */
const SERVICE_TAGS = new Set(["Service health", "OAuth 2.0"]);

/** The operations of the API (its resources and actions), without the service's own endpoints (serviceOperations). */
function operations(doc: Json): { path: string; method: string; op: Json }[] {
  return allOperations(doc).filter((o) => !SERVICE_TAGS.has(o.op.tags?.[0]));
}

/** The service's own endpoints: health checks, and with OAuth 2.0 its token endpoint, keys and metadata. */
function serviceOperations(doc: Json): { path: string; method: string; op: Json }[] {
  return allOperations(doc).filter((o) => SERVICE_TAGS.has(o.op.tags?.[0]));
}

function allOperations(doc: Json): { path: string; method: string; op: Json }[] {
  const out: { path: string; method: string; op: Json }[] = [];
  for (const [p, item] of Object.entries(doc.paths as Json)) for (const m of METHODS) if (item[m]) out.push({ path: p, method: m, op: item[m] });
  return out;
}

/** An Ajv for the schemas of one document: `schema(s)` compiles a schema whose $refs point into it. */
function schemaValidator(doc: Json): (schema: Json) => ValidateFunction {
  const ajv = new Ajv2020({ strict: false, validateSchema: false, allErrors: false });
  type Plugin = (a: Ajv2020) => unknown;
  ((formatsPlugin as unknown as { default?: Plugin }).default ?? (formatsPlugin as unknown as Plugin))(ajv);
  const id = "https://openapi.test/doc.json";
  ajv.addSchema({ $id: id, components: doc.components });
  const cache = new Map<string, ValidateFunction>();
  return (schema) => {
    const text = JSON.stringify(schema).replace(/"\$ref":"#\//g, `"$ref":"${id}#/`);
    let fn = cache.get(text);
    if (!fn) cache.set(text, (fn = ajv.compile(JSON.parse(text))));
    return fn;
  };
}

/** Every route the runtime registers for the model (registerResource and the actions of buildApp). */
function expectedRoutes(model: Model): Map<string, string[]> {
  const routes = new Map<string, string[]>();
  for (const r of model.resources) {
    routes.set(`/${r.collection}`, ["get", "head", "post"]);
    routes.set(`/${r.collection}/{id}`, ["delete", "get", "head", "patch", "post", "put"]);
    for (const f of r.fields.filter((x) => x.kind === "links")) {
      // A stored list's members are added and removed one at a time; an inverse collection is read-only.
      routes.set(`/${r.collection}/{id}/${f.name}`, f.link!.inverse ? ["get", "head"] : ["get", "head", "post"]);
      if (!f.link!.inverse) routes.set(`/${r.collection}/{id}/${f.name}/{memberId}`, ["delete"]);
    }
  }
  // Fastify answers HEAD on every GET route.
  for (const a of model.actions) routes.set(`/${a.name}`, a.method === "GET" ? ["get", "head"] : [a.method.toLowerCase()]);
  return routes;
}

/** The operation of operations.ts that a documented method of a path describes (POST on an instance: the update; HEAD: the GET). */
function sourceOf(model: Model, p: string, method: string): ReturnType<typeof operationsOf>[number] {
  const wanted = method === "head" ? "get" : method;
  const found = opsOf(model).find((o) => o.path === p && (o.method.toLowerCase() === wanted || (method === "post" && o.kind === "update")));
  assert.ok(found, `${method} ${p} is an operation of operations.ts`);
  return found!;
}

function runtimeSpec(model: Model): ServiceSpec {
  return { ...(specOf(model) as unknown as ServiceSpec), errors: catalogOf(model), mediaTypes: model.mediaTypes };
}

function bearerCapable(model: Model): boolean {
  return model.service.auth.schemes.some((s) => s !== "basic");
}

// ---------------------------------------------------------------------------------------------------
// The tests, per document
// ---------------------------------------------------------------------------------------------------

for (const { name, model, doc, file } of projects) {
  test(`${name}: one deterministic openapi.json, 2-space JSON with a trailing newline`, () => {
    const files = emitOpenApi(model);
    assert.is(files.length, 1);
    assert.is(files[0]!.path, "openapi.json");
    assert.is(files[0]!.owner, "generated");
    assert.is(files[0]!.contents, JSON.stringify(openApiOf(model), null, 2) + "\n");
    assert.is(emitOpenApi(model)[0]!.contents, files[0]!.contents);
    assert.equal(JSON.parse(files[0]!.contents), doc);
    assert.is(doc.openapi, "3.1.0");
    assert.is(doc.info.version, String(model.service.version));
    assert.is(doc.info.title, model.service.title);
    assert.equal(doc.servers, [{ url: model.service.baseUrl, description: doc.servers[0].description }]);
  });

  test(`${name}: valid OpenAPI 3.1 (@readme/openapi-parser)`, async () => {
    const result = await validate(structuredClone(doc) as any);
    const errors = result.valid ? 0 : result.errors.length;
    assert.ok(result.valid, result.valid ? "" : compileErrors(result));
    console.log(`  ${name}: openapi-parser ${errors} errors, ${result.warnings.length} warnings`);
  });

  test(`${name}: every route of the server with exactly its methods, and nothing else`, async () => {
    const api = new Set(operations(doc).map((o) => o.path));
    const documented = new Map(Object.entries(doc.paths as Json).filter(([p]) => api.has(p)).map(([p, item]) => [p, METHODS.filter((m) => item[m]).sort()]));
    assert.equal(documented, new Map([...expectedRoutes(model)].map(([p, ms]) => [p, [...ms].sort()])));
    // The runtime agrees: without credentials a documented method is a 401, any other method a 405.
    const spec = runtimeSpec(model);
    const store = openSqliteStore(spec, ":memory:");
    const app = await buildApp({ spec, store, keys: KeyRing.memory() });
    try {
      for (const [p, methods] of documented) {
        for (const m of METHODS) {
          const res = await app.inject({ method: m.toUpperCase() as "GET", url: model.service.basePath + p.replace("{id}", "0190b6c2-7d4e-7a10-8f3e-5b2c9d1e4f60").replace("{memberId}", "0190b6c2-7d4e-7a10-8f3e-5b2c9d1e4f61") });
          assert.is(res.statusCode, methods.includes(m) ? 401 : 405, `${m.toUpperCase()} ${p}`);
        }
      }
    } finally {
      await app.close();
      await store.close();
    }
  });

  test(`${name}: unique operationIds, one per operation of operations.ts (and POST-on-instance)`, () => {
    const all = allOperations(doc).map((o) => o.op.operationId as string);
    assert.is(new Set(all).size, all.length, "unique, the service's own endpoints' too");
    const ids = operations(doc).map((o) => o.op.operationId as string);
    const ops = opsOf(model);
    assert.is(ids.length, ops.length + ops.filter((o) => o.kind === "update").length + ops.filter((o) => o.method === "GET").length);
    for (const { op, method, path: p } of operations(doc)) {
      const source = sourceOf(model, p, method);
      // operations.ts's id, with ByPost for POST on an instance, and a number when another took it.
      // HEAD: the GET's final id with Head.
      const id = method === "head" ? `${doc.paths[p].get.operationId}Head` : `${source.id}${method === "post" && source.kind === "update" ? "ByPost" : ""}`;
      assert.match(op.operationId, new RegExp(`^${id}\\d*$`));
      assert.ok(op.summary && op.description, `${method} ${p} has a summary and a description`);
      assert.equal(op.tags.length, 1);
      assert.ok((doc.tags as Json[]).some((t) => t.name === op.tags[0]));
    }
  });

  test(`${name}: error responses list catalog codes of their status, with the Error body`, () => {
    const catalog = new Map(model.errors.map((e) => [e.code, e]));
    const errorType = model.mediaTypes.find((m) => m.kind === "error")!;
    for (const { op, method, path: p } of operations(doc)) {
      const listed = new Set<number>();
      for (const [status, raw] of Object.entries(op.responses as Json)) {
        const response = deref(doc, raw);
        if (!/^[45]\d\d$/.test(status) && status !== "default") continue;
        const codes = response["x-error-codes"] as number[];
        assert.ok(Array.isArray(codes) && codes.length > 0, `${method} ${p} ${status} has x-error-codes`);
        for (const code of codes) {
          const e = catalog.get(code);
          assert.ok(e, `${method} ${p} ${status}: ${code} is in the catalog`);
          if (status === "default") assert.not.ok(e!.builtin);
          else assert.is(String(e!.status), status);
          assert.ok(response.description.includes(`${code}`) && response.description.includes(e!.title), `${status} describes ${code}`);
          listed.add(code);
        }
        if (method === "head") {
          assert.is(response.content, undefined, `HEAD ${p} ${status} has no body`);
        } else {
          // The alias shape last, as a string holding the JSON (JSON tools read only +json and application/json as JSON).
          assert.equal(Object.keys(response.content), ["application/json", errorType.name, errorType.alias]);
          assert.is(response.content["application/json"].schema.$ref, "#/components/schemas/Error");
          assertAliasOf(doc, response.content, errorType.name, errorType.alias);
        }
        if (status === "401") {
          // One header component, referred to by every 401 (HEAD's too).
          assert.equal(response.headers["WWW-Authenticate"], { $ref: "#/components/headers/WWW-Authenticate" });
          const challenge = deref(doc, response.headers["WWW-Authenticate"]);
          assert.ok(challenge.required && challenge.schema.type === "string" && challenge.description.includes(model.service.auth.realm));
        }
      }
      // Every error key operations.ts names for the operation is there (but the two that cannot happen).
      const source = sourceOf(model, p, method);
      const basic = model.service.auth.schemes.some((s) => s === "basic" || s === "apiKey");
      for (const key of source.errors) {
        if (key === "basicNeedsTls" && !basic) continue;
        if (key === "invalidParameter" && source.action && source.action.params.length === 0) continue;
        assert.ok(listed.has(model.errors.find((e) => e.key === key)!.code), `${method} ${p} lists ${key}`);
      }
    }
    const error = doc.components.schemas.Error;
    assert.equal([...error.required].sort(), ["code", "dev", "info", "message", "property", "status"]);
    assert.is(error.properties.info.format, "uri");
  });

  test(`${name}: content per media type, success headers and links`, () => {
    for (const { op, method, path: p } of operations(doc)) {
      const source = sourceOf(model, p, method);
      const success = deref(doc, op.responses[String(source.status)]);
      assert.ok(success, `${method} ${p} answers ${source.status}`);
      if (method === "head") {
        // The GET's parameters and statuses, no body and no links (they would read the body).
        const get = doc.paths[p].get;
        assert.equal(op.parameters, get.parameters);
        assert.equal(Object.keys(op.responses), Object.keys(get.responses));
        for (const [status, r] of Object.entries(op.responses as Json)) {
          const answer = deref(doc, r);
          const gets = deref(doc, get.responses[status]);
          assert.is(answer.content, undefined);
          assert.is(answer.links, undefined);
          assert.equal(answer.headers, gets.headers);
          assert.equal(answer["x-error-codes"], gets["x-error-codes"]);
        }
        continue;
      }
      if (source.status === 204) {
        assert.is(success.content, undefined);
        continue;
      }
      const vendor =
        source.action?.mediaType ??
        (source.kind === "list" || source.kind === "sub-collection" ? source.answers!.collectionMediaType : source.kind === "add-member" ? source.answers!.mediaType : source.resource!.mediaType);
      const alias = model.mediaTypes.find((m) => m.name === vendor)!.alias;
      assert.equal(Object.keys(success.content), ["application/json", vendor, alias], `${method} ${p}`);
      assertAliasOf(doc, success.content, vendor, alias);
      if (source.kind === "add-member") {
        // 201 when added (Location: the member's href), 200 when it already was a member.
        assertLocation(doc, success.headers, `${method} ${p}`);
        assert.equal(Object.keys(deref(doc, op.responses["200"]).content), ["application/json", vendor, alias]);
      }
      if (op.requestBody) {
        const content = deref(doc, op.requestBody).content;
        const merge = source.kind === "update";
        const r = source.kind === "add-member" ? source.answers! : source.resource!;
        const rmt = model.mediaTypes.find((m) => m.name === r.mediaType)!;
        assert.equal(Object.keys(content), (merge ? ["application/merge-patch+json"] : []).concat(["application/json", rmt.name, rmt.alias]));
        assertAliasOf(doc, content, rmt.name, rmt.alias);
        // How big a body may be, and for a merge patch how it applies, the request body says (not each operation).
        const body = deref(doc, op.requestBody);
        assert.ok(body.description.includes(`The body is at most ${BODY_LIMIT} bytes (413 beyond).`), `${method} ${p} request body limit`);
        if (merge) {
          assert.match(body.description, /merge patch \(RFC 7396\).*`null` sets a nullable field to null \(it stays, with the value null\).*`null` for a required field that is not nullable is a 400 naming it/);
          assert.match(op.description, /JSON merge patch \(RFC 7396\): the request body says how it applies/);
        }
      }
      if (source.kind === "create") {
        assertLocation(doc, success.headers, `${method} ${p}`);
        const get = doc.paths[`${p}/{id}`].get.operationId;
        assert.equal(success.links[get], { operationId: get, parameters: { id: "$response.body#/id" }, description: success.links[get].description });
      }
      if (source.kind === "get") {
        const subs = source.resource!.fields.filter((f) => f.link?.kind === "collection");
        assert.is(Object.keys(success.links ?? {}).length, subs.length);
        for (const l of Object.values((success.links ?? {}) as Json)) assert.ok(operations(doc).some((o) => o.op.operationId === l.operationId && o.path.startsWith(p + "/")));
      }
    }
    for (const param of Object.values(doc.components.parameters as Json)) {
      if (param.name !== "fields" && param.name !== "expand") continue;
      assert.is(param.style, "form");
      assert.is(param.explode, false);
      assert.is(param.schema.type, "array");
    }
    const limit = doc.components.parameters.limit.schema;
    assert.equal([limit.default, limit.maximum], [25, 100]);
  });

  test(`${name}: every content type is read as JSON by JSON tools, or is an alias holding the JSON of its vendor type; x-media-type-aliases maps them`, () => {
    const types = new Set<string>();
    const walk = (v: any): void => {
      if (v === null || typeof v !== "object") return;
      if (v.content && typeof v.content === "object" && !Array.isArray(v.content)) for (const t of Object.keys(v.content)) types.add(t);
      for (const x of Object.values(v)) walk(x);
    };
    // The token endpoint takes a form (RFC 6749 §4.4.2), which JSON tools and client generators read as a form.
    const { requestBody: tokenRequest, ...token } = (doc.paths["/oauth/token"]?.post ?? {}) as Json;
    if (tokenRequest !== undefined) assert.equal(Object.keys(tokenRequest.content), ["application/x-www-form-urlencoded"]);
    walk({ ...doc.paths, "/oauth/token": token });
    walk(doc.components);
    // What Prism and client generators take for JSON: application/json or a +json suffix; else an alias.
    const aliases = new Set(model.mediaTypes.map((m) => m.alias));
    for (const t of types) assert.ok(/^application\/(json|[^/]+\+json)$/.test(t) || aliases.has(t), t);
    assert.ok([...types].some((t) => aliases.has(t)), "the aliases are documented in content");
    assert.equal(doc["x-media-type-aliases"], Object.fromEntries(model.mediaTypes.map((m) => [m.alias, m.name])));
    assert.match(doc.info.description, /x-media-type-aliases/);
  });

  test(`${name}: one security scheme per credential the runtime reads, Bearer first, any one of them required`, () => {
    const schemes = doc.components.securitySchemes as Json;
    const enabled = model.service.auth.schemes;
    // authenticate.ts: apiKey, bearer and oauth2 read a Bearer token; apiKey and basic read Basic credentials.
    const bearer = enabled.some((s) => s === "apiKey" || s === "bearer" || s === "oauth2");
    const basic = enabled.some((s) => s === "apiKey" || s === "basic");
    // oauth2 (with its token endpoint) adds the client-credentials flow whose tokens travel as Bearer; oauth1 the OAuth scheme.
    const tokens = enabled.includes("oauth2") && model.service.auth.oauth2?.tokenEndpoint !== false;
    const expected = [...(bearer ? ["bearer"] : []), ...(tokens ? ["oauth2"] : []), ...(basic ? ["basic"] : []), ...(enabled.includes("oauth1") ? ["oauth1"] : [])];
    assert.equal(Object.keys(schemes), expected);
    assert.equal(doc.security, expected.map((s) => ({ [s]: [] })));
    for (const [s, def] of Object.entries(schemes)) {
      if (s === "oauth2") assert.equal(Object.keys(def.flows), ["clientCredentials"]);
      else assert.equal({ type: def.type, scheme: def.scheme }, { type: "http", scheme: s === "oauth1" ? "OAuth" : s });
    }
    if (tokens) assert.is(schemes.oauth2.flows.clientCredentials.tokenUrl, `${model.service.baseUrl}/oauth/token`);
    if (basic) assert.match(schemes.basic.description, /Basic base64\(<key id>:<secret>\).*TLS only/);
    if (bearer) assert.match(schemes.bearer.description, /Bearer <token>.*the secret of an API key/);
    // Without oauth2 nothing speaks of OAuth 2.0; with it, the Bearer scheme says access tokens travel there too.
    assert.is(JSON.stringify(schemes).includes("tokenUrl"), tokens);
    if (enabled.includes("oauth2")) assert.match(schemes.bearer.description, /Or an OAuth 2\.0 access token \(a JWT\).*error="invalid_token"/);
    else assert.not.match(schemes.bearer?.description ?? "", /OAuth/);
  });

  test(`${name}: the shared link schemas are components exactly when some $ref names them`, () => {
    const text = JSON.stringify(doc);
    for (const shared of ["Link", "CollectionLink", "LinkInput"]) {
      const named = text.includes(`"$ref":"#/components/schemas/${shared}"`);
      assert.is(Object.prototype.hasOwnProperty.call(doc.components.schemas, shared), named, shared);
    }
  });

  test(`${name}: embedded schemas are clean: local $refs only, no $schema, $id or x- keywords`, () => {
    const walk = (v: any, where: string, propertyMap: boolean): void => {
      if (Array.isArray(v)) return v.forEach((x, i) => walk(x, `${where}/${i}`, false));
      if (v === null || typeof v !== "object") return;
      for (const [k, x] of Object.entries(v)) {
        if (!propertyMap) {
          assert.not.ok(k === "$schema" || k === "$id", `${where}/${k}`);
          assert.ok(!k.startsWith("x-") || k === "x-error-codes" || (where === "" && k === "x-media-type-aliases"), `${where}/${k}`);
          if (k === "$ref") assert.ok(typeof x === "string" && x.startsWith("#/") && at(doc, x) !== undefined, `${where}: ${String(x)}`);
        }
        // Values of these maps are named by the user (properties) or are data (examples, enum, default).
        if (!propertyMap && (k === "value" || k === "example" || k === "enum" || k === "default" || k === "const" || k === "x-media-type-aliases" || k === "examples" && Array.isArray(x))) continue;
        walk(x, `${where}/${k}`, !propertyMap && (k === "properties" || k === "patternProperties" || k === "$defs"));
      }
    };
    walk(doc, "", false);
    const text = JSON.stringify(doc);
    assert.not.ok(/\.json#|"\$ref":"(?!#\/)/.test(text), "no $ref to a file");
  });

  test(`${name}: examples validate against their schemas`, () => {
    const compile = schemaValidator(doc);
    const check = (schema: Json, value: unknown, where: string) => {
      const fn = compile(schema);
      assert.ok(fn(value), `${where}: ${JSON.stringify(fn.errors?.[0])}`);
    };
    let n = 0;
    const media = (content: Json | undefined, where: string) => {
      for (const [type, m] of Object.entries(content ?? {})) {
        for (const [k, ex] of Object.entries((m.examples ?? {}) as Json)) {
          check(m.schema, deref(doc, ex).value, `${where} ${type} ${k}`);
          n++;
        }
      }
    };
    for (const { op, method, path: p } of operations(doc)) {
      media(deref(doc, op.requestBody)?.content, `${method} ${p} request`);
      for (const [status, r] of Object.entries(op.responses as Json)) media(deref(doc, r).content, `${method} ${p} ${status}`);
      for (const param of (op.parameters ?? []).map((x: Json) => deref(doc, x))) {
        if (param.example !== undefined) check(param.schema, param.example, `${method} ${p} ${param.name}`);
      }
    }
    assert.ok(n > 0);
  });

  test(`${name}: operations refer to shared bodies, answers and examples, each one component, with the operation's own examples`, () => {
    const components = doc.components as Json;
    for (const { op, method, path: p } of operations(doc)) {
      if (op.requestBody) assert.match(op.requestBody.$ref, /^#\/components\/requestBodies\//, `${method} ${p} request body`);
      for (const [status, r] of Object.entries(op.responses as Json)) assert.match((r as Json).$ref, /^#\/components\/responses\//, `${method} ${p} ${status}`);
      // The examples an operation shows are those of operations.ts for it, whatever component holds them.
      const source = sourceOf(model, p, method);
      const shown = (content: Json | undefined) => Object.values(content ?? {}).flatMap((m: Json) => Object.values((m.examples ?? {}) as Json).map((ex) => deref(doc, ex).value));
      const request = shown(deref(doc, op.requestBody)?.content);
      if (source.exampleBody !== undefined && op.requestBody) assert.ok(request.length > 0 && request.every((v) => JSON.stringify(v) === JSON.stringify(source.exampleBody)), `${method} ${p} request example`);
      const answer = shown(deref(doc, op.responses[String(source.status)]).content);
      if (source.exampleAnswer !== undefined && method !== "head") assert.ok(answer.length > 0 && answer.every((v) => JSON.stringify(v) === JSON.stringify(source.exampleAnswer)), `${method} ${p} answer example`);
    }
    // No two components of a kind are the same object, and every one is referred to.
    const text = JSON.stringify(doc);
    for (const kind of ["responses", "requestBodies", "examples"]) {
      const seen = new Map<string, string>();
      for (const [n, value] of Object.entries((components[kind] ?? {}) as Json)) {
        const json = JSON.stringify(value);
        assert.not.ok(seen.has(json), `${kind}/${n} repeats ${kind}/${seen.get(json)}`);
        seen.set(json, n);
        assert.ok(text.includes(`"$ref":"#/components/${kind}/${n}"`), `${kind}/${n} is used`);
      }
    }
  });

  test(`${name}: answers of the running service match the document`, async () => {
    await conformance(model, doc);
  });

  test(`${name}: the service's own endpoints are documented as the runtime answers them (health; OAuth 2.0 when enabled)`, async () => {
    const oauth = model.service.auth.schemes.includes("oauth2");
    const issues = oauth && model.service.auth.oauth2?.tokenEndpoint !== false;
    const expected = new Map<string, string[]>([
      ["/health/live", ["get", "head"]],
      ["/health/ready", ["get", "head"]],
    ]);
    if (oauth) for (const p of ["/.well-known/jwks.json", "/.well-known/oauth-authorization-server", `/.well-known/oauth-authorization-server${model.service.basePath}`]) expected.set(p, ["get", "head"]);
    if (issues) expected.set("/oauth/token", ["post"]);
    const service = serviceOperations(doc);
    assert.equal(new Map([...new Set(service.map((o) => o.path))].map((p) => [p, METHODS.filter((m) => (doc.paths[p] as Json)[m]).sort()])), expected);
    const origin = new URL(`${model.service.baseUrl}/`).origin;
    for (const { path: p, op } of service) {
      assert.ok(op.summary && op.description, `${p} has a summary and a description`);
      assert.equal(op.security, [], `${p} takes no credentials of the API's`);
      assert.ok((doc.tags as Json[]).some((t) => t.name === op.tags[0]), `${p}'s tag is declared`);
      // Outside the base path: on the origin (the token endpoint is under the base URL, as the document's servers say).
      if (p === "/oauth/token") assert.is(doc.paths[p].servers, undefined);
      else assert.equal(doc.paths[p].servers.map((s: Json) => s.url), [origin]);
    }
    // The runtime's answers, without credentials, against the documented schemas.
    const spec = runtimeSpec(model);
    const store = openSqliteStore(spec, ":memory:");
    const keys = KeyRing.memory();
    const app = await buildApp({ spec, store, keys });
    const compile = schemaValidator(doc);
    const check = (res: LightMyRequestResponse, p: string, method: string) => {
      const op = doc.paths[p][method];
      const response = deref(doc, op.responses[String(res.statusCode)]);
      assert.ok(response, `${method} ${p} → ${res.statusCode} is documented`);
      if (method === "head") return assert.is(res.body, "");
      const fn = compile(response.content["application/json"].schema);
      assert.ok(fn(JSON.parse(res.body)), `${method} ${p} → ${res.statusCode} ${res.body.slice(0, 200)}: ${JSON.stringify(fn.errors?.[0])}`);
    };
    try {
      for (const [p, methods] of expected) {
        const url = p === "/oauth/token" ? `${model.service.basePath}${p}` : p;
        for (const m of METHODS) {
          if (m === "post" && p === "/oauth/token") continue;
          const res = await app.inject({ method: m.toUpperCase() as "GET", url });
          if (methods.includes(m)) {
            assert.is(res.statusCode, 200, `${m.toUpperCase()} ${url}`);
            check(res, p, m);
          } else assert.is(res.statusCode, 405, `${m.toUpperCase()} ${url}`);
        }
      }
      if (issues) {
        const key = keys.create([...new Set(model.resources.flatMap((r) => Object.values(r.access).flat()))] as string[]);
        const form = (fields: Record<string, string>) => ({ method: "POST" as const, url: `${model.service.basePath}/oauth/token`, headers: { "content-type": "application/x-www-form-urlencoded" }, payload: new URLSearchParams(fields).toString() });
        const granted = await app.inject(form({ grant_type: "client_credentials", client_id: key.id, client_secret: key.secret }));
        assert.is(granted.statusCode, 200, granted.body);
        check(granted, "/oauth/token", "post");
        const wrong = await app.inject(form({ grant_type: "client_credentials", client_id: key.id, client_secret: "not-the-secret" }));
        assert.is(wrong.statusCode, 401, wrong.body);
        check(wrong, "/oauth/token", "post");
        const bad = await app.inject(form({ grant_type: "password", client_id: key.id, client_secret: key.secret }));
        assert.is(bad.statusCode, 400, bad.body);
        check(bad, "/oauth/token", "post");
      }
    } finally {
      await app.close();
      await store.close();
    }
  });
}

// Last, so that Spectral has run meanwhile.
for (const { name, file } of projects) {
  test(`${name}: no Spectral errors (spectral:oas)`, async () => {
    const results = (await spectralRun).get(file) ?? [];
    const errors = results.filter((r) => r.severity === 0);
    assert.equal(errors.map((r) => `${r.code} at ${r.path.join(".")}: ${r.message}`), []);
    const warnings = results.filter((r) => r.severity === 1);
    console.log(`  ${name}: spectral ${errors.length} errors, ${warnings.length} warnings${warnings.length ? ` (${[...new Set(warnings.map((w) => w.code))].join(", ")})` : ""}`);
  });
}

/**
 * `content[alias]` is a string holding the JSON of `content[vendor]` (what JSON tools can read of it), and
 * the document's `x-media-type-aliases` says it is `vendor`'s alias.
 */
/** A Location header: the one header component, an absolute URI that is always there. */
function assertLocation(doc: Json, headers: Json | undefined, where: string): void {
  assert.equal(headers?.Location, { $ref: "#/components/headers/Location" }, `${where} Location`);
  const location = deref(doc, headers!.Location);
  assert.ok(location.required, `${where} Location is required`);
  assert.equal(location.schema, { type: "string", format: "uri" });
}

function assertAliasOf(doc: Json, content: Json, vendor: string, alias: string): void {
  const schema = content[alias].schema;
  assert.equal(Object.keys(content[alias]), ["schema"]);
  assert.equal([schema.type, schema.contentMediaType], ["string", "application/json"], alias);
  assert.equal(schema.contentSchema, content[vendor].schema, `${alias} holds ${vendor}`);
  assert.is(doc["x-media-type-aliases"][alias], vendor, `${alias} is the alias of ${vendor}`);
}

// ---------------------------------------------------------------------------------------------------
// Conformance: every operation driven through the runtime, answers checked against the document
// ---------------------------------------------------------------------------------------------------

async function conformance(model: Model, doc: Json): Promise<void> {
  // inject() is not TLS, where Basic is refused: a Basic-only service is driven with Bearer keys instead.
  const declared = runtimeSpec(model);
  const spec: ServiceSpec = bearerCapable(model) ? declared : { ...declared, auth: { ...declared.auth, schemes: ["bearer"] } };
  const store = openSqliteStore(spec, ":memory:");
  const keys = KeyRing.memory();
  const roles = [...new Set([...model.resources.flatMap((r) => Object.values(r.access).flat()), ...model.actions.flatMap((a) => a.roles)])] as string[];
  const key = keys.create(roles);
  const app = await buildApp({ spec, store, keys });
  const compile = schemaValidator(doc);
  const ops = opsOf(model);
  let checked = 0;

  /** Sends a request and checks its answer against the documented operation; returns the body. */
  const call = async (method: string, template: string, id: string | undefined, options: { query?: string; body?: unknown; raw?: string; accept?: string; contentType?: string; memberId?: string } = {}): Promise<{ res: LightMyRequestResponse; body: any }> => {
    const url = model.service.basePath + template.replace("{id}", id ?? "").replace("{memberId}", options.memberId ?? "") + (options.query ? `?${options.query}` : "");
    const payload = options.raw ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
    const res = await app.inject({
      method: method as "GET",
      url,
      headers: {
        authorization: `Bearer ${key.secret}`,
        ...(options.accept ? { accept: options.accept } : {}),
        ...(payload !== undefined ? { "content-type": options.contentType ?? "application/json" } : {}),
      },
      ...(payload !== undefined ? { payload } : {}),
    });
    const op = doc.paths[template]?.[method.toLowerCase()];
    assert.ok(op, `${method} ${template} is documented`);
    const where = `${method} ${url} → ${res.statusCode} ${res.body.slice(0, 300)}`;
    const response = deref(doc, op.responses[String(res.statusCode)] ?? (res.statusCode >= 400 ? op.responses.default : undefined));
    assert.ok(response, `${where}: the status is documented`);
    if (res.statusCode === 204) return { res, body: undefined };
    if (method === "HEAD") {
      assert.is(res.body, "", `${where}: no body`);
      assert.is(response.content, undefined, `${where}: documented without a body`);
      checked++;
      return { res, body: undefined };
    }
    const type = String(res.headers["content-type"]).split(";")[0]!.trim();
    const media = response.content?.[type];
    assert.ok(media, `${where}: ${type} is documented`);
    const body: any = JSON.parse(res.body);
    // An alias is documented as a string holding the JSON its contentSchema describes.
    const fn = compile(media.schema.contentMediaType === "application/json" ? media.schema.contentSchema : media.schema);
    const data: unknown = body;
    const valid = fn(data);
    assert.ok(valid, `${where}: ${JSON.stringify(fn.errors?.[0])}`);
    if (res.statusCode >= 400) assert.ok((response["x-error-codes"] as number[]).includes(body.code), `${where}: code ${body.code} is listed`);
    if (res.statusCode === 201) assert.is(res.headers.location, body.meta.href);
    checked++;
    return { res, body };
  };

  const created = new Map<string, { id: string; href: string }>();
  /** A body from operations.ts's example, with links pointing at instances made here (or left out). */
  const withLinks = (r: Resource, example: unknown): Json | undefined => {
    const body = structuredClone((example ?? {}) as Json);
    for (const f of r.fields.filter((x) => x.link && !x.link.inverse && x.name !== r.owner)) {
      const target = created.get(f.link!.target);
      if (target) body[f.name] = f.link!.kind === "instance" ? { meta: { href: target.href } } : [{ meta: { href: target.href } }];
      else if (f.required) return undefined;
      else delete body[f.name];
    }
    return body;
  };

  try {
    // Create every resource, those others link to first.
    for (let pass = 0; pass < model.resources.length && created.size < model.resources.length; pass++) {
      for (const r of model.resources) {
        if (created.has(r.collection)) continue;
        const body = withLinks(r, ops.find((o) => o.kind === "create" && o.resource === r)!.exampleBody);
        if (!body) continue;
        const { res, body: answer } = await call("POST", `/${r.collection}`, undefined, { body });
        assert.is(res.statusCode, 201, res.body);
        created.set(r.collection, { id: answer.id, href: answer.meta.href });
      }
    }
    assert.is(created.size, model.resources.length, "every resource could be created");

    for (const r of model.resources) {
      const { id } = created.get(r.collection)!;
      const one = `/${r.collection}/{id}`;
      const links = r.fields.filter((f) => f.link).map((f) => f.name);
      const all = ["id", "createdAt", "modifiedAt", ...r.fields.map((f) => f.name)].filter((n) => /^[A-Za-z0-9_$-]+$/.test(n));
      assert.is((await call("GET", one, id)).res.statusCode, 200);
      assert.is((await call("GET", one, id, { accept: r.mediaType })).res.headers["content-type"], r.mediaType);
      const alias = model.mediaTypes.find((m) => m.name === r.mediaType)!.alias;
      assert.is((await call("GET", one, id, { accept: alias })).res.headers["content-type"], alias);
      assert.is((await call("HEAD", one, id)).res.statusCode, 200);
      assert.is((await call("HEAD", `/${r.collection}`, undefined)).res.statusCode, 200);
      assert.is((await call("HEAD", one, "0190b6c2-7d4e-7a10-8f3e-000000000000")).res.statusCode, 404);
      assert.is((await call("GET", one, id, { query: `fields=${all.join(",")}` })).res.statusCode, 200);
      assert.is((await call("GET", one, id, { query: "fields=id" })).res.statusCode, 200);
      if (links.length > 0) {
        assert.is((await call("GET", one, id, { query: `expand=${links.join(",")}` })).res.statusCode, 200);
        assert.is((await call("GET", one, id, { query: `fields=${links.map((l) => `${l}(id)`).join(",")}` })).res.statusCode, 200);
        assert.is((await call("GET", `/${r.collection}`, undefined, { query: `expand=${links.join(",")}` })).res.statusCode, 200);
      }
      assert.is((await call("GET", `/${r.collection}`, undefined, { query: "offset=0&limit=2" })).res.statusCode, 200);
      for (const f of r.fields.filter((x) => x.link?.kind === "collection")) assert.is((await call("GET", `${one}/${f.name}`, id)).res.statusCode, 200);
      // The members of a stored list: added (201, or 200 when already one), removed (204, then 404), a bad link refused.
      for (const f of r.fields.filter((x) => x.link?.kind === "collection" && !x.link.inverse)) {
        const member = created.get(f.link!.target);
        if (!member) continue;
        const list = `${one}/${f.name}`;
        const first = (await call("POST", list, id, { body: { meta: { href: member.href } } })).res.statusCode;
        assert.ok(first === 201 || first === 200, `POST ${list}: ${first}`);
        assert.is((await call("POST", list, id, { body: { meta: { href: member.href } } })).res.statusCode, 200);
        assert.is((await call("DELETE", `${list}/{memberId}`, id, { memberId: member.id })).res.statusCode, 204);
        assert.is((await call("DELETE", `${list}/{memberId}`, id, { memberId: member.id })).res.statusCode, 404);
        assert.is((await call("POST", list, id, { body: { meta: { href: "https://elsewhere.example/x/1" } } })).res.statusCode, 400);
        assert.is((await call("POST", list, id, { body: { meta: { href: member.href } } })).res.statusCode, 201);
      }

      const patch = withLinks(r, ops.find((o) => o.kind === "update" && o.resource === r)!.exampleBody) ?? {};
      assert.is((await call("PATCH", one, id, { body: patch, contentType: "application/merge-patch+json" })).res.statusCode, 200);
      assert.is((await call("POST", one, id, { body: patch, contentType: r.mediaType })).res.statusCode, 200);
      assert.is((await call("PUT", one, id, { body: withLinks(r, ops.find((o) => o.kind === "replace" && o.resource === r)!.exampleBody) })).res.statusCode, 200);

      // Errors, each with a documented status and code.
      assert.is((await call("GET", one, "0190b6c2-7d4e-7a10-8f3e-000000000000")).res.statusCode, 404);
      assert.is((await call("GET", one, id, { query: "fields=nope" })).res.statusCode, 400);
      assert.is((await call("GET", one, id, { query: "expand=nope" })).res.statusCode, 400);
      assert.is((await call("GET", one, id, { accept: "application/vnd.other.v1.thing+json" })).res.statusCode, 406);
      assert.is((await call("GET", `/${r.collection}`, undefined, { query: `limit=101` })).res.statusCode, 400);
      assert.is((await call("POST", `/${r.collection}`, undefined, { raw: "{" })).res.statusCode, 400);
      assert.is((await call("POST", `/${r.collection}`, undefined, { raw: "x", contentType: "text/plain" })).res.statusCode, 415);
      assert.is((await call("PATCH", one, id, { body: { id: "x" } })).res.statusCode, 400);
      assert.is((await call("PUT", one, id, { body: { nope: 1 } })).res.statusCode, 400);
    }

    for (const a of model.actions) {
      const op = doc.paths[`/${a.name}`][a.method.toLowerCase()];
      const query = new URLSearchParams((op.parameters ?? []).filter((p: Json) => p.example !== undefined).map((p: Json) => [p.name, String(p.example)])).toString();
      assert.is((await call(a.method, `/${a.name}`, undefined, { query })).res.statusCode, 501); // no handler in this app
      if (a.method === "GET") assert.is((await call("HEAD", `/${a.name}`, undefined, { query })).res.statusCode, 501);
      if (a.params.some((p) => p.required)) assert.is((await call(a.method, `/${a.name}`, undefined)).res.statusCode, 400);
    }

    // Links stay whole: a delete that links refuse is a documented 409 until what links to it is gone first.
    const left = new Set(model.resources.map((r) => r.collection));
    for (let pass = 0; left.size > 0 && pass <= model.resources.length; pass++) {
      for (const r of model.resources) {
        if (!left.has(r.collection)) continue;
        const { res } = await call("DELETE", `/${r.collection}/{id}`, created.get(r.collection)!.id);
        if (res.statusCode === 409) continue;
        left.delete(r.collection);
        // A delete may cascade to an instance made here: that one is then gone already.
        for (const other of [...left]) if (!(await store.get(other, created.get(other)!.id))) left.delete(other);
        assert.is(res.statusCode, 204);
      }
    }
    assert.equal([...left], [], "every instance could be deleted");
    assert.ok(checked > 0);
  } finally {
    await app.close();
    await store.close();
  }
}

test("a property named __proto__ or constructor is an own property of its schema, as written", () => {
  const dir = path.join(tmp, "projects", "proto");
  fs.mkdirSync(path.join(dir, "resources"), { recursive: true });
  fs.writeFileSync(path.join(dir, "service.json"), JSON.stringify({ name: "proto", vendor: "proto", version: 1, baseUrl: "http://localhost:1/v1", errorDocsUrl: "http://localhost:1/errors", resources: ["resources/*.json"], auth: { schemes: ["apiKey"] } }));
  // JSON.parse makes "__proto__" an own member, as a definition file read from disk has it.
  fs.writeFileSync(path.join(dir, "resources/thing.json"), '{"title":"Thing","type":"object","x-collection":"things","additionalProperties":false,"properties":{"__proto__":{"type":"string"},"constructor":{"type":"integer"}}}');
  const { model } = checkProject(dir);
  assert.ok(model);
  const doc = openApiOf(model) as Json;
  for (const schema of ["Thing", "ThingPartial", "ThingInput", "ThingPatch"]) {
    const properties = doc.components.schemas[schema].properties as Json;
    assert.is(Object.getPrototypeOf(properties), Object.prototype, schema);
    for (const name of ["__proto__", "constructor"]) assert.ok(Object.prototype.hasOwnProperty.call(properties, name), `${schema}.${name}`);
  }
  const text = emitOpenApi(model)[0]!.contents;
  assert.equal(JSON.parse(text).components.schemas.Thing.properties.__proto__, { type: "string" });
});

test("each schema is written once: a later copy is a $ref to the first (the full representation's field), data never", () => {
  const dir = path.join(tmp, "projects", "once");
  fs.mkdirSync(path.join(dir, "resources"), { recursive: true });
  fs.writeFileSync(path.join(dir, "service.json"), JSON.stringify({ name: "once", vendor: "once", version: 1, baseUrl: "http://localhost:1/v1", errorDocsUrl: "http://localhost:1/errors", resources: ["resources/*.json"], auth: { schemes: ["apiKey"] } }));
  const address = { type: "object", description: "A postal address, as the post office writes it on an envelope.", required: ["city"], properties: { city: { type: "string", maxLength: 80 }, street: { type: "string", maxLength: 120 } } };
  // Longer than a reference to it, though not twice as long.
  const code = { type: "string", pattern: "^[A-Z]{2}-[0-9]{4}$", maxLength: 7 };
  const tags = { type: "array", description: "Words that describe it, in the order they were given.", items: { type: "string", enum: ["first-example-word", "second-example-word", "third-example-word"] }, examples: [["first-example-word", "second-example-word", "third-example-word"]] };
  fs.writeFileSync(
    path.join(dir, "resources/shop.json"),
    JSON.stringify({ title: "Shop", type: "object", "x-collection": "shops", additionalProperties: false, required: ["name"], properties: { name: { type: "string" }, code, address, billing: address, tags } }),
  );
  // A second resource with a field equal to one of the first's.
  fs.writeFileSync(path.join(dir, "resources/stall.json"), JSON.stringify({ title: "Stall", type: "object", "x-collection": "stalls", additionalProperties: false, properties: { code } }));
  const { model } = checkProject(dir);
  assert.ok(model);
  const doc = openApiOf(model) as Json;
  const schemas = doc.components.schemas as Json;
  // The full representation writes every field as it is.
  assert.equal(schemas.Shop.properties.address, address);
  assert.equal(schemas.Shop.properties.tags, tags);
  assert.equal(schemas.Shop.properties.billing, address, "a second copy in the full representation too");
  for (const [name, field] of [["ShopPartial", "address"], ["ShopPartial", "tags"], ["ShopInput", "address"], ["ShopInput", "billing"], ["ShopInput", "tags"]]) {
    assert.equal(schemas[name!].properties[field!], { $ref: `#/components/schemas/Shop/properties/${field === "billing" ? "address" : field}` }, `${name}.${field}`);
  }
  // A merge patch's optional field is that schema or null; the schema is the reference.
  assert.equal(schemas.ShopPatch.properties.tags, { anyOf: [{ $ref: "#/components/schemas/Shop/properties/tags" }, { type: "null" }] });
  // A copy longer than the reference is the reference; small schemas stay where they are; every reference leads to what it replaced.
  const codeRef = { $ref: "#/components/schemas/Shop/properties/code" };
  assert.ok(JSON.stringify(code).length > JSON.stringify(codeRef).length && JSON.stringify(code).length < 2 * JSON.stringify(codeRef).length);
  assert.equal(schemas.ShopPartial.properties.code, codeRef);
  assert.equal(schemas.ShopInput.properties.code, codeRef);
  // A resource's variants refer to its own full representation, not to the first resource's equal schema.
  assert.equal(schemas.Stall.properties.code, code);
  for (const name of ["StallPartial", "StallInput"]) assert.equal(schemas[name].properties.code, { $ref: "#/components/schemas/Stall/properties/code" }, name);
  assert.equal(schemas.StallPartial.properties.id, { $ref: "#/components/schemas/Stall/properties/id" });
  assert.equal(schemas.ShopInput.properties.name, { type: "string" });
  const text = JSON.stringify(doc);
  for (const [, pointer] of text.matchAll(/"\$ref":"(#\/components\/schemas\/[^"]+\/properties\/[^"]+)"/g)) assert.ok(at(doc, pointer!) !== undefined, pointer);
  // An example is data: it is kept whole in each place.
  assert.equal(schemas.Shop.properties.tags.examples, tags.examples);
});

test.run();
