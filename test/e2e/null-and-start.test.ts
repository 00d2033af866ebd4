/**
 * `check` implies the service starts, and null in a merge patch, over real HTTP against a generated,
 * built and started package: definitions with OpenAPI's `nullable` beside `anyOf`, a pattern of another
 * regex dialect and a required link to the resource's own collection fail `check` (and `generate` writes
 * nothing); the same definitions written as the hints say pass `check`, generate, build and start; the
 * package's own tests pass; PATCH sets nullable properties to null, removes optional ones and refuses null
 * for a required one; a wrong link value's error shows a link's form. And when the service cannot start,
 * the package's generated tests fail with its start-up error instead of counting no case.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { repoRoot, runCli } from "../helpers/cli.js";
import { freePort, linkModules, run, start, type Started } from "../helpers/package.js";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "resourcery-null-"));
const defs = path.join(tmp, "defs");
const out = path.join(tmp, "teams-service");
const tsc = path.join(repoRoot, "node_modules/typescript/bin/tsc");

let server: Started | undefined;
let base = "";
let secret = "";

type Json = Record<string, any>;
type Reply = { status: number; body: any };

function write(file: string, value: unknown): void {
  fs.mkdirSync(path.dirname(path.join(defs, file)), { recursive: true });
  fs.writeFileSync(path.join(defs, file), JSON.stringify(value, null, 2));
}

async function call(method: string, url: string, body?: unknown): Promise<Reply> {
  const headers: Record<string, string> = { authorization: `Bearer ${secret}` };
  if (body !== undefined) headers["content-type"] = method === "PATCH" ? "application/merge-patch+json" : "application/json";
  const res = await fetch(`${base}${url}`, { method, headers, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

const SERVICE = {
  name: "teams-service",
  title: "Teams",
  vendor: "teams",
  version: 1,
  baseUrl: "http://localhost:3000/v1",
  errorDocsUrl: "http://localhost:3000/docs/errors",
  resources: ["resources/*.json"],
  auth: { schemes: ["apiKey"] },
};

/** A team as an OpenAPI 3.0 description converted by hand would have it: nullable, \A…\Z, a required parent. */
const BROKEN_TEAM = {
  title: "Team",
  type: "object",
  "x-collection": "teams",
  required: ["name", "description", "parent"],
  additionalProperties: false,
  properties: {
    name: { type: "string" },
    description: { anyOf: [{ type: "string" }, { type: "integer" }], nullable: true },
    slug: { type: "string", pattern: "\\A[a-z0-9-]+\\Z" },
    parent: { $ref: "team.json" },
  },
};

test("nullable beside anyOf, a \\A…\\Z pattern and a required link to its own collection fail check at their keywords, with the fix; generate writes nothing", () => {
  write("service.json", SERVICE);
  write("resources/team.json", BROKEN_TEAM);
  const check = runCli(["check", defs, "--json"]);
  assert.is(check.code, 1, check.stdout + check.stderr);
  const found = JSON.parse(check.stdout) as { rule: string; pointer: string; line: number; column: number; hint: string; message: string }[];
  const at = (pointer: string) => found.find((d) => d.pointer === pointer);
  const nullable = at("/properties/description/nullable");
  assert.ok(nullable, check.stdout);
  assert.is(nullable!.rule, "unsupported-keyword");
  assert.ok(nullable!.line > 0 && nullable!.column > 0);
  assert.is(nullable!.hint, 'remove "nullable" and add { "type": "null" } to "anyOf"');
  const slug = at("/properties/slug/pattern");
  assert.ok(slug, check.stdout);
  assert.match(slug!.message, /\\A and \\Z are not escapes of JavaScript regular expressions/);
  assert.match(slug!.hint, /write \\A as \^ \(the start of the value\) and \\Z as \$ \(the end of the value\): "pattern": "\^\[a-z0-9-\]\+\$"/);
  const parent = at("/properties/parent");
  assert.is(parent?.rule, "required-link-cycle", check.stdout);
  assert.match(parent!.hint, /optional \(remove it from "required"\) or nullable/);
  // Reported once each, by the rule that names them best; nothing else.
  assert.equal(found.map((d) => d.rule).sort(), ["invalid-pattern", "required-link-cycle", "unsupported-keyword"]);
  const gen = runCli(["generate", defs, "--out", out]);
  assert.is.not(gen.code, 0);
  assert.not.ok(fs.existsSync(path.join(out, "package.json")), "nothing written");
});

test("the definitions written as the hints say pass check, generate, build, pass their own tests and start", async () => {
  write("resources/team.json", {
    ...BROKEN_TEAM,
    required: ["name", "description"],
    properties: {
      name: { type: "string" },
      description: { anyOf: [{ type: "string" }, { type: "integer" }, { type: "null" }] },
      nickname: { type: ["string", "null"] },
      motto: { type: "string" },
      slug: { type: "string", pattern: "^[a-z0-9-]+$" },
      address: { type: "object", required: ["zip"], properties: { zip: { type: "string" }, city: { type: ["string", "null"] }, street: { type: "string" } } },
      parent: { $ref: "team.json" },
      lead: { $ref: "person.json" },
    },
  });
  write("resources/person.json", { title: "Person", type: "object", "x-collection": "people", required: ["name"], additionalProperties: false, properties: { name: { type: "string" } } });
  const check = runCli(["check", defs]);
  assert.is(check.code, 0, check.stdout + check.stderr);
  const gen = runCli(["generate", defs, "--out", out]);
  assert.is(gen.code, 0, gen.stdout + gen.stderr);
  linkModules(out);
  const build = run(process.execPath, [tsc, "-p", "tsconfig.json"], out);
  assert.is(build.code, 0, build.output);
  // Built just above: the tests run without pretest's second build (--ignore-scripts skips pre/post scripts).
  const own = run("npm", ["test", "--ignore-scripts"], out);
  assert.is(own.code, 0, own.output);
  assert.not.match(own.output, /did not start/);

  const keysFile = path.join(tmp, "keys.json");
  const key = run("npm", ["run", "--silent", "keys", "--", "create", "--roles", "admin"], out, { KEYS_FILE: keysFile });
  assert.is(key.code, 0, key.output);
  secret = (JSON.parse(key.output.trim()) as { secret: string }).secret;
  const port = await freePort();
  base = `http://127.0.0.1:${port}/v1`;
  server = await start(out, { PORT: String(port), BASE_URL: base, KEYS_FILE: keysFile, DATABASE_FILE: path.join(tmp, "data/teams.db"), LOG_LEVEL: "warn" }, `${base}/teams`);
});

test("PATCH null: a nullable property stays with null, an optional one is removed, a required one is a 400 naming it", async () => {
  const created = await call("POST", "/teams", { name: "Ravens", description: "Night shift", nickname: "R", motto: "Caw", address: { zip: "1", city: "Oslo", street: "Main" } });
  assert.is(created.status, 201, JSON.stringify(created.body));
  const id = created.body.id as string;
  const patched = await call("PATCH", `/teams/${id}`, { description: null, nickname: null, motto: null, address: { city: null, street: null } });
  assert.is(patched.status, 200, JSON.stringify(patched.body));
  assert.is(patched.body.description, null);
  assert.is(patched.body.nickname, null);
  assert.not.ok("motto" in patched.body, JSON.stringify(patched.body));
  assert.equal(patched.body.address, { zip: "1", city: null });
  const read = await call("GET", `/teams/${id}`);
  assert.equal([read.body.description, read.body.nickname, "motto" in read.body, read.body.address], [null, null, false, { zip: "1", city: null }]);

  for (const [patch, property] of [[{ name: null }, "name"], [{ address: { zip: null } }, "address.zip"]] as const) {
    const refused = await call("PATCH", `/teams/${id}`, patch);
    assert.is(refused.status, 400, JSON.stringify(refused.body));
    assert.equal([refused.body.code, refused.body.property], [40001, property]);
    assert.match(refused.body.dev, /is required and cannot be null/);
  }
  assert.is((await call("GET", `/teams/${id}`)).body.name, "Ravens");
  // A whole body takes null where the schema allows it.
  const put = await call("PUT", `/teams/${id}`, { name: "Ravens", description: null, nickname: null });
  assert.is(put.status, 200, JSON.stringify(put.body));
  assert.equal([put.body.description, put.body.nickname], [null, null]);
});

test("a wrong link value is a 400 whose dev shows a link to the target: { meta: { href: <base>/<collection>/<id> } }", async () => {
  for (const wrong of ["Pat", 7, { href: `${base}/people/1` }]) {
    const r = await call("POST", "/teams", { name: "x", description: "d", lead: wrong });
    assert.is(r.status, 400, JSON.stringify(r.body));
    assert.is(r.body.property.split(".")[0], "lead");
    assert.ok(r.body.dev.includes(`"lead" is a link, written { "meta": { "href": "${base}/people/<id>" } }`), r.body.dev);
  }
  const team = await call("POST", "/teams", { name: "y", description: "d" });
  const other = await call("POST", "/teams", { name: "x", description: "d", lead: { meta: { href: team.body.meta.href } } });
  assert.equal([other.status, other.body.property], [400, "lead"]);
  assert.ok(other.body.dev.includes(`{ "meta": { "href": "${base}/people/<id>" } }`), other.body.dev);
});

test("a service that cannot start: the package's generated tests fail with its start-up error, in every case", async () => {
  await server?.stop();
  server = undefined;
  // A schema ajv cannot compile, put in the generated spec by hand (what check now prevents).
  const specFile = path.join(out, "src/generated/spec.ts");
  fs.appendFileSync(
    specFile,
    `\n(spec.resources[0] as { bodySchema: unknown }).bodySchema = { type: "object", properties: { x: { anyOf: [{ type: "string" }], nullable: true } } };\n`,
  );
  const own = run("npm", ["test"], out);
  assert.is.not(own.code, 0, own.output);
  assert.match(own.output, /The service did not start, so no case can run: the body schema of people cannot be compiled: "nullable" cannot be used without "type"/);
  // Every case of every suite fails with it: none is left uncounted.
  const failures = own.output.match(/The service did not start/g)?.length ?? 0;
  assert.ok(failures > 5, `${failures} mentions:\n${own.output.slice(0, 3000)}`);
});

test.after(async () => {
  await server?.stop();
  fs.rmSync(tmp, { recursive: true, force: true });
});

test.run();
