/**
 * Definitions written as converted real API descriptions are (test/fixtures/real-api-names): property names
 * that are not identifiers ("+1", "-1", "16x16", "0", "user-name", nested ones too), a root
 * `"type": ["object", "null"]`, other tools' x- annotations (at the root too, and with $refs inside), and a snake_case sub-collection
 * (requested_reviewers). check accepts them with warnings only; the package builds (tsc strict) and passes its
 * own npm test; the typed client, type-checked with quoted keys, round-trips them over HTTP against the started
 * service; and a body with several unknown properties is answered once, naming them all.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { repoRoot, runCli } from "../helpers/cli.js";
import { freePort, linkModules, run, start, type Started } from "../helpers/package.js";

const fixture = path.join(repoRoot, "test/fixtures/real-api-names");
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "resourcery-real-names-"));
const out = path.join(tmp, "real-names-service");
const tsc = path.join(repoRoot, "node_modules/typescript/bin/tsc");
let service: Started | undefined;
let base = "";
let secret = "";

type Json = Record<string, any>;

test("check accepts the definitions: warnings only, for the unselectable +1, the snake_case sub-collection and other tools' x- annotations (root ones too)", () => {
  const r = runCli(["check", fixture, "--json"]);
  assert.is(r.code, 0, r.stdout + r.stderr);
  const found = (JSON.parse(r.stdout) as { rule: string; severity: string; pointer: string }[]).map((d) => `${d.severity} ${d.rule} ${d.pointer}`);
  assert.equal(found.sort(), [
    "warning sub-collection-case /properties/requested_reviewers",
    "warning unknown-extension /properties/name/x-example",
    "warning unknown-extension /properties/sizes/x-foo",
    "warning unknown-extension /x-expandableFields",
    "warning unknown-extension /x-resourceId",
    "warning unselectable-name /properties/+1",
  ]);
});

test("the package builds (tsc strict), its npm test passes, and the typed client type-checks with the quoted keys", () => {
  const generated = runCli(["generate", fixture, "--out", out]);
  assert.is(generated.code, 0, generated.stderr);
  linkModules(out);
  const tests = run("npm", ["test"], out, { NO_COLOR: "1" });
  assert.is(tests.code, 0, tests.output);
  assert.match(tests.output, /Passed:\s+[1-9]/, "the package's tests ran");
  const types = fs.readFileSync(path.join(out, "client/types.ts"), "utf8");
  for (const key of ['"+1"?: number', '"-1"?: number', '"16x16"?: string', '"0"?: string', '"user-name"?: string', '"32x32"?: string']) {
    assert.ok(types.includes(key), `client/types.ts declares ${key}`);
  }
  const dir = path.join(out, "typetest");
  fs.cpSync(path.join(fixture, "typetest"), dir, { recursive: true });
  const checked = run(process.execPath, [tsc, "-p", "tsconfig.json", "--pretty", "false"], dir);
  assert.is(checked.code, 0, checked.output);
});

test("over HTTP: the client stores, validates, selects and updates every such key; the sub-collection answers", async () => {
  const keysFile = path.join(tmp, "keys.json");
  const key = run(process.execPath, ["dist/src/generated/runtime/keys-cli.js", "create", "--roles", "editor"], out, { KEYS_FILE: keysFile });
  assert.is(key.code, 0, key.output);
  secret = JSON.parse(key.output.trim()).secret as string;
  const port = await freePort();
  base = `http://127.0.0.1:${port}/v1`;
  service = await start(out, { PORT: String(port), BASE_URL: base, KEYS_FILE: keysFile, DATABASE_FILE: ":memory:", LOG_LEVEL: "warn" }, `${base}/users`);

  const { run: use } = await import(pathToFileURL(path.join(out, "typetest", "usage.js")).href);
  const facts = await use(base, secret);
  const written = { name: "thumbs", "+1": 3, "-1": 1, "16x16": "https://example.com/thumbs-16.png", "0": "zero", "user-name": "octocat" };
  for (const [k, v] of Object.entries(written)) {
    assert.equal(facts.created[k], v, `created ${k}`);
    assert.equal(facts.read[k], v, `read back ${k}`);
  }
  assert.equal(facts.read.sizes, { "32x32": "https://example.com/thumbs-32.png", "user-name": "hubot" });
  assert.equal(Object.keys(facts.selected).filter((k) => k !== "meta" && k !== "minus").sort(), ["-1", "0", "16x16", "user-name"]);
  assert.is(facts.selected.minus, 1);
  assert.equal(facts.nested.sizes, { "user-name": "hubot" });
  assert.is(facts.updated["+1"], 4);
  assert.not.ok(Object.hasOwn(facts.updated, "user-name"), "merge patch null removed user-name");
  assert.equal(facts.reviewers, ["ann", "bob"]);
  assert.equal(facts.invalid, { status: 400, code: 40003, property: "+1" });
});

test("over HTTP: a body with six unknown properties is one 400 naming all six; the sub-collection's path is its name", async () => {
  const headers = { authorization: `Bearer ${secret}`, "content-type": "application/json" };
  const res = await fetch(`${base}/awardEmojis`, {
    method: "POST",
    headers,
    body: JSON.stringify({ name: "x", nmae: 1, "+2": 1, "16X16": "a", "user_name": "b", zero: "c", sizes: {}, extra: true }),
  });
  assert.is(res.status, 400);
  const body = (await res.json()) as Json;
  assert.is(body.code, 40002);
  assert.is(body.property, "nmae", "the first unknown key of the body");
  assert.is(body.dev, '"+2", "16X16", "extra", "nmae", "user_name" and "zero" are not properties of this resource; remove them or correct their spelling.');
  const nested = (await (await fetch(`${base}/awardEmojis`, { method: "POST", headers, body: JSON.stringify({ name: "x", sizes: { "64x64": "a", "48x48": "b" } }) })).json()) as Json;
  assert.equal([nested.code, nested.property, nested.dev], [40002, "sizes.64x64", '"sizes.48x48" and "sizes.64x64" are not properties of this resource; remove them or correct their spelling.']);

  const pulls = (await (await fetch(`${base}/pulls`, { headers })).json()) as Json;
  const href = pulls.items[0].requested_reviewers.meta.href as string;
  assert.is(href, `${pulls.items[0].meta.href}/requested_reviewers`);
  const page = (await (await fetch(href, { headers })).json()) as Json;
  assert.equal(page.items.map((u: Json) => u.login), ["ann", "bob"]);
  // "+1" cannot be written in fields (check warned so): a 400 with property "fields", never a 500.
  const unselectable = (await (await fetch(`${base}/awardEmojis?fields=${encodeURIComponent("+1")}`, { headers })).json()) as Json;
  assert.equal([unselectable.status, unselectable.property], [400, "fields"]);
});

test.after(async () => {
  await service?.stop();
  fs.rmSync(tmp, { recursive: true, force: true });
});
test.run();
