/**
 * Definitions as an attacker writes them: every text field of test/fixtures/hostile/project (titles,
 * descriptions, realm, examples, defaults, enum and const values, error texts, property names) carries
 * every breakout of payloads.ts, each of which would create a sentinel file if it ever ran. The built
 * CLI generates one package from them; it must compile under strict, pass its own tests, start, and
 * serve its docs and openapi.json with the text intact, and no sentinel may ever appear. Its docs are
 * also opened in Chromium when it is installed: only the pages' own elements, no script errors.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { chromium } from "playwright-core";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { repoRoot, runCli } from "../helpers/cli.js";
import { freePort, linkModules, run, start, type Started } from "../helpers/package.js";
import { payload, writeHostileProject } from "../fixtures/hostile/payloads.js";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "resourcery-hostile-"));
const sentinels = path.join(tmp, "sentinels");
const defs = path.join(tmp, "defs");
const out = path.join(tmp, "hostile-service");
const clientOut = path.join(tmp, "hostile-client");
fs.mkdirSync(sentinels);
writeHostileProject(defs, sentinels);

const text = (n: number) => payload(sentinels, n);
const CHROMIUM = "/usr/bin/chromium";
let server: Started | undefined;
let base = "";

/** No payload has run: the sentinel folder is still empty. */
function noSentinel(when: string): void {
  assert.equal(fs.readdirSync(sentinels), [], `a payload ran ${when}`);
}

test("check and generate accept the hostile definitions", () => {
  const check = runCli(["check", defs]);
  assert.is(check.code, 0, check.stdout + check.stderr);
  const generate = runCli(["generate", defs, "--out", out]);
  assert.is(generate.code, 0, generate.stdout + generate.stderr);
  const client = runCli(["generate", defs, "--out", clientOut, "--client-only"]);
  assert.is(client.code, 0, client.stdout + client.stderr);
  noSentinel("during generate");
});

test("the package compiles under strict and passes its own tests (npm test builds it)", () => {
  linkModules(out);
  const tests = run("npm", ["test", "--silent"], out, { NO_COLOR: "1", FORCE_COLOR: "0" });
  assert.is(tests.code, 0, tests.output);
  // Two uvu runs: the contract tests, then the user's seeded test/service.test.ts (its request path and test
  // name are definition text).
  const [contract, own] = [...tests.output.matchAll(/Total:\s+(\d+)\s+Passed:\s+(\d+)\s+Skipped:\s+(\d+)/g)].map((m) => m.slice(1).map(Number));
  assert.ok(contract && contract[0]! >= 10 && contract[1] === contract[0], `contract tests: ${contract}\n${tests.output}`);
  assert.equal(own, [1, 1, 0], "the seeded test/service.test.ts ran and passed");
  noSentinel("during npm test");
});

test("the standalone client compiles under strict", () => {
  linkModules(clientOut);
  const tsc = run(process.execPath, [path.join(repoRoot, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.json"], clientOut);
  assert.is(tsc.code, 0, tsc.output);
  noSentinel("while the client was built");
});

test("the package starts, and serves openapi.json and its docs with the text intact", async () => {
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  server = await start(out, { PORT: String(port), BASE_URL: `${base}/v1`, DATABASE_FILE: ":memory:", LOG_LEVEL: "warn" }, `${base}/docs/openapi.json`);
  const openapi = (await (await fetch(`${base}/docs/openapi.json`)).json()) as { info: { title: string; description: string }; components: { schemas: Record<string, { description?: string; properties?: Record<string, { description?: string }> }> } };
  assert.is(openapi.info.title, `Hostile ${text(1)}`);
  assert.ok(openapi.info.description.startsWith(text(2)));
  const schemas = JSON.stringify(openapi.components.schemas);
  for (const n of [21, 22, 25, 27, 29, 33, 42]) assert.ok(schemas.includes(JSON.stringify(text(n)).slice(1, -1)), `description «${n}» in openapi.json`);
  assert.ok(Object.values(openapi.components.schemas).some((s) => s.properties && Object.hasOwn(s.properties, `z ${text(28)}`)), "the hostile property name");

  const notes = await fetch(`${base}/docs/resources/notes.html`);
  assert.is(notes.status, 200);
  const html = await notes.text();
  assert.is(html.match(/<script\b/g)?.length, 2);
  assert.not.match(html, /<img|<!--|onerror=/);
  assert.ok(html.includes("&lt;/script&gt;&lt;script&gt;"));
  const error = await (await fetch(`${base}/docs/1001.md`)).text();
  assert.ok(error.includes("PWNED-16"), "the error's page shows its title");

  const unauthenticated = await fetch(`${base}/v1/notes`);
  assert.is(unauthenticated.status, 401);
  assert.match(unauthenticated.headers.get("content-type") ?? "", "json");
  const challenge = unauthenticated.headers.get("www-authenticate") ?? "";
  assert.ok(challenge.startsWith('Bearer realm="') && challenge.includes("PWNED-3"), challenge);
  noSentinel("while the service ran");
});

test("in a browser, the docs pages have only their own elements and no script error", async () => {
  if (!fs.existsSync(CHROMIUM)) {
    console.log(`hostile-definitions: browser check skipped, ${CHROMIUM} is absent`);
    return;
  }
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"] });
  try {
    for (const [page, heading] of [["index.html", `Hostile ${text(1)}`], ["resources/notes.html", text(20)], ["actions.html", undefined], ["1001.html", text(16)]] as const) {
      const tab = await browser.newPage();
      const problems: string[] = [];
      tab.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
      tab.on("console", (m) => m.type() === "error" && problems.push(`console: ${m.text()}`));
      tab.on("dialog", (d) => problems.push(`dialog: ${d.message()}`));
      await tab.goto(`${base}/docs/${page}`);
      await tab.waitForLoadState("load");
      const found = await tab.evaluate(() => ({
        scripts: document.querySelectorAll("script").length,
        images: document.querySelectorAll("img, iframe, object, embed").length,
        handlers: [...document.querySelectorAll("*")].filter((e) => [...e.attributes].some((a) => a.name.startsWith("on"))).length,
        h1: document.querySelector("h1")?.textContent ?? "",
        index: Array.isArray((window as unknown as { resourcerySearchIndex?: unknown }).resourcerySearchIndex),
      }));
      assert.equal({ scripts: found.scripts, images: found.images, handlers: found.handlers, index: found.index }, { scripts: 2, images: 0, handlers: 0, index: true }, page);
      // HTML collapses white space when it is shown: compare the words.
      if (heading) assert.ok(found.h1.replace(/\s+/g, " ").includes(heading.replace(/\s+/g, " ").trim()), `${page}: the heading shows the text`);
      await tab.fill("#search", "PWNED");
      assert.ok((await tab.locator("#search-results li").count()) > 0, `${page}: the search finds the text`);
      assert.equal(problems, [], page);
      await tab.close();
    }
  } finally {
    await browser.close();
  }
  noSentinel("while the docs were open in a browser");
});

test.after(async () => {
  await server?.stop();
  noSentinel("by the end");
  fs.rmSync(tmp, { recursive: true, force: true });
});
test.run();
