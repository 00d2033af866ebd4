/**
 * A synthetic API of N resources (≈8 fields each, links between resources, unique keys, one action per
 * 10 resources), written as a resourcery definitions project, as OpenAPI 3.1 and as TypeSpec.
 */
import fs from "node:fs";
import path from "node:path";

export interface SynthResource {
  readonly collection: string;
  readonly type: string;
  readonly file: string;
  /** Collection this resource links to (an instance link), if any. */
  readonly linksTo?: string;
}

const NOUNS = ["widget", "gadget", "order", "invoice", "customer", "product", "vendor", "shipment", "ticket", "project"];

/** The resources of an API of size n, deterministic. */
export function resourcesOf(n: number): SynthResource[] {
  return Array.from({ length: n }, (_, i) => {
    const noun = `${NOUNS[i % NOUNS.length]}${Math.floor(i / NOUNS.length) + 1}`;
    const collection = `${noun}s`;
    const type = noun.charAt(0).toUpperCase() + noun.slice(1);
    const linksTo = i > 0 ? `${NOUNS[(i - 1) % NOUNS.length]}${Math.floor((i - 1) / NOUNS.length) + 1}s` : undefined;
    return { collection, type, file: `${noun}.json`, ...(linksTo ? { linksTo } : {}) };
  });
}

function fieldsOf(r: SynthResource): Record<string, unknown> {
  return {
    name: { type: "string", minLength: 1, maxLength: 100, description: `Name of the ${r.type}.` },
    code: { type: "string", pattern: "^[A-Z]{3}-[0-9]{4}$" },
    quantity: { type: "integer", minimum: 0 },
    price: { type: "number", minimum: 0 },
    active: { type: "boolean" },
    status: { type: "string", enum: ["draft", "active", "archived"] },
    tags: { type: "array", items: { type: "string" }, maxItems: 10 },
  };
}

/** Writes the resourcery definitions project of size n into dir. */
export function writeResourcery(n: number, dir: string): void {
  const resources = resourcesOf(n);
  fs.mkdirSync(path.join(dir, "resources"), { recursive: true });
  const actions: Record<string, unknown> = {};
  for (let i = 0; i < Math.max(1, Math.floor(n / 10)); i++) {
    actions[`compute${i + 1}`] = { method: "GET", query: { type: "object", required: ["amount"], properties: { amount: { type: "number" }, unit: { type: "string" } } }, response: { type: "object", properties: { result: { type: "number" } } } };
  }
  fs.writeFileSync(
    path.join(dir, "service.json"),
    JSON.stringify({ name: `bench-${n}`, title: `Bench ${n}`, vendor: "bench", version: 1, baseUrl: "http://localhost:3000/v1", errorDocsUrl: "http://localhost:3000/docs/errors", resources: ["resources/*.json"], auth: { schemes: ["apiKey", "bearer"] }, actions }, null, 2),
  );
  for (const r of resources) {
    const properties: Record<string, unknown> = fieldsOf(r);
    if (r.linksTo) properties.parent = { $ref: resources.find((x) => x.collection === r.linksTo)!.file };
    fs.writeFileSync(
      path.join(dir, "resources", r.file),
      JSON.stringify({ type: "object", "x-collection": r.collection, "x-unique": ["code"], required: ["name", "code"], additionalProperties: false, properties }, null, 2),
    );
  }
}

/** The equivalent OpenAPI 3.1 document (CRUD paths per resource, one operation per action). */
export function openApiOf(n: number): Record<string, unknown> {
  const resources = resourcesOf(n);
  const paths: Record<string, unknown> = {};
  const schemas: Record<string, unknown> = {
    Link: { type: "object", required: ["meta"], properties: { meta: { type: "object", required: ["href"], properties: { href: { type: "string" }, mediaType: { type: "string" } } } } },
    Error: { type: "object", required: ["status", "code", "property", "message", "dev", "info"], properties: { status: { type: "integer" }, code: { type: "integer" }, property: { type: "string" }, message: { type: "string" }, dev: { type: "string" }, info: { type: "string" } } },
  };
  const ok = (ref: string) => ({ description: "OK", content: { "application/json": { schema: { $ref: `#/components/schemas/${ref}` } } } });
  const err = { description: "Error", content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } } };
  for (const r of resources) {
    const properties: Record<string, unknown> = { id: { type: "string" }, ...fieldsOf(r) };
    if (r.linksTo) properties.parent = { $ref: "#/components/schemas/Link" };
    schemas[r.type] = { type: "object", required: ["id", "name", "code"], properties };
    schemas[`${r.type}Page`] = { type: "object", required: ["offset", "limit", "size", "items"], properties: { offset: { type: "integer" }, limit: { type: "integer" }, size: { type: "integer" }, items: { type: "array", items: { $ref: `#/components/schemas/${r.type}` } } } };
    const id = { name: "id", in: "path", required: true, schema: { type: "string" } };
    paths[`/${r.collection}`] = {
      get: { operationId: `list${r.type}s`, parameters: [{ name: "offset", in: "query", schema: { type: "integer" } }, { name: "limit", in: "query", schema: { type: "integer" } }], responses: { "200": ok(`${r.type}Page`), default: err } },
      post: { operationId: `create${r.type}`, requestBody: { required: true, content: { "application/json": { schema: { $ref: `#/components/schemas/${r.type}` } } } }, responses: { "201": ok(r.type), default: err } },
    };
    paths[`/${r.collection}/{id}`] = {
      get: { operationId: `get${r.type}`, parameters: [id], responses: { "200": ok(r.type), default: err } },
      patch: { operationId: `update${r.type}`, parameters: [id], requestBody: { required: true, content: { "application/json": { schema: { $ref: `#/components/schemas/${r.type}` } } } }, responses: { "200": ok(r.type), default: err } },
      delete: { operationId: `delete${r.type}`, parameters: [id], responses: { "204": { description: "Deleted" }, default: err } },
    };
  }
  for (let i = 0; i < Math.max(1, Math.floor(n / 10)); i++) {
    paths[`/compute${i + 1}`] = { get: { operationId: `compute${i + 1}`, parameters: [{ name: "amount", in: "query", required: true, schema: { type: "number" } }, { name: "unit", in: "query", schema: { type: "string" } }], responses: { "200": { description: "OK", content: { "application/json": { schema: { type: "object", properties: { result: { type: "number" } } } } } }, default: err } } };
  }
  return { openapi: "3.1.0", info: { title: `Bench ${n}`, version: "1" }, servers: [{ url: "http://localhost:3000/v1" }], paths, components: { schemas } };
}

/** The equivalent TypeSpec project (models as unions of strings instead of enums; http-server-js crashes on enum). */
export function typeSpecOf(n: number): string {
  const resources = resourcesOf(n);
  const lines = [
    'import "@typespec/http";',
    'import "@typespec/rest";',
    "using Http;",
    "using Rest;",
    `@service(#{ title: "Bench ${n}" })`,
    '@server("http://localhost:3000/v1", "bench")',
    "namespace Bench;",
    "",
    "model Link { meta: { href: string; mediaType?: string } }",
    "@error model Error { status: int32; code: int32; property: string; message: string; dev: string; info: string; }",
    "model Page<T> { offset: int32; limit: int32; size: int32; items: T[] }",
    "",
  ];
  for (const r of resources) {
    lines.push(
      `model ${r.type} {`,
      "  @visibility(Lifecycle.Read) id: string;",
      "  @minLength(1) @maxLength(100) name: string;",
      '  @pattern("^[A-Z]{3}-[0-9]{4}$") code: string;',
      "  @minValue(0) quantity?: int32;",
      "  @minValue(0) price?: float64;",
      "  active?: boolean;",
      '  status?: "draft" | "active" | "archived";',
      "  @maxItems(10) tags?: string[];",
      ...(r.linksTo ? ["  parent?: Link;"] : []),
      "}",
      `@route("/${r.collection}") namespace ${r.type}s {`,
      `  @get op list(@query offset?: int32, @query limit?: int32): Page<${r.type}> | Error;`,
      `  @post op create(@body body: ${r.type}): { @statusCode statusCode: 201; @body body: ${r.type} } | Error;`,
      `  @get @route("{id}") op read(@path id: string): ${r.type} | Error;`,
      `  @patch(#{ implicitOptionality: true }) @route("{id}") op update(@path id: string, @body body: ${r.type}): ${r.type} | Error;`,
      `  @delete @route("{id}") op remove(@path id: string): { @statusCode statusCode: 204 } | Error;`,
      "}",
      "",
    );
  }
  for (let i = 0; i < Math.max(1, Math.floor(n / 10)); i++) {
    lines.push(`@route("/compute${i + 1}") @get op compute${i + 1}(@query amount: float64, @query unit?: string): { result?: float64 } | Error;`);
  }
  return lines.join("\n") + "\n";
}

/**
 * The one-resource change the regeneration benchmarks make: the description of `name` in the resource file
 * `file` of a project writeResourcery wrote, numbered by `edit` (a change every user makes, which the
 * breaking-change gate lets through).
 */
export function editDescription(file: string, edit: number): void {
  const schema = JSON.parse(fs.readFileSync(file, "utf8")) as { properties: { name: { description: string } } };
  schema.properties.name.description = `Name of the resource, edit ${edit}.`;
  fs.writeFileSync(file, JSON.stringify(schema, null, 2));
}
