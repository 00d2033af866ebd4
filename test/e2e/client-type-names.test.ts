/**
 * Collections whose types are named like the client's own (test/fixtures/client-type-names: links → Link,
 * pages → Page, metas → Meta, clients → Client, collections → Collection, registries → Registry,
 * apiErrors → ApiError): check accepts them, the package
 * builds (tsc strict) with a hook written against the resource's types, runs its own npm test, and the typed
 * client, with its own types under their other names (ClientLink, ClientPage …), runs against it started.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { repoRoot, runCli } from "../helpers/cli.js";
import { freePort, linkModules, run, start, type Started } from "../helpers/package.js";

const fixture = path.join(repoRoot, "test/fixtures/client-type-names");
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "resourcery-type-names-"));
const out = path.join(tmp, "names-service");
const tsc = path.join(repoRoot, "node_modules/typescript/bin/tsc");
let service: Started | undefined;

test("check accepts collections named links, pages, metas, clients, collections, registries and apiErrors", () => {
  const r = runCli(["check", fixture]);
  assert.is(r.code, 0, r.stdout + r.stderr);
  assert.match(r.stdout, "7 resources");
});

test("the package builds (tsc strict) with a hook on the resource's Link and LinkInput, and its npm test passes", () => {
  const generated = runCli(["generate", fixture, "--out", out]);
  assert.is(generated.code, 0, generated.stderr);
  assert.is(JSON.parse(fs.readFileSync(path.join(out, "tsconfig.json"), "utf8")).compilerOptions.strict, true);
  // The user's hook: Link and LinkInput are the resource's; the client's link input is ClientLinkInput.
  fs.writeFileSync(
    path.join(out, "src/hooks/links.ts"),
    [
      `import type { ResourceHooks } from "../generated/errors.js";`,
      `import type { ClientLinkInput, Link, LinkInput } from "../generated/types.js";`,
      ``,
      `/** Business rules of links. */`,
      `export const hooks: ResourceHooks<LinkInput, Link> = {`,
      `  async beforeCreate(input) {`,
      `    // The resource's own input: its url, and its page as the client's link input.`,
      `    const url: string = input.url;`,
      `    const page: ClientLinkInput | undefined = input.page;`,
      `    return { ...input, url, ...(page ? { page } : {}) };`,
      `  },`,
      `};`,
      ``,
    ].join("\n"),
  );
  linkModules(out);
  // npm test builds first (pretest: tsc -p tsconfig.json), then runs the package's tests.
  const tests = run("npm", ["test"], out, { NO_COLOR: "1" });
  assert.is(tests.code, 0, tests.output);
  assert.match(tests.output, /Passed:\s+[1-9]/, "the package's tests ran");
  assert.ok(fs.existsSync(path.join(out, "dist/client/index.js")), "npm test built the package");
});

test("the typed client: Link, Page, Meta, Client, Collection, Registry and ApiError are the resources'; the client's own are Client<Name>", async () => {
  const dir = path.join(out, "typetest");
  fs.cpSync(path.join(fixture, "typetest"), dir, { recursive: true });
  const checked = run(process.execPath, [tsc, "-p", "tsconfig.json", "--pretty", "false"], dir);
  assert.is(checked.code, 0, checked.output);

  const keysFile = path.join(tmp, "keys.json");
  const key = run(process.execPath, ["dist/src/generated/runtime/keys-cli.js", "create", "--roles", "editor"], out, { KEYS_FILE: keysFile });
  assert.is(key.code, 0, key.output);
  const secret = JSON.parse(key.output.trim()).secret as string;
  const port = await freePort();
  const base = `http://127.0.0.1:${port}/v1`;
  service = await start(out, { PORT: String(port), BASE_URL: base, KEYS_FILE: keysFile, DATABASE_FILE: ":memory:", LOG_LEVEL: "warn" }, `${base}/links`);

  const { run: use } = await import(pathToFileURL(path.join(dir, "usage.js")).href);
  const facts = await use(base, secret);
  assert.is(facts.linkUrl, "https://example.org/");
  assert.is(facts.linkPageText, "Hello", "expand=page inlined the page");
  assert.equal(facts.pageLinkUrls, ["https://example.org/"], "the page's links");
  assert.is(facts.metaKey, "lang");
  assert.is(facts.clientName, "Ada");
  assert.is(facts.collectionPages, 1);
  assert.is(facts.listed.size, 1);
  assert.ok(facts.listed.hrefs[0].startsWith(`${base}/links/`));
  assert.is(facts.conflict, 409);
  assert.equal(facts.registryClients, ["Ada"]);
  assert.is(facts.reported, "timeout");
  assert.equal(facts.notFound, { instance: true, code: 40400 });
});

test.after(async () => {
  await service?.stop();
  fs.rmSync(tmp, { recursive: true, force: true });
});
test.run();
