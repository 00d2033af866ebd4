/** The docs routes of a generated service: /docs/* serves files; errorDocsUrl's path redirects into /docs/. */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Fastify from "fastify";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { registerDocs, resolveDocPath } from "../../../templates/runtime/docs.js";

const root = fs.mkdtempSync(path.join(os.tmpdir(), "resourcery-docs-"));
fs.mkdirSync(path.join(root, "assets"));
fs.mkdirSync(path.join(root, "40900"));
fs.writeFileSync(path.join(root, "index.html"), "<p>index</p>");
fs.writeFileSync(path.join(root, "40900.html"), '<link rel="stylesheet" href="assets/style.css"><p>40900</p>');
fs.writeFileSync(path.join(root, "40900", "index.html"), '<meta http-equiv="refresh" content="0; url=../40900.html">');
fs.writeFileSync(path.join(root, "assets", "style.css"), "body{}");

function app() {
  const a = Fastify();
  const notFound = () => Object.assign(new Error("no such page"), { statusCode: 404 });
  registerDocs(a, root, notFound, "/docs/errors");
  return a;
}

test.after(() => fs.rmSync(root, { recursive: true, force: true }));

test("resolveDocPath: pages by name, never outside the folder", async () => {
  assert.is(await resolveDocPath(root, ""), path.join(root, "index.html"));
  assert.is(await resolveDocPath(root, "40900"), path.join(root, "40900.html"));
  assert.is(await resolveDocPath(root, "40900/"), path.join(root, "40900", "index.html"));
  assert.is(await resolveDocPath(root, "../" + path.basename(root) + "/index.html"), path.join(root, "index.html"));
  assert.is(await resolveDocPath(root, "../etc/passwd"), undefined);
  assert.is(await resolveDocPath(root, "%E0%A4%A"), undefined);
});

test("an error page at errorDocsUrl's path redirects to its place under /docs/, where its relative links resolve", async () => {
  const a = app();
  const r = await a.inject({ url: "/docs/errors/40900" });
  assert.equal([r.statusCode, r.headers.location], [302, "/docs/40900.html"]);
  const page = await a.inject({ url: "/docs/40900.html" });
  assert.equal([page.statusCode, page.headers["content-type"]], [200, "text/html; charset=utf-8"]);
  const css = await a.inject({ url: new URL("assets/style.css", "http://x/docs/40900.html").pathname });
  assert.equal([css.statusCode, css.headers["content-type"]], [200, "text/css; charset=utf-8"]);
  assert.is((await a.inject({ url: "/docs/errors/12345" })).statusCode, 404);
  assert.is((await a.inject({ url: "/docs/errors/..%2F..%2Fetc%2Fpasswd" })).statusCode, 404);
  await a.close();
});

test("/docs redirects to /docs/; the index is served there", async () => {
  const a = app();
  const r = await a.inject({ url: "/docs" });
  assert.equal([r.statusCode, r.headers.location], [301, "/docs/"]);
  assert.match((await a.inject({ url: "/docs/" })).body, "index");
  await a.close();
});

test.run();
