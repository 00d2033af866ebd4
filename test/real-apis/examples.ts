/**
 * The examples an OpenAPI description gives of its component schemas: a schema's own `example` (or 3.1
 * `examples`), and the examples of request and response bodies whose schema is that component (or an
 * array of it: each item), with `#/components/examples/…` refs resolved. Nothing is made up.
 */
type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

const SCHEMAS_PREFIX = "#/components/schemas/";
const METHODS = ["get", "put", "post", "patch", "delete", "options", "head", "trace"];

function isObject(x: unknown): x is JsonObject {
  return typeof x === "object" && x !== null && !Array.isArray(x);
}

/** The value at a local `#/…` ref of the description, following refs to refs (at most 10 deep). */
function resolve(description: JsonObject, value: Json | undefined): Json | undefined {
  let v = value;
  for (let depth = 0; depth < 10 && isObject(v) && typeof v.$ref === "string"; depth++) {
    const ref: string = v.$ref;
    if (!ref.startsWith("#/")) return undefined;
    let at: Json | undefined = description;
    for (const seg of ref.slice(2).split("/")) {
      const key = decodeURIComponent(seg).replace(/~1/g, "/").replace(/~0/g, "~");
      at = isObject(at) ? at[key] : Array.isArray(at) ? at[Number(key)] : undefined;
    }
    v = at;
  }
  return v;
}

/** The component a media type's schema names, and whether the body is an array of it. */
function componentOf(schema: Json | undefined): { name: string; array: boolean } | undefined {
  if (!isObject(schema)) return undefined;
  const direct = (s: Json | undefined) =>
    isObject(s) && typeof s.$ref === "string" && s.$ref.startsWith(SCHEMAS_PREFIX) && !s.$ref.slice(SCHEMAS_PREFIX.length).includes("/")
      ? decodeURIComponent(s.$ref.slice(SCHEMAS_PREFIX.length)).replace(/~1/g, "/").replace(/~0/g, "~")
      : undefined;
  const name = direct(schema);
  if (name !== undefined) return { name, array: false };
  const item = schema.type === "array" ? direct(schema.items) : undefined;
  return item !== undefined ? { name: item, array: true } : undefined;
}

/** Every example of each component schema, by schema name, without duplicates, in the order found. */
export function examplesOf(description: unknown): Map<string, Json[]> {
  const found = new Map<string, Map<string, Json>>();
  const add = (name: string, example: Json | undefined) => {
    if (example === undefined) return;
    const seen = found.get(name) ?? found.set(name, new Map()).get(name)!;
    const key = JSON.stringify(example);
    if (!seen.has(key)) seen.set(key, example);
  };
  if (!isObject(description)) return new Map();
  const components = isObject(description.components) ? description.components : {};
  const schemas = isObject(components.schemas) ? components.schemas : {};
  for (const [name, schema] of Object.entries(schemas)) {
    if (!isObject(schema)) continue;
    add(name, schema.example);
    if (Array.isArray(schema.examples)) for (const e of schema.examples) add(name, e);
  }

  const media = (content: Json | undefined) => {
    if (!isObject(content)) return;
    for (const [type, mediaType] of Object.entries(content)) {
      if (!/json/i.test(type) || !isObject(mediaType)) continue;
      const target = componentOf(mediaType.schema);
      if (!target) continue;
      const values: Json[] = [];
      if (mediaType.example !== undefined) values.push(mediaType.example);
      if (isObject(mediaType.examples)) {
        for (const e of Object.values(mediaType.examples)) {
          const example = resolve(description, e);
          if (isObject(example) && example.value !== undefined) values.push(example.value);
        }
      }
      for (const v of values) {
        if (target.array) {
          if (Array.isArray(v)) for (const item of v) add(target.name, item);
        } else add(target.name, v);
      }
    }
  };
  const paths = isObject(description.paths) ? description.paths : {};
  for (const item of Object.values(paths)) {
    if (!isObject(item)) continue;
    for (const method of METHODS) {
      const op = item[method];
      if (!isObject(op)) continue;
      const body = resolve(description, op.requestBody);
      if (isObject(body)) media(body.content);
      if (isObject(op.responses)) {
        for (const r of Object.values(op.responses)) {
          const response = resolve(description, r);
          if (isObject(response)) media(response.content);
        }
      }
    }
  }
  return new Map([...found].map(([name, seen]) => [name, [...seen.values()]]));
}
