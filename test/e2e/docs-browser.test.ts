/**
 * The library example's HTML reference in a real browser (headless Debian Chromium via playwright-core),
 * served by a tiny static server on 127.0.0.1: no console errors and no failed requests on any page, the
 * search box filters, links lead to the error pages (also as <errorDocsUrl>/<code>, whose folder page
 * redirects to <code>.html), and every internal link of every page answers 200. Also opened from file://,
 * where the search must work without a server.
 */
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { chromium, type Browser, type Page } from "playwright-core";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { emitHtmlReference } from "../../src/emit/docs/html.js";
import { emitMarkdownReference } from "../../src/emit/docs/markdown.js";
import { checkProject } from "../../src/pipeline.js";
import { repoRoot } from "../helpers/cli.js";

const CHROMIUM = "/usr/bin/chromium";
const ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"];
const TYPES: Record<string, string> = { ".html": "text/html; charset=utf-8", ".css": "text/css; charset=utf-8", ".js": "text/javascript; charset=utf-8", ".md": "text/markdown; charset=utf-8", ".json": "application/json" };

const available = fs.existsSync(CHROMIUM);
if (!available) console.log(`docs-browser: skipped, ${CHROMIUM} is absent (apt-get install -y chromium)`);
const browserTest = available ? test : test.skip;

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "resourcery-docs-browser-"));
const model = checkProject(path.join(repoRoot, "examples", "library")).model!;
const html = emitHtmlReference(model);
/** <code>/index.html only redirects to ../<code>.html: its own test follows it, the others visit the pages of the reference. */
const isRedirect = (file: string) => /^\d+\/index\.html$/.test(file);
const pages = html.filter((f) => f.path.endsWith(".html") && !isRedirect(f.path)).map((f) => f.path);
const codes = html.filter((f) => isRedirect(f.path)).map((f) => f.path.slice(0, -"/index.html".length));
let server: http.Server | undefined;
let browser: Browser | undefined;
let base = "";

/** Serves `tmp` like a static host: /dir redirects to /dir/, which serves /dir/index.html. */
function serve(root: string): Promise<http.Server> {
  const s = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const rel = path.normalize(decodeURIComponent(url.pathname)).replace(/^(\.\.[/\\])+/, "");
    let file = path.join(root, rel);
    if (!file.startsWith(root)) return void res.writeHead(403).end();
    if (fs.existsSync(file) && fs.statSync(file).isDirectory()) {
      if (!url.pathname.endsWith("/")) return void res.writeHead(301, { location: `${url.pathname}/` }).end();
      file = path.join(file, "index.html");
    }
    if (!fs.existsSync(file)) return void res.writeHead(404, { "content-type": "text/plain" }).end("not found");
    res.writeHead(200, { "content-type": TYPES[path.extname(file)] ?? "application/octet-stream" });
    res.end(req.method === "HEAD" ? undefined : fs.readFileSync(file));
  });
  return new Promise((resolve) => s.listen(0, "127.0.0.1", () => resolve(s)));
}

/** A page that records console errors, uncaught exceptions, failed requests and 4xx/5xx answers. */
async function open(): Promise<{ page: Page; problems: string[] }> {
  const page = await browser!.newPage();
  const problems: string[] = [];
  page.on("console", (m) => {
    if (m.type() === "error") problems.push(`console: ${m.text()}`);
  });
  page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
  page.on("requestfailed", (r) => problems.push(`failed: ${r.url()} ${r.failure()?.errorText ?? ""}`));
  page.on("response", (r) => {
    if (r.status() >= 400) problems.push(`${r.status()}: ${r.url()}`);
  });
  return { page, problems };
}

test.before(async () => {
  for (const f of [...html, ...emitMarkdownReference(model)]) {
    const p = path.join(tmp, f.path);
    fs.mkdirSync(path.dirname(p), { recursive: true });
    fs.writeFileSync(p, f.contents);
  }
  server = await serve(tmp);
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  if (available) browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
});

browserTest("index.html loads with its stylesheet and script, without console errors or failed requests", async () => {
  const { page, problems } = await open();
  const requests: string[] = [];
  page.on("request", (r) => requests.push(r.url()));
  await page.goto(`${base}/index.html`);
  await page.waitForLoadState("load");
  assert.is(await page.textContent("h1"), "Library API");
  assert.is(await page.evaluate(() => getComputedStyle(document.querySelector(".top")!).position), "sticky", "style.css applied");
  assert.ok(await page.evaluate(() => Array.isArray((window as unknown as { resourcerySearchIndex?: unknown }).resourcerySearchIndex)), "search index loaded");
  assert.ok(requests.every((u) => u.startsWith(base)), `only local requests: ${requests.join(", ")}`);
  assert.equal(problems, []);
  await page.close();
});

browserTest("the search box filters the index as you type; Enter opens the first hit", async () => {
  const { page, problems } = await open();
  await page.goto(`${base}/resources/books.html`);
  assert.ok(await page.isHidden("#search-panel"));
  const results = page.locator("#search-results li");
  await page.fill("#search", "book");
  const broad = await results.count();
  assert.ok(broad > 3, `"book" finds ${broad}`);
  await page.fill("#search", "book isbn");
  const narrow = await results.allTextContents();
  assert.ok(narrow.length > 0 && narrow.length < broad, `"book isbn" narrows ${broad} to ${narrow.length}`);
  assert.ok(narrow.every((t) => /isbn/i.test(t)), narrow.join(" | "));
  await page.fill("#search", "zzzz-nothing");
  assert.is(await results.count(), 0);
  assert.match((await page.textContent("#search-status")) ?? "", "No results");
  await page.fill("#search", "40900");
  assert.match((await results.first().textContent()) ?? "", "40900 Conflict");
  await Promise.all([page.waitForURL(/\/40900\.html$/), page.press("#search", "Enter")]);
  assert.match((await page.textContent("h1")) ?? "", "40900");
  await page.fill("#search", "");
  assert.ok(await page.isHidden("#search-panel"));
  assert.equal(problems, []);
  await page.close();
});

browserTest("a link leads to an error page, and <errorDocsUrl>/<code> resolves to the same page", async () => {
  const { page, problems } = await open();
  await page.goto(`${base}/resources/authors.html`);
  await Promise.all([page.waitForURL(/\/40900\.html$/), page.click("#op-createAuthor .error-list a[href$='40900.html']")]);
  assert.match((await page.textContent("h1")) ?? "", "40900");
  assert.match((await page.textContent("#example")) ?? "", '"info": "http://localhost:3000/docs/errors/40900"');
  // Hosted at errorDocsUrl, <errorDocsUrl>/40900 is the folder 40900/, whose index.html sends the browser on to 40900.html.
  const answer = await page.goto(`${base}/40900`, { waitUntil: "commit" });
  assert.ok(answer?.url().endsWith("/40900/"), answer?.url());
  assert.is(answer?.status(), 200);
  await page.waitForURL(/\/40900\.html$/);
  assert.match((await page.textContent("h1")) ?? "", "40900 Conflict");
  await Promise.all([page.waitForURL(/\/index\.html#errors$/), page.click(".crumbs a[href$='#errors']")]);
  assert.ok(await page.isVisible("#errors"));
  // So does every other code.
  assert.ok(codes.length > 10, `${codes.length} codes`);
  for (const code of codes) {
    await page.goto(`${base}/${code}`, { waitUntil: "commit" });
    await page.waitForURL(new RegExp(`/${code}\\.html$`));
    assert.match((await page.textContent("h1")) ?? "", code);
  }
  assert.equal(problems, []);
  await page.close();
});

browserTest("every page loads cleanly and every internal link on it answers 200", async () => {
  const links = new Map<string, string>();
  const anchors: { url: string; id: string; from: string }[] = [];
  const ids = new Map<string, Set<string>>();
  const problems: string[] = [];
  const queue = [...pages];
  // Two tabs at a time: each records its own problems and takes the next page until none is left.
  const worker = async () => {
    const tab = await open();
    for (let p = queue.shift(); p !== undefined; p = queue.shift()) {
      const url = `${base}/${p}`;
      await tab.page.goto(url);
      const seen = await tab.page.evaluate(() => ({
        ids: [...document.querySelectorAll("[id]")].map((e) => e.id),
        refs: [...document.querySelectorAll("a[href], link[href], script[src], img[src]")].map((e) => (e as HTMLAnchorElement).href || (e as HTMLScriptElement).src),
      }));
      ids.set(url, new Set(seen.ids));
      for (const href of seen.refs) {
        if (href.startsWith("data:")) continue;
        const u = new URL(href);
        assert.is(u.origin, base, `${p} links outside: ${href}`);
        const target = `${u.origin}${u.pathname}`;
        if (!links.has(target)) links.set(target, p);
        if (u.hash) anchors.push({ url: target, id: decodeURIComponent(u.hash.slice(1)), from: p });
      }
    }
    problems.push(...tab.problems);
    await tab.page.close();
  };
  await Promise.all([worker(), worker()]);
  assert.equal(problems, [], "no console errors or failed requests on any page");
  assert.is(ids.size, pages.length, "every page visited");
  const bad: string[] = [];
  for (const [url, from] of links) {
    const answer = await fetch(url, { method: "HEAD" });
    if (answer.status !== 200) bad.push(`${from} → ${url}: ${answer.status}`);
  }
  for (const a of anchors) {
    if (!ids.get(a.url)?.has(a.id)) bad.push(`${a.from} → ${a.url}#${a.id}: no such id`);
  }
  assert.equal(bad, []);
  assert.ok(links.size >= pages.length, `${links.size} distinct links checked`);
});

browserTest("opened from file://, an error's folder page leads to its page, and the search still works", async () => {
  const { page, problems } = await open();
  await page.goto(pathToFileURL(path.join(tmp, "40900", "index.html")).href, { waitUntil: "commit" });
  await page.waitForURL(/\/40900\.html$/);
  assert.match((await page.textContent("h1")) ?? "", "40900 Conflict");
  // From a page in a folder, the search's links lead up and back down.
  await page.goto(pathToFileURL(path.join(tmp, "resources", "books.html")).href);
  await page.fill("#search", "authors");
  const first = page.locator("#search-results a").first();
  assert.match((await first.getAttribute("href")) ?? "", /^\.\.\/resources\/authors\.html/);
  await Promise.all([page.waitForURL(/resources\/authors\.html/), first.click()]);
  assert.match((await page.textContent("h1")) ?? "", "Author");
  assert.equal(problems, []);
  await page.close();
});

test.after(async () => {
  await browser?.close();
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  fs.rmSync(tmp, { recursive: true, force: true });
});

test.run();
