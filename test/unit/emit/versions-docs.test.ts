/**
 * The docs and the client of a service that serves several versions (CONTRACT §7): openapi.v<N>.json of each
 * older version (its resources, names, requirements, media types, base URL, deprecation; valid for
 * @readme/openapi-parser and Spectral), the reference's page set per version with a version switch whose links
 * resolve, the changelog made from the version keywords, and `generate --client-only --version N` (a client
 * that type-checks with version N's names and sends its media types; a version not served is an error).
 * Fixture: test/fixtures/versions-docs (version 2 current; version 1 with a sunset, `title` called `name`, no
 * `isbn`, `published` until 1, no reviews), and the corpus case clean-versions (versions 1 to 4).
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { compileErrors, validate } from "@readme/openapi-parser";
import { emitDocs } from "../../../src/emit/docs/index.js";
import { emitOpenApi, openApiOf } from "../../../src/emit/docs/openapi.js";
import { generate } from "../../../src/generate.js";
import { modelOfVersion, versionBaseUrl } from "../../../src/model/version-model.js";
import type { Model } from "../../../src/model/types.js";
import { checkProject } from "../../../src/pipeline.js";
import { repoRoot } from "../../helpers/cli.js";
import { linkModules, run } from "../../helpers/package.js";

type Json = Record<string, any>;

const FIXTURE = path.join(repoRoot, "test/fixtures/versions-docs");
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "resourcery-versions-docs-"));
test.after(() => fs.rmSync(tmp, { recursive: true, force: true }));

function modelOf(dir: string): Model {
  const { model, diagnostics } = checkProject(dir);
  const errors = diagnostics.filter((d) => d.severity === "error");
  if (!model || errors.length > 0) throw new Error(`${dir} does not check: ${errors.map((d) => d.message).join("; ")}`);
  return model;
}

const model = modelOf(FIXTURE);
const corpus = modelOf(path.join(repoRoot, "test/fixtures/check/clean-versions"));
const files = new Map(emitOpenApi(model).map((f) => [f.path, f.contents]));
const v1: Json = JSON.parse(files.get("openapi.v1.json") ?? "{}");
const v2: Json = JSON.parse(files.get("openapi.json") ?? "{}");

/** Every older version's document: the fixture's version 1, the corpus case's versions 1 to 3. */
const olderDocs = new Map([
  ["versions-docs/openapi.v1.json", files.get("openapi.v1.json") ?? ""],
  ...emitOpenApi(corpus)
    .filter((f) => /^openapi\.v\d+\.json$/.test(f.path))
    .map((f) => [`clean-versions/${f.path}`, f.contents] as [string, string]),
]);

// Spectral over the older versions' documents, started now so that it runs while the other tests do.
const docFiles = [...olderDocs].map(([name, text]) => {
  const file = path.join(tmp, name.replace("/", "-"));
  fs.writeFileSync(file, text);
  return file;
});
const spectral: Promise<Json[]> = new Promise((resolve, reject) => {
  const out = path.join(tmp, "spectral.json");
  const cli = path.join(repoRoot, "node_modules/@stoplight/spectral-cli/dist/index.js");
  const child = spawn(process.execPath, [cli, "lint", ...docFiles, "-r", path.join(repoRoot, "test/fixtures/spectral/.spectral.yaml"), "-f", "json", "-o", out, "-q"], { stdio: "ignore" });
  child.on("error", reject);
  child.on("close", (code) => (fs.existsSync(out) ? resolve(JSON.parse(fs.readFileSync(out, "utf8")) as Json[]) : reject(new Error(`spectral did not run (exit ${code})`))));
});
spectral.catch(() => {}); // reported by the test that awaits it

/** Follows a local $ref. */
function deref(doc: Json, value: any): any {
  while (value && typeof value.$ref === "string") value = (value.$ref as string).slice(2).split("/").reduce((v: any, k) => v?.[k], doc);
  return value;
}

/** Every operation of a document. */
/** The operations of the API's resources and actions: not the service's own endpoints (health, OAuth 2.0), which no version changes. */
function operations(doc: Json): Json[] {
  return Object.values(doc.paths as Json)
    .flatMap((item: Json) => ["get", "head", "post", "put", "patch", "delete"].filter((m) => item[m]).map((m) => item[m] as Json))
    .filter((op) => !SERVICE_TAGS.has(op.tags?.[0]));
}

const SERVICE_TAGS = new Set(["Service health", "OAuth 2.0"]);

/** The paths of the API (see operations). */
function apiPaths(doc: Json): string[] {
  return Object.keys(doc.paths).filter((p) => !SERVICE_TAGS.has(Object.values(doc.paths[p] as Json).find((x: Json) => x?.tags)?.tags[0]));
}

// -------------------------------------------------------------------------------------------------
// openapi.v<N>.json

test("openapi.json is the current version's, and each older version served has its openapi.v<N>.json", () => {
  assert.equal([...files.keys()], ["openapi.json", "openapi.v1.json", "schemas/v1.json", "schemas/v2.json"]);
  assert.equal(JSON.parse(files.get("openapi.json")!), openApiOf(modelOfVersion(model, 2)));
  assert.is(v2.info.version, "2");
  assert.is(v1.info.version, "1");
  assert.equal(
    emitOpenApi(corpus).map((f) => f.path),
    ["openapi.json", "openapi.v1.json", "openapi.v2.json", "openapi.v3.json", "schemas/v1.json", "schemas/v2.json", "schemas/v3.json", "schemas/v4.json"],
  );
  // V2: each version's JSON Schemas, their references to one another inside the document.
  const schemas: Json = JSON.parse(emitOpenApi(corpus).find((f) => f.path === "schemas/v1.json")!.contents);
  assert.is(schemas.$schema, "https://json-schema.org/draft/2020-12/schema");
  assert.ok(Object.keys(schemas.$defs).length > 0);
  assert.not.match(JSON.stringify(schemas), /#\/components\//, "every $ref is rewritten into $defs");
  // A service of one version has openapi.json alone.
  assert.equal(emitOpenApi(modelOf(path.join(repoRoot, "examples/library"))).map((f) => f.path), ["openapi.json"]);
});

test("openapi.v1.json: the version's properties under their names then, required as then", () => {
  const book = v1.components.schemas.Book;
  assert.equal(Object.keys(book.properties).sort(), ["author", "createdAt", "id", "meta", "modifiedAt", "name", "pages", "published"]);
  assert.ok(book.required.includes("name") && book.required.includes("pages"), JSON.stringify(book.required));
  // x-until: there in version 1, not required there (its clients may leave it out: the current version has none).
  assert.not.ok(book.required.includes("published"));
  const input = v1.components.schemas.BookInput;
  assert.equal(Object.keys(input.properties).sort(), ["author", "name", "pages", "published"]);
  assert.equal([...input.required].sort(), ["name", "pages"]);
  assert.equal(Object.keys(v1.components.schemas.BookPatch.properties).sort(), ["author", "name", "pages", "published"]);
  // The current version: the current names, isbn (x-since 2), no published (x-until 1: not in openapi.json though still in the model).
  assert.ok(model.resources.find((r) => r.collection === "books")!.fields.some((f) => f.name === "published"));
  assert.equal(Object.keys(v2.components.schemas.Book.properties).sort(), ["author", "createdAt", "id", "isbn", "meta", "modifiedAt", "pages", "title"]);
  // `fields` takes the version's names.
  const fields = v1.components.parameters.BookFields.schema.items;
  const names = (fields.anyOf?.[0] ?? fields).enum as string[];
  assert.ok(names.includes("name") && names.includes("published") && !names.includes("title") && !names.includes("isbn"), names.join(", "));
});

test("openapi.v1.json: only the resources version 1 has (reviews came in version 2), and no link to one it lacks", () => {
  assert.equal(apiPaths(v1).sort(), ["/authors", "/authors/{id}", "/books", "/books/{id}"]);
  assert.ok(Object.keys(v2.paths).includes("/reviews"));
  // The service's own endpoints are every version's, never deprecated, without Deprecation or Sunset (no version answers them).
  for (const doc of [v1, v2]) {
    const live = doc.paths["/health/live"];
    assert.ok(live?.get && live.head, "/health/live is documented");
    assert.is(live.get.deprecated, undefined);
    assert.is(live.get.responses["200"].headers, undefined);
  }
  assert.not.ok(JSON.stringify(v1).includes("Review"), "nothing of reviews in version 1");
});

test("openapi.v1.json: version 1's vendor media types in both shapes, and none of version 2's", () => {
  const get = v1.paths["/books/{id}"].get;
  const content = deref(v1, get.responses["200"]).content;
  assert.ok(content["application/vnd.acme.v1.book+json"], Object.keys(content).join(", "));
  assert.ok(content["application/acme.v1.book.json"], Object.keys(content).join(", "));
  const page = deref(v1, v1.paths["/books"].get.responses["200"]).content;
  assert.ok(page["application/vnd.acme.v1.books+json"] && page["application/acme.v1.books.json"], Object.keys(page).join(", "));
  assert.equal(v1["x-media-type-aliases"]["application/acme.v1.book.json"], "application/vnd.acme.v1.book+json");
  const text = JSON.stringify(v1);
  assert.not.ok(/acme\.v2\./.test(text), "no media type of version 2");
  assert.ok(JSON.stringify(v2).includes("application/vnd.acme.v2.book+json"));
});

test("servers: the base URL's v<K> segment becomes v<N> for version N; a base URL without one is every version's", () => {
  assert.equal(v1.servers.map((s: Json) => s.url), ["https://api.example.com/v1"]);
  assert.equal(v2.servers.map((s: Json) => s.url), ["https://api.example.com/v2"]);
  assert.is(versionBaseUrl("https://api.example.com/v4", 2), "https://api.example.com/v2");
  assert.is(versionBaseUrl("https://api.example.com/api/v4/", 1), "https://api.example.com/api/v1");
  assert.is(versionBaseUrl("https://api.example.com/shop", 1), "https://api.example.com/shop");
  const corpusV2 = openApiOf(modelOfVersion(corpus, 2)) as Json;
  assert.equal(corpusV2.servers.map((s: Json) => s.url), ["https://api.example.com"]);
});

test("a version with a sunset: deprecated operations, Deprecation and Sunset on every answer, the date in info", () => {
  const ops = operations(v1);
  assert.ok(ops.length > 0);
  for (const op of ops) {
    assert.is(op.deprecated, true, op.operationId);
    for (const [status, answer] of Object.entries(op.responses as Json)) {
      const headers = deref(v1, answer).headers ?? {};
      assert.ok(headers.Deprecation && headers.Sunset, `${op.operationId} ${status}: ${Object.keys(headers).join(", ")}`);
    }
  }
  assert.ok(deref(v1, v1.components.headers.Sunset).description.includes("2027-06-30"));
  assert.match(v1.info.description, /Version 1 is deprecated and served until 2027-06-30/);
  // The headers as the runtime sends them: the deprecation day's start (a sunset alone deprecates as of its day), the sunset day's last second.
  assert.is(v1.components.headers.Deprecation.example, `@${Date.parse("2027-06-30T00:00:00Z") / 1000}`);
  assert.is(v1.components.headers.Sunset.example, "Wed, 30 Jun 2027 23:59:59 GMT");
  assert.match(v1.info.description, /the current version is 2/);
  // Neither the current version nor an older one without a sunset is deprecated.
  const corpusV2 = openApiOf(modelOfVersion(corpus, 2)) as Json;
  for (const doc of [v2, corpusV2]) {
    assert.ok(operations(doc).every((op) => op.deprecated === undefined));
    assert.not.ok(JSON.stringify(doc).includes('"Sunset"'));
  }
});

test("a version deprecated with no sunset: deprecated operations, Deprecation on every answer, no Sunset", () => {
  const service = { ...model.service, versions: model.service.versions.map((v) => ({ ...v, deprecated: "2026-01-15", sunset: undefined })) };
  const doc = openApiOf(modelOfVersion({ ...model, service }, 1)) as Json;
  for (const op of operations(doc)) {
    assert.is(op.deprecated, true);
    for (const answer of Object.values(op.responses as Json)) {
      const headers = deref(doc, answer).headers ?? {};
      assert.ok(headers.Deprecation && !headers.Sunset, Object.keys(headers).join(", "));
    }
  }
  assert.is(doc.components.headers.Deprecation.example, `@${Date.parse("2026-01-15T00:00:00Z") / 1000}`);
  assert.match(doc.info.description, /Version 1 is deprecated as of 2026-01-15, with no end date set/);
});

test("the corpus case: each version's names (x-renamed twice, a name given up and taken later)", () => {
  const names = (version: number) => Object.keys((openApiOf(modelOfVersion(corpus, version)) as Json).components.schemas.Book.properties).filter((n) => !["meta", "id", "createdAt", "modifiedAt"].includes(n)).sort();
  assert.equal(names(1), ["name", "pages", "published"]);
  assert.equal(names(2), ["format", "heading", "pages", "published"]);
  assert.equal(names(3), ["format", "heading", "name", "pages"]);
});

test("an old name is data: __proto__ and a name with quotes and a comment end are own properties of version 1's schemas", () => {
  const hostile: Model = {
    ...model,
    resources: model.resources.map((r) =>
      r.collection !== "books"
        ? r
        : { ...r, fields: r.fields.map((f) => (f.name === "pages" ? { ...f, history: { since: undefined, until: undefined, renames: [{ upTo: 1, name: "__proto__" }] } } : f.name === "title" ? { ...f, history: { since: undefined, until: undefined, renames: [{ upTo: 1, name: 'x */ "y' }] } } : f)) },
    ),
  };
  const doc = JSON.parse(emitOpenApi(hostile).find((f) => f.path === "openapi.v1.json")!.contents) as Json;
  const book = doc.components.schemas.Book;
  assert.ok(Object.hasOwn(book.properties, "__proto__") && Object.hasOwn(book.properties, 'x */ "y'), Object.keys(book.properties).join(", "));
  assert.ok(book.required.includes("__proto__"));
});

test("each older version's document is valid OpenAPI 3.1 (@readme/openapi-parser)", async () => {
  assert.is(olderDocs.size, 4);
  for (const [name, text] of olderDocs) {
    const result = await validate(JSON.parse(text));
    assert.ok(result.valid, result.valid ? "" : `${name}: ${compileErrors(result)}`);
  }
});

// -------------------------------------------------------------------------------------------------
// The HTML reference and the changelog

const docs = new Map(emitDocs(model).map((f) => [f.path, f.contents]));

/** Resolves a relative href of `from` to the file it names, or undefined for an absolute URL or a bare anchor. */
function fileOf(from: string, href: string): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:|^\/\/|^#/i.test(href)) return undefined;
  return path.posix.normalize(path.posix.join(path.posix.dirname(from), href.split("#")[0]!));
}

const switchOf = (html: string): string[] => [.../<nav class="versions"[^>]*>([\s\S]*?)<\/nav>/.exec(html)?.[1]?.matchAll(/href="([^"]*)"/g) ?? []].map((m) => m[1]!);

test("the reference: the current version's pages where they were, version 1's under v1/, the error pages shared", () => {
  for (const page of ["index.html", "actions.html", "resources/books.html", "resources/reviews.html", "changelog.html", "index.md", "changelog.md", "v1/index.html", "v1/actions.html", "v1/resources/books.html", "v1/resources/authors.html", "v1/index.md", "v1/resources/books.md", "assets/search-index.v1.js"]) {
    assert.ok(docs.has(page), page);
  }
  assert.not.ok(docs.has("v1/resources/reviews.html"), "version 1 has no reviews");
  assert.not.ok([...docs.keys()].some((p) => /^v1\/\d+/.test(p)), "no error pages under v1/");
  const v1Books = docs.get("v1/resources/books.html")!;
  assert.ok(v1Books.includes('id="field-name"') && v1Books.includes('id="field-published"') && !v1Books.includes('id="field-isbn"') && !v1Books.includes('id="field-title"'), "version 1's names");
  const books = docs.get("resources/books.html")!;
  assert.ok(books.includes('id="field-title"') && books.includes('id="field-isbn"') && !books.includes('id="field-published"'), "the current version's names");
  assert.match(v1Books, /class="version-notice"[^>]*>This is the reference of version 1/);
  // Its examples: version 1's base URL, and the client of version 1 (generate --client-only --version 1).
  assert.ok(v1Books.includes("https://api.example.com/v1/books") && !v1Books.includes("https://api.example.com/v2/"));
  assert.ok(v1Books.includes("from &quot;library-service-client-v1&quot;"), "the client package of version 1");
  assert.ok(v1Books.includes("2027-06-30"));
  assert.not.ok(docs.get("resources/books.html")!.includes("version-notice"));
});

test("the version switch: on every page, a link per version to the same page there (its overview when it lacks it), each to a file that exists", () => {
  const pages = [...docs.keys()].filter((p) => p.endsWith(".html") && !/^\d+\/index\.html$/.test(p));
  for (const page of pages) {
    const links = switchOf(docs.get(page)!);
    assert.is(links.length, 2, `${page}: ${links.join(" ")}`);
    for (const href of links) assert.ok(docs.has(fileOf(page, href)!), `${page}: ${href} resolves`);
  }
  assert.equal(switchOf(docs.get("resources/books.html")!).map((h) => fileOf("resources/books.html", h)), ["resources/books.html", "v1/resources/books.html"]);
  assert.equal(switchOf(docs.get("v1/resources/books.html")!).map((h) => fileOf("v1/resources/books.html", h)), ["resources/books.html", "v1/resources/books.html"]);
  assert.equal(switchOf(docs.get("resources/reviews.html")!).map((h) => fileOf("resources/reviews.html", h)), ["resources/reviews.html", "v1/index.html"]);
  assert.match(docs.get("v1/actions.html")!, /<a href="actions\.html" aria-current="page">v1 \(until 2027-06-30\)<\/a>/);
});

test("every link and asset of version 1's pages resolves (the error pages and assets at the root)", () => {
  for (const [page, html] of docs) {
    if (!page.startsWith("v1/") || !page.endsWith(".html")) continue;
    for (const m of html.matchAll(/\s(?:href|src)="([^"]*)"/g)) {
      const file = fileOf(page, m[1]!.replace(/&amp;/g, "&"));
      if (file !== undefined) assert.ok(docs.has(file), `${page}: ${m[1]} resolves`);
    }
  }
  assert.match(docs.get("v1/resources/books.html")!, /src="\.\.\/\.\.\/assets\/search-index\.v1\.js"/);
  assert.ok(docs.get("assets/search-index.v1.js")!.includes("v1/resources/books.html"));
  for (const [page, md] of docs) {
    if (!page.startsWith("v1/") || !page.endsWith(".md")) continue;
    for (const m of md.matchAll(/\]\(([^)\s]+)\)/g)) {
      const file = fileOf(page, m[1]!);
      if (file !== undefined) assert.ok(docs.has(file), `${page}: ${m[1]} resolves`);
    }
  }
});

test("the changelog: per version what x-since added, x-renamed renamed (old → new), x-until removed, and the sunset", () => {
  const html = docs.get("changelog.html")!;
  const v2Section = /<section id="v2">([\s\S]*?)<\/section>/.exec(html)?.[1] ?? "";
  assert.match(v2Section, /Version 2 \(current\)/);
  assert.match(v2Section, /books<\/code><\/a>: renamed <code>name<\/code> → <code>title<\/code>/);
  assert.match(v2Section, /books<\/code><\/a>: added <code>isbn<\/code>/);
  assert.match(v2Section, /books<\/code><\/a>: removed <code>published<\/code>/);
  assert.match(v2Section, /Added the collection <a href="resources\/reviews\.html"><code>\/reviews<\/code><\/a>/);
  assert.match(html, /Version 1 \(deprecated, served until 2027-06-30\)/);
  assert.match(html, /<a href="openapi\.v1\.json"><code>openapi\.v1\.json<\/code><\/a>/);
  const md = docs.get("changelog.md")!;
  assert.match(md, /renamed `name` → `title`/);
  assert.match(md, /## Version 1 \(deprecated, served until 2027-06-30\)/);
  // Every link of the changelog resolves.
  for (const m of html.matchAll(/\shref="([^"]*)"/g)) {
    const file = fileOf("changelog.html", m[1]!);
    if (file !== undefined) assert.ok(docs.has(file), m[1]);
  }
  // The corpus case: a rename of a rename, and a name one property gave up and another took.
  const corpusLog = emitDocs(corpus).find((f) => f.path === "changelog.md")!.contents;
  assert.match(corpusLog, /## Version 2 \(served\)[\s\S]*renamed `name` → `heading`[\s\S]*## Version 1/);
  assert.match(corpusLog, /## Version 4 \(current\)[\s\S]*renamed `heading` → `title`[\s\S]*## Version 3/);
  assert.match(corpusLog, /## Version 3 \(served\)[\s\S]*added `name`[\s\S]*## Version 2/);
});

test("a service of one version: no version folders, switch, notice or changelog", () => {
  const one = emitDocs(modelOf(path.join(repoRoot, "examples/library")));
  assert.not.ok(one.some((f) => /^v\d+\/|^changelog\.|versions\.css|search-index\.v/.test(f.path)), one.map((f) => f.path).join(" "));
  const index = one.find((f) => f.path === "index.html")!.contents;
  assert.not.ok(index.includes('class="versions"') || index.includes("version-notice") || index.includes("changelog"));
});

// -------------------------------------------------------------------------------------------------
// generate --client-only --version N

test("generate --client-only --version 3 of a service that serves 1 and 2: unserved-version, nothing written", async () => {
  const out = path.join(tmp, "client-v3");
  const result = await generate(FIXTURE, { out, clientOnly: true, version: 3 });
  assert.is(result.written, false);
  const found = result.check.diagnostics.filter((d) => d.code === "unserved-version");
  assert.is(found.length, 1);
  assert.is(found[0]!.severity, "error");
  assert.match(found[0]!.message, /does not serve version 3 \(it serves 1, 2\)/);
  assert.not.ok(fs.existsSync(out));
});

test("generate --client-only (the current version): no property x-until took out of it", async () => {
  const result = await generate(FIXTURE, { out: path.join(tmp, "client-current"), clientOnly: true, dryRun: true });
  const types = result.plan?.steps.find((s) => "file" in s && s.file.path === "client/types.ts");
  const text = types && "file" in types && "contents" in types.file ? types.file.contents : "";
  assert.match(text, /\bisbn\?: string/);
  assert.match(text, /\btitle: string/);
  assert.not.match(text, /\bpublished\?/);
});

test("generate --client-only --version 1: a client of version 1's names that type-checks, and sends version 1's media types to its base URL", async () => {
  const out = path.join(tmp, "client-v1");
  const result = await generate(FIXTURE, { out, clientOnly: true, version: 1 });
  assert.is(result.written, true, result.check.diagnostics.map((d) => d.message).join("; "));
  const pkg = JSON.parse(fs.readFileSync(path.join(out, "package.json"), "utf8"));
  assert.is(pkg.name, "library-service-client-v1");
  assert.match(fs.readFileSync(path.join(out, "README.md"), "utf8"), /https:\/\/api\.example\.com\/v1/);
  // Version 1's names compile; version 2's do not (each @ts-expect-error must meet its error).
  fs.mkdirSync(path.join(out, "check"));
  fs.writeFileSync(
    path.join(out, "check", "use.ts"),
    [
      `import { createClient, version, type Book, type BookInput } from "../client/index.js";`,
      `const api = createClient({ baseUrl: "https://api.example.com/v1", auth: { bearer: "s" } });`,
      `export const v: 1 = version;`,
      `export const body: BookInput = { name: "Dune", pages: 412, published: 1965 };`,
      `export async function read(): Promise<string> {`,
      `  const one: Book = await api.books.get("id");`,
      `  const picked = await api.books.get("id", { fields: ["name", "published"] });`,
      `  return one.name + String(picked.published);`,
      `}`,
      `// @ts-expect-error title is version 2's name`,
      `export const renamed: BookInput = { title: "Dune", pages: 412 };`,
      `// @ts-expect-error isbn came in version 2`,
      `export const added: BookInput = { name: "Dune", pages: 412, isbn: "x" };`,
      `// @ts-expect-error version 1 has no reviews`,
      `export const reviews = api.reviews;`,
      `// @ts-expect-error fields takes version 1's names`,
      `export const wrong = () => api.books.get("id", { fields: ["title"] });`,
      "",
    ].join("\n"),
  );
  const tsconfig = JSON.parse(fs.readFileSync(path.join(out, "tsconfig.json"), "utf8"));
  tsconfig.include = [...(tsconfig.include ?? ["client"]), "check"];
  fs.writeFileSync(path.join(out, "tsconfig.json"), JSON.stringify(tsconfig));
  linkModules(out);
  const build = run(process.execPath, [path.join(repoRoot, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.json", "--pretty", "false"], out);
  assert.is(build.code, 0, build.output);
  // What it sends: version 1's vendor type in Accept, to the base URL it is given.
  const seen: { url: string; accept: string }[] = [];
  const server = http.createServer((req, res) => {
    seen.push({ url: req.url ?? "", accept: String(req.headers.accept) });
    res.writeHead(200, { "content-type": "application/vnd.acme.v1.book+json" }).end(JSON.stringify({ meta: { href: "x", mediaType: "application/vnd.acme.v1.book+json" }, id: "b1", name: "Dune", pages: 412 }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    const port = (server.address() as { port: number }).port;
    const client = await import(pathToFileURL(path.join(out, "dist/client/index.js")).href);
    const api = client.createClient({ baseUrl: `http://127.0.0.1:${port}/v1`, auth: { bearer: "s" } });
    const book = await api.books.get("b1");
    assert.is(book.name, "Dune");
    assert.is(seen[0]!.url, "/v1/books/b1");
    assert.match(seen[0]!.accept, /^application\/vnd\.acme\.v1\.book\+json/);
  } finally {
    server.close();
  }
});

// Last, so that Spectral has run meanwhile.
test("each older version's document: no Spectral errors (spectral:oas)", async () => {
  const results = await spectral;
  const errors = results.filter((r) => r.severity === 0);
  assert.equal(errors.map((r) => `${path.basename(r.source)}: ${r.code} at ${r.path.join(".")}: ${r.message}`), []);
});

test.run();
