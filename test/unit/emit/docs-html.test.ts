/** The HTML reference and its Markdown twin: every link resolves, nothing is fetched from elsewhere, every error code has its pages, user text is escaped. */
import fs from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import Handlebars from "handlebars";
import { emitHtmlReference, NAV_LIMIT, NAV_NEIGHBOURS } from "../../../src/emit/docs/html.js";
import { codeBlock, codeSpan, emitMarkdownReference, escapeMd } from "../../../src/emit/docs/markdown.js";
import { operationsOf } from "../../../src/emit/docs/operations.js";
import type { EmittedFile } from "../../../src/emit/emitted-file.js";
import { precompiledTemplatesModule, templateFingerprint, templateOf, templateOptions, type PrecompiledTemplate } from "../../../src/emit/shared/templates.js";
import type { Model } from "../../../src/model/types.js";
import { checkProject } from "../../../src/pipeline.js";
import { repoRoot } from "../../helpers/cli.js";

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', "#x27": "'", "#x3D": "=", "#x60": "`", "#39": "'" };
const decode = (s: string) => s.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (m, e: string) => ENTITIES[e] ?? m);

/** [tag, attribute, value] of every href and src in an HTML text. */
function references(html: string): [string, string, string][] {
  const out: [string, string, string][] = [];
  for (const tag of html.matchAll(/<([a-z][a-z0-9]*)\b([^>]*)>/gi)) {
    for (const attr of tag[2]!.matchAll(/\s(href|src)="([^"]*)"/gi)) out.push([tag[1]!.toLowerCase(), attr[1]!.toLowerCase(), decode(attr[2]!)]);
  }
  return out;
}

/** <code>/index.html: the small page that redirects to ../<code>.html (every other page is a whole page of the reference). */
const isRedirect = (file: string) => /^\d+\/index\.html$/.test(file);

const idsOf = (html: string) => new Set([...html.matchAll(/\sid="([^"]*)"/g)].map((m) => decode(m[1]!)));

/** Resolves a relative URL of `from` to [file, anchor], or undefined when it is not a relative URL. */
function resolve(from: string, url: string): [string, string] | undefined {
  if (/^[a-z][a-z0-9+.-]*:|^\/\//i.test(url)) return undefined;
  const [pathPart, anchor = ""] = url.split("#") as [string, string?];
  const file = pathPart === "" ? from : path.posix.normalize(path.posix.join(path.posix.dirname(from), decodeURIComponent(pathPart)));
  return [file, decodeURIComponent(anchor)];
}

function byPath(files: readonly EmittedFile[]): Map<string, string> {
  return new Map(files.map((f) => [f.path, f.contents]));
}

/** Internal hrefs and srcs of the HTML pages that name no emitted file or no id in it. */
function brokenLinks(files: ReadonlyMap<string, string>): { broken: string[]; count: number } {
  const broken: string[] = [];
  let count = 0;
  for (const [file, contents] of files) {
    if (!file.endsWith(".html")) continue;
    for (const [tag, attr, url] of references(contents)) {
      const to = resolve(file, url);
      if (!to) continue;
      count++;
      const target = files.get(to[0]);
      if (target === undefined) broken.push(`${file}: <${tag} ${attr}="${url}"> → no file ${to[0]}`);
      else if (to[1] && !idsOf(target).has(to[1])) broken.push(`${file}: <${tag} ${attr}="${url}"> → no id "${to[1]}" in ${to[0]}`);
    }
  }
  return { broken, count };
}

/** The links of the side navigation's resource list of a page: [href, label, current]. */
function navOf(html: string): [string, string, boolean][] {
  const list = /<p class="side-title">Resources<\/p>\n  <ul>\n([\s\S]*?)  <\/ul>/.exec(html);
  assert.ok(list, "the page has the resource navigation");
  return [...list[1]!.matchAll(/<li><a href="([^"]*)"( aria-current="page")?>([^<]*)<\/a><\/li>/g)].map((m) => [decode(m[1]!), decode(m[3]!), m[2] !== undefined]);
}

const examples = fs.readdirSync(path.join(repoRoot, "examples")).sort();
const models = new Map<string, Model>();
const modelOf = (example: string): Model => {
  let model = models.get(example);
  if (!model) {
    model = checkProject(path.join(repoRoot, "examples", example)).model!;
    assert.ok(model, `${example} builds a model`);
    models.set(example, model);
  }
  return model;
};

for (const example of examples) {
  test(`${example}: every internal href and src of every HTML page resolves to an emitted file and anchor`, () => {
    const { broken, count } = brokenLinks(byPath(emitHtmlReference(modelOf(example))));
    assert.ok(count > 100, `checked ${count} links`);
    assert.equal(broken, []);
  });

  test(`${example}: the side navigation of every page lists every resource, the current one marked`, () => {
    const model = modelOf(example);
    const files = byPath(emitHtmlReference(model));
    for (const [file, contents] of files) {
      if (!file.endsWith(".html") || isRedirect(file)) continue;
      const nav = navOf(contents);
      assert.equal(nav.map(([href, label]) => [resolve(file, href)![0], label]), model.resources.map((r) => [`resources/${r.collection}.html`, r.collection]), file);
      assert.equal(nav.filter(([, , current]) => current).map(([, label]) => `resources/${label}.html`), file.startsWith("resources/") ? [file] : [], file);
    }
  });

  test(`${example}: no page loads anything from the network; the search index links resolve`, () => {
    const files = byPath(emitHtmlReference(modelOf(example)));
    for (const [file, contents] of files) {
      if (!file.endsWith(".html")) continue;
      for (const [tag, attr, url] of references(contents)) {
        if (["link", "script", "img"].includes(tag)) assert.not.match(url, /^(https?:)?\/\//i, `${file}: <${tag} ${attr}="${url}">`);
      }
      assert.not.match(contents, /@import|url\(\s*["']?https?:/i, file);
      if (isRedirect(file)) continue;
      assert.ok(contents.includes('<link rel="stylesheet" href="') && contents.includes("assets/search.js"), `${file} has the stylesheet and the search script`);
      assert.ok(contents.includes('id="search"'), `${file} has the search box`);
    }
    for (const asset of ["assets/style.css", "assets/search.js"]) {
      assert.not.match(files.get(asset)!, /https?:\/\//, asset);
      assert.not.match(files.get(asset)!, /\bfetch\(|XMLHttpRequest|import\(/, asset);
    }
    const script = files.get("assets/search-index.js")!;
    const index = JSON.parse(script.slice(script.indexOf("=") + 1).trim().replace(/;$/, "")) as { kind: string; title: string; href: string }[];
    const kinds = new Set(index.map((e) => e.kind));
    for (const kind of ["resource", "field", "operation", "error"]) assert.ok(kinds.has(kind), `the index has ${kind} entries`);
    for (const entry of index) {
      const [file, anchor] = resolve("index.html", entry.href)!;
      assert.ok(files.has(file), `${entry.title}: ${entry.href}`);
      if (anchor) assert.ok(idsOf(files.get(file)!).has(anchor), `${entry.title}: ${entry.href}`);
    }
  });

  test(`${example}: every error code has <code>.html and <code>.md, and <code>/index.html redirects to <code>.html`, () => {
    const model = modelOf(example);
    const html = byPath(emitHtmlReference(model));
    const md = byPath(emitMarkdownReference(model));
    for (const e of model.errors) {
      const flat = html.get(`${e.code}.html`);
      const dir = html.get(`${e.code}/index.html`);
      assert.ok(flat && dir && md.has(`${e.code}.md`), `pages of ${e.code}`);
      // The folder's page sends the browser on at once, names the page as canonical, and links it for a reader.
      const to = `../${e.code}.html`;
      assert.ok(dir!.includes(`<meta http-equiv="refresh" content="0; url=${to}">`), `${e.code}/index.html refreshes to ${to}`);
      assert.ok(dir!.includes(`<link rel="canonical" href="${to}">`), `${e.code}/index.html names ${to} as canonical`);
      assert.ok(dir!.includes(`<a href="${to}">${e.code} `), `${e.code}/index.html links ${to}`);
      assert.is(resolve(`${e.code}/index.html`, to)![0], `${e.code}.html`);
      assert.not.match(dir!, /<script\b/, `${e.code}/index.html runs no script`);
      assert.ok(dir!.length < 1000, `${e.code}/index.html is small: ${dir!.length} bytes`);
      for (const text of [String(e.code), String(e.status), e.info]) assert.ok(flat!.includes(text), `${e.code}.html shows ${text}`);
      assert.ok(md.get(`${e.code}.md`)!.includes(`"info": "${e.info}"`));
    }
    const pages = [...html.keys()].filter((p) => /^\d+\.html$/.test(p)).map((p) => Number(p.slice(0, -5)));
    assert.equal(pages.sort((a, b) => a - b), model.errors.map((e) => e.code));
    assert.equal([...html.keys()].filter(isRedirect).sort(), model.errors.map((e) => `${e.code}/index.html`).sort());
  });

  test(`${example}: an error page says when every operation can answer with it, else lists them by resource`, () => {
    const model = modelOf(example);
    const html = byPath(emitHtmlReference(model));
    const md = byPath(emitMarkdownReference(model));
    const ops = operationsOf(model);
    const anchor = (id: string) => `op-${id}`;
    let every = 0;
    let listed = 0;
    for (const e of model.errors) {
      const page = html.get(`${e.code}.html`)!;
      const twin = md.get(`${e.code}.md`)!;
      const answering = ops.filter((o) => o.errors.includes(e.key));
      const list = /<ul class="op-list">\n([\s\S]*?)<\/ul>/.exec(page);
      const mdList = /Operations that can answer with it:\n\n((?:- .*\n)+)/.exec(twin);
      if (answering.length === ops.length) {
        every++;
        assert.ok(page.includes("<p>Every operation can answer with it.</p>"), `${e.code}.html`);
        assert.ok(twin.includes("\nEvery operation can answer with it.\n"), `${e.code}.md`);
        assert.not.ok(list || mdList, `${e.code}: no list`);
        continue;
      }
      assert.not.ok(page.includes("Every operation can") || twin.includes("Every operation can"), `${e.code}`);
      if (answering.length === 0) {
        assert.not.ok(list || mdList, `${e.code}: no list`);
        continue;
      }
      listed++;
      // One line per resource (or for the actions), in the order of the operations, each operation once.
      const groups = [...new Set(answering.map((o) => (o.kind === "action" ? "actions" : `resources/${o.tag}`)))];
      const lines = [...list![1]!.matchAll(/  <li>(.*)<\/li>\n/g)].map((m) => m[1]!);
      const mdLines = mdList![1]!.trimEnd().split("\n");
      assert.is(lines.length, groups.length, `${e.code}.html: a line per resource`);
      assert.is(mdLines.length, groups.length, `${e.code}.md: a line per resource`);
      for (const [i, group] of groups.entries()) {
        const expected = answering.filter((o) => (o.kind === "action" ? "actions" : `resources/${o.tag}`) === group);
        const label = (o: (typeof ops)[number]) => (o.kind === "action" ? `${o.method} ${o.path}` : `${o.method} ${o.path.slice(o.tag.length + 1)}`.trim());
        const links = [...lines[i]!.matchAll(/<a href="([^"]*)">(?:<code>)?([^<]*)(?:<\/code>)?<\/a>/g)].map((m) => [decode(m[1]!), decode(m[2]!)]);
        assert.equal(links[0], [`${group}.html`, group === "actions" ? "Actions" : `/${expected[0]!.tag}`], `${e.code}.html: ${group} first`);
        assert.equal(links.slice(1), expected.map((o) => [`${group}.html#${anchor(o.id)}`, label(o)]), `${e.code}.html: ${group}`);
        const mdLinks = [...mdLines[i]!.matchAll(/\[`?([^\]`]*)`?\]\(([^)]*)\)/g)].map((m) => [m[2]!, m[1]!]);
        assert.equal(mdLinks, [[`${group}.md`, links[0]![1]], ...expected.map((o) => [`${group}.md#${anchor(o.id)}`, label(o)])], `${e.code}.md: ${group}`);
      }
    }
    assert.ok(every > 0 && listed > 0, `${every} codes every operation can answer with, ${listed} listed`);
  });

  test(`${example}: the Markdown twin has the same pages and its links resolve`, () => {
    const model = modelOf(example);
    const html = byPath(emitHtmlReference(model));
    const md = byPath(emitMarkdownReference(model));
    const twins = [...html.keys()].filter((p) => p.endsWith(".html") && !p.endsWith("/index.html")).map((p) => p.replace(/\.html$/, ".md"));
    assert.equal([...md.keys()].sort(), twins.sort());
    const broken: string[] = [];
    for (const [file, contents] of md) {
      const ids = (f: string) => new Set([...md.get(f)!.matchAll(/<a id="([^"]*)"><\/a>/g)].map((m) => m[1]!));
      for (const m of contents.matchAll(/\]\(([^)\s]+)\)/g)) {
        const to = resolve(file, m[1]!);
        if (!to) continue;
        if (!md.has(to[0])) broken.push(`${file}: ${m[1]} → no file ${to[0]}`);
        else if (to[1] && !ids(to[0]).has(to[1])) broken.push(`${file}: ${m[1]} → no anchor ${to[1]}`);
      }
    }
    assert.equal(broken, []);
  });
}

test("every resource page documents its fields and every operation of its collection", () => {
  const model = modelOf("library");
  const files = byPath(emitHtmlReference(model));
  const books = files.get("resources/books.html")!;
  for (const id of ["field-title", "field-author", "op-listBooks", "op-createBook", "op-getBook", "op-updateBook", "op-replaceBook", "op-deleteBook"]) assert.ok(idsOf(books).has(id), id);
  assert.ok(books.includes("curl "), "curl example");
  assert.ok(books.includes("await api.books.create("), "client example");
  assert.ok(books.includes("application/vnd.library.v2.book+json"));
  assert.ok(idsOf(files.get("resources/authors.html")!).has("op-listAuthorBooks"));
  const index = files.get("index.html")!;
  for (const rule of ["R1", "R2", "R3", "E1", "E2", "E3", "A1", "A2", "A3", "A4", "A5", "A6", "V1", "V2", "V3"]) assert.match(index, new RegExp(`\\b${rule}\\b`), rule);
  for (const m of model.mediaTypes) assert.ok(index.includes(m.name) && index.includes(m.alias), m.name);
  assert.ok(files.get("actions.html")!.includes("await api.lookup("));
});

test("a nested object's fields are rows of the resource page, named by their path, in the HTML and the Markdown", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "resourcery-docs-nested-"));
  try {
    fs.mkdirSync(path.join(dir, "resources"));
    const service = { name: "people-service", title: "People", vendor: "acme", version: 1, baseUrl: "https://api.acme.example/v1", errorDocsUrl: "https://docs.acme.example/errors", resources: ["resources/*.json"], auth: { schemes: ["apiKey"] } };
    const person = {
      title: "Person",
      type: "object",
      "x-collection": "people",
      additionalProperties: false,
      properties: {
        name: { type: "string" },
        address: {
          type: "object",
          description: "Where the person lives.",
          required: ["city"],
          properties: {
            city: { type: "string", description: "The city's name.", minLength: 1 },
            geo: { type: "object", properties: { lat: { type: "number", minimum: -90 } } },
          },
        },
        lines: { type: "array", items: { type: "object", properties: { sku: { type: "string", description: "Stock keeping unit." } } } },
      },
    };
    fs.writeFileSync(path.join(dir, "service.json"), JSON.stringify(service));
    fs.writeFileSync(path.join(dir, "resources/person.json"), JSON.stringify(person));
    const model = checkProject(dir).model;
    assert.ok(model);
    const html = byPath(emitHtmlReference(model)).get("resources/people.html")!;
    const row = (name: string) => new RegExp(`<tr id="field-[^"]*"><td><code>${name.replace(/[.[\]]/g, "\\$&")}</code></td><td>([^<]*)</td><td>(?:<strong>)?(yes|no)(?:</strong>)?</td><td>(.*?)</td><td>(.*?)</td></tr>`).exec(html);
    const city = row("address.city");
    assert.ok(city, "a row for address.city");
    assert.equal([city![1], city![2]], ["string", "yes"]);
    assert.match(city![3]!, /The city&#x27;s name\.|The city's name\./);
    assert.match(city![4]!, /at least 1 character/);
    assert.equal([row("address.geo")?.[1], row("address.geo")?.[2]], ["object", "no"]);
    assert.match(row("address.geo.lat")?.[4] ?? "", /-90/);
    assert.match(row("lines[].sku")?.[3] ?? "", /Stock keeping unit/);
    // nested rows follow their parent
    const order = ["address", "address.city", "address.geo", "address.geo.lat", "lines", "lines[].sku"].map((n) => html.indexOf(`<code>${n}</code></td>`));
    assert.ok(order.every((i) => i > 0), JSON.stringify(order));
    assert.equal(order, [...order].sort((a, b) => a - b));
    for (const id of ["field-address.2ecity", "field-address.2egeo.2elat"]) assert.ok(idsOf(html).has(id), id);
    const md = byPath(emitMarkdownReference(model)).get("resources/people.md")!;
    for (const n of ["address.city", "address.geo.lat", "lines[].sku"]) assert.ok(md.includes(n), `${n} in the Markdown`);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test("a shared schema's fields are listed once per page, where first met; its other uses (and a loop back to it) say where", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "resourcery-docs-shared-"));
  try {
    fs.mkdirSync(path.join(dir, "resources"));
    const service = { name: "people-service", title: "People", vendor: "acme", version: 1, baseUrl: "https://api.acme.example/v1", errorDocsUrl: "https://docs.acme.example/errors", resources: ["resources/*.json"], auth: { schemes: ["apiKey"] } };
    const address = { type: "object", required: ["city"], properties: { city: { type: "string", description: "The city's name." }, previous: { $ref: "address.json" } } };
    const person = {
      title: "Person",
      type: "object",
      "x-collection": "people",
      additionalProperties: false,
      properties: { home: { $ref: "../address.json" }, work: { $ref: "../address.json" }, past: { type: "array", items: { $ref: "../address.json" } } },
    };
    fs.writeFileSync(path.join(dir, "service.json"), JSON.stringify(service));
    fs.writeFileSync(path.join(dir, "address.json"), JSON.stringify(address));
    fs.writeFileSync(path.join(dir, "resources/person.json"), JSON.stringify(person));
    const model = checkProject(dir).model;
    assert.ok(model);
    assert.equal(model.schemas.map((x) => x.name), ["Address"]);
    const html = byPath(emitHtmlReference(model)).get("resources/people.html")!;
    const rows = [...html.matchAll(/<tr id="field-[^"]*"><td><code>([^<]*)<\/code><\/td>.*?<\/tr>/g)].map((m) => [m[1]!, m[0]] as const);
    const names = rows.map(([n]) => n);
    for (const n of ["home", "home.city", "home.previous", "work", "past"]) assert.ok(names.includes(n), `${n} in ${names.join(", ")}`);
    for (const n of ["home.previous.city", "work.city", "past[].city"]) assert.not.ok(names.includes(n), `${n} is not listed again`);
    for (const n of ["home.previous", "work", "past"]) assert.match(rows.find(([x]) => x === n)![1], /its fields are those of <code>home<\/code>/, n);
    const md = byPath(emitMarkdownReference(model)).get("resources/people.md")!;
    assert.ok(md.includes("home.city") && !md.includes("work.city"));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test("user text is escaped in every HTML page and in the Markdown", () => {
  const evil = "<script>alert(1)</script>";
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "resourcery-docs-"));
  try {
    fs.mkdirSync(path.join(dir, "resources"));
    const service = {
      name: "evil-service",
      title: `Evil ${evil} API`,
      description: `Says ${evil} & "quotes" in 'places'.`,
      vendor: "evil",
      version: 1,
      baseUrl: "https://api.evil.example/v1",
      errorDocsUrl: "https://docs.evil.example/errors",
      resources: ["resources/*.json"],
      auth: { schemes: ["apiKey"] },
      errors: [{ code: 1001, status: 422, key: "evilError", title: `Evil ${evil}`, message: `Message ${evil}`, dev: `Dev ${evil}` }],
    };
    const note = {
      title: "Note",
      description: `A note ${evil}`,
      type: "object",
      "x-collection": "notes",
      required: ["text"],
      additionalProperties: false,
      properties: {
        text: { type: "string", description: `Text ${evil}`, pattern: "^<img src=x onerror=alert(2)>" },
        tone: { type: "string", enum: ["<b>loud</b>", "calm"] },
      },
    };
    fs.writeFileSync(path.join(dir, "service.json"), JSON.stringify(service));
    fs.writeFileSync(path.join(dir, "resources/note.json"), JSON.stringify(note));
    const model = checkProject(dir).model;
    assert.ok(model);
    const html = byPath(emitHtmlReference(model));
    for (const [file, contents] of html) {
      if (!file.endsWith(".html")) continue;
      assert.not.ok(contents.includes(evil), `${file} has the raw script`);
      assert.not.ok(/<img src=x|<b>loud/.test(contents), `${file} has raw markup from the schema`);
      assert.is(contents.match(/<script\b/g)?.length ?? 0, isRedirect(file) ? 0 : 2, `${file}: only the two script tags of the reference`);
    }
    const escaped = "&lt;script&gt;alert(1)&lt;/script&gt;";
    for (const file of ["index.html", "resources/notes.html", "1001.html", "1001/index.html"]) assert.ok(html.get(file)!.includes(escaped), `${file} shows the text escaped`);
    assert.ok(html.get("resources/notes.html")!.includes("&lt;img src&#x3D;x onerror&#x3D;alert(2)&gt;"));
    const md = byPath(emitMarkdownReference(model));
    for (const [file, contents] of md) {
      const prose = contents.replace(/```[\s\S]*?```/g, "").replace(/`[^`]*`/g, "");
      assert.not.match(prose, /(?<!\\)<(script|img|b>)/, `${file} has raw HTML outside code`);
    }
    assert.ok(md.get("index.md")!.includes("\\<script\\>alert(1)\\</script\\>"));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test(`beyond ${NAV_LIMIT} resources, the side navigation links the full list and lists the current resource's neighbours`, () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "resourcery-docs-nav-"));
  try {
    fs.mkdirSync(path.join(dir, "resources"));
    const service = { name: "big-service", title: "Big", vendor: "big", version: 1, baseUrl: "https://api.big.example/v1", errorDocsUrl: "https://docs.big.example/errors", resources: ["resources/*.json"], auth: { schemes: ["apiKey"] } };
    fs.writeFileSync(path.join(dir, "service.json"), JSON.stringify(service));
    for (let i = 0; i <= NAV_LIMIT; i++) {
      const thing = { title: `Thing ${i}`, type: "object", "x-collection": `things${i}`, additionalProperties: false, properties: { label: { type: "string" } } };
      fs.writeFileSync(path.join(dir, `resources/thing${i}.json`), JSON.stringify(thing));
    }
    const model = checkProject(dir).model;
    assert.ok(model);
    const pages = model.resources.map((r) => `resources/${r.collection}.html`);
    assert.is(pages.length, NAV_LIMIT + 1);
    const files = byPath(emitHtmlReference(model));
    assert.equal(brokenLinks(files).broken, []);
    const all: [string, string, boolean] = ["index.html#resources", `All ${pages.length} resources`, false];
    const at = (file: string) => navOf(files.get(file)!).map(([href, label, current]): [string, string, boolean] => [resolve(file, href)!.join("#").replace(/#$/, ""), label, current]);
    for (const file of ["index.html", "actions.html", `${model.errors[0]!.code}.html`]) assert.equal(at(file), [all], file);
    for (const [i, file] of pages.entries()) {
      const near = pages.slice(Math.max(0, i - NAV_NEIGHBOURS), i + NAV_NEIGHBOURS + 1);
      assert.equal(at(file), [all, ...near.map((p): [string, string, boolean] => [p, p.slice("resources/".length, -".html".length), p === file])], file);
    }
    // The full list the navigation links to: every resource page.
    const index = files.get("index.html")!;
    const section = index.slice(index.indexOf('<section id="resources">'), index.indexOf('<section id="actions">'));
    for (const p of pages) assert.ok(section.includes(`href="${p}"`), p);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test("precompiled templates: the build's module holds every template of templates/, each used only while its source is unchanged", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "resourcery-templates-"));
  try {
    const file = path.join(dir, "templates.precompiled.cjs");
    fs.writeFileSync(file, precompiledTemplatesModule());
    const built = createRequire(import.meta.url)(file) as Record<string, PrecompiledTemplate>;
    const root = path.join(repoRoot, "templates");
    const names = (fs.readdirSync(root, { recursive: true }) as string[]).map((n) => n.split(path.sep).join("/")).filter((n) => n.endsWith(".hbs")).sort();
    assert.ok(names.some((n) => n.startsWith("docs/")) && names.some((n) => n.startsWith("package/")), names.join(" "));
    assert.equal(Object.keys(built), names);
    for (const name of names) {
      const source = fs.readFileSync(path.join(root, name), "utf8");
      assert.is(built[name]!.fingerprint, templateFingerprint(source, templateOptions(name)), name);
    }
    // The precompiled template renders as the compiled one, escaping included.
    const name = "docs/layout-foot.html.hbs";
    const source = fs.readFileSync(path.join(root, name), "utf8");
    const data = { serviceTitle: "A <b> & 'B'", version: 2, root: "../", searchIndex: "assets/search-index.js" };
    assert.is(templateOf(name, source, built[name]!)(data), templateOf(name, source, undefined)(data));
    // A spec is used when its fingerprint is that of the source ...
    const spec = (other: string) => new Function(`return ${Handlebars.precompile(other, templateOptions(name)) as unknown as string}`)() as PrecompiledTemplate["spec"];
    const marked = { fingerprint: templateFingerprint(source, templateOptions(name)), spec: spec("precompiled {{serviceTitle}}") };
    assert.is(templateOf(name, source, marked)(data), "precompiled A &lt;b&gt; &amp; &#x27;B&#x27;");
    // ... and never for an edited source: that one is compiled.
    assert.is(templateOf(name, "edited {{serviceTitle}}", marked)(data), "edited A &lt;b&gt; &amp; &#x27;B&#x27;");
    // ... nor for the same source under other options (a Markdown template does not escape).
    const md = "docs/layout-foot.md.hbs";
    assert.is(templateOf(md, source, marked)(data), Handlebars.compile(source, templateOptions(md))(data));
    assert.ok(templateOf(md, source, marked)(data).includes("A <b> & 'B'"));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test("Markdown escaping: punctuation, code spans and fences hold any text", () => {
  assert.is(escapeMd("a <b> | *c* [d](e) &amp; _f_"), "a \\<b\\> \\| \\*c\\* \\[d\\](e) \\&amp; \\_f\\_");
  assert.is(escapeMd("# not a heading\n1. not a list"), "\\# not a heading 1. not a list");
  assert.is(escapeMd("1. first"), "1\\. first");
  assert.is(codeSpan("a`b"), "``a`b``");
  assert.is(codeSpan("`x`"), "`` `x` ``");
  assert.is(codeBlock("```\ninside\n```", "md"), "````md\n```\ninside\n```\n````");
});

test.run();
