/**
 * Incremental generation (CONTRACT §5): a regeneration leaves unrendered the files whose key (emit/keys.ts)
 * and bytes on disk are as the last generation recorded them, and its output is byte for byte that of a
 * generation that renders everything (`--force`). Checked on a chain of random edits of a synthetic API — the
 * kinds of change users make every day, each kind touching other parts of the model — from a random seed
 * (printed; RESOURCERY_TEST_SEED=<n> replays one).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { runCli } from "../helpers/cli.js";

type Json = Record<string, any>;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "resourcery-incremental-"));
const defs = path.join(tmp, "defs");
const incremental = path.join(tmp, "incremental");
const full = path.join(tmp, "full");
const seed = Number(process.env.RESOURCERY_TEST_SEED ?? Math.floor(Math.random() * 2 ** 31));
const STEPS = 4;

/** mulberry32: a small seeded generator, so that a failing chain of edits can be replayed. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const rand = random(seed);
const pick = <T>(items: readonly T[]): T => items[Math.floor(rand() * items.length)]!;

const NOUNS = ["widget", "gadget", "order", "invoice", "customer", "product", "vendor", "shipment", "ticket", "project", "parcel", "route"];
const resourceFile = (noun: string) => path.join(defs, "resources", `${noun}.json`);
const readJson = (file: string): Json => JSON.parse(fs.readFileSync(file, "utf8"));
const writeJson = (file: string, value: unknown) => fs.writeFileSync(file, JSON.stringify(value, null, 2) + "\n");
const nouns = () => fs.readdirSync(path.join(defs, "resources")).map((f) => f.replace(/\.json$/, "")).sort();

function resource(noun: string, linksTo?: string): Json {
  return {
    type: "object",
    "x-collection": `${noun}s`,
    "x-unique": ["code"],
    required: ["name", "code"],
    additionalProperties: false,
    properties: {
      name: { type: "string", minLength: 1, maxLength: 100, description: `Name of the ${noun}.` },
      code: { type: "string", pattern: "^[A-Z]{3}-[0-9]{4}$" },
      quantity: { type: "integer", minimum: 0 },
      status: { type: "string", enum: ["draft", "active", "archived"] },
      ...(linksTo ? { parent: { $ref: `${linksTo}.json` } } : {}),
    },
  };
}

/** The edits: each a change users make, applied to the definitions; the name says what it did. */
const edits: (() => string)[] = [
  () => {
    const noun = pick(nouns());
    const r = readJson(resourceFile(noun));
    r.properties.name.description = `Name of the ${noun}, edited ${Math.floor(rand() * 1000)}.`;
    writeJson(resourceFile(noun), r);
    return `description of ${noun}.name`;
  },
  () => {
    const noun = pick(nouns());
    const r = readJson(resourceFile(noun));
    const name = `note${Math.floor(rand() * 100)}`;
    r.properties[name] = { type: "string", maxLength: 200, description: "A note." };
    writeJson(resourceFile(noun), r);
    return `property ${noun}.${name} added`;
  },
  () => {
    const noun = pick(nouns());
    const r = readJson(resourceFile(noun));
    delete r.properties.quantity;
    writeJson(resourceFile(noun), r);
    return `property ${noun}.quantity removed`;
  },
  () => {
    const noun = pick(nouns());
    const r = readJson(resourceFile(noun));
    r.title = `${noun[0]!.toUpperCase()}${noun.slice(1)} item`;
    writeJson(resourceFile(noun), r);
    return `title of ${noun}`;
  },
  () => {
    const taken = new Set(nouns());
    const noun = NOUNS.find((n) => !taken.has(n)) ?? `extra${Math.floor(rand() * 1000)}`;
    writeJson(resourceFile(noun), resource(noun, pick([...taken])));
    return `resource ${noun} added`;
  },
  () => {
    const all = nouns();
    // One no other resource links to, so that the definitions stay valid.
    const linked = new Set(all.map((n) => readJson(resourceFile(n)).properties.parent?.$ref?.replace(/\.json$/, "")));
    const free = all.filter((n) => !linked.has(n));
    if (all.length <= 3 || free.length === 0) return "nothing removed";
    const noun = pick(free);
    fs.rmSync(resourceFile(noun));
    return `resource ${noun} removed`;
  },
  () => {
    const service = readJson(path.join(defs, "service.json"));
    service.title = `Incremental ${Math.floor(rand() * 1000)}`;
    writeJson(path.join(defs, "service.json"), service);
    return "service title";
  },
  () => {
    // Shown on the overview pages (index.html, index.md) as well as the resource's own.
    const noun = pick(nouns());
    const r = readJson(resourceFile(noun));
    r.description = `The ${noun}s, described ${Math.floor(rand() * 1000)}.`;
    writeJson(resourceFile(noun), r);
    return `description of ${noun}`;
  },
  () => {
    // Read by every operation's docs (the curl lines, the client calls) and by no page's view besides.
    const service = readJson(path.join(defs, "service.json"));
    service.baseUrl = `http://localhost:${3000 + Math.floor(rand() * 1000)}/v1`;
    writeJson(path.join(defs, "service.json"), service);
    return "service base URL";
  },
];

/** Every file under `dir` (relative paths) but the caches (the stat cache, the memo), with its bytes. */
function tree(dir: string): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  const walk = (rel: string) => {
    for (const e of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      const child = rel === "" ? e.name : `${rel}/${e.name}`;
      if (e.isDirectory()) walk(child);
      else if (child !== ".resourcery/stat-cache.json" && child !== ".resourcery/memo.json") files.set(child, fs.readFileSync(path.join(dir, child)));
    }
  };
  walk("");
  return files;
}

function generate(out: string, ...flags: string[]): { stdout: string; stderr: string } {
  const r = runCli(["generate", defs, "--out", out, "--allow-breaking", ...flags], undefined, { RESOURCERY_TIMING: "1" });
  assert.is(r.code, 0, `seed ${seed}: ${r.stdout}${r.stderr}`);
  return r;
}

test.before(() => {
  fs.mkdirSync(path.join(defs, "resources"), { recursive: true });
  writeJson(path.join(defs, "service.json"), { name: "incremental", title: "Incremental", vendor: "incr", version: 1, baseUrl: "http://localhost:3000/v1", errorDocsUrl: "http://localhost:3000/docs/errors", resources: ["resources/*.json"], auth: { schemes: ["apiKey"] } });
  NOUNS.slice(0, 8).forEach((noun, i) => writeJson(resourceFile(noun), resource(noun, i > 0 ? NOUNS[i - 1] : undefined)));
  generate(incremental);
  fs.cpSync(incremental, full, { recursive: true });
});
test.after(() => fs.rmSync(tmp, { recursive: true, force: true }));

test(`a chain of ${STEPS} random edits: each incremental regeneration is byte for byte a full one, and leaves the pages of unchanged resources unrendered`, () => {
  const done: string[] = [];
  let unrendered = 0;
  let local = false;
  for (let step = 0; step < STEPS; step++) {
    // At least one edit of the chain touches one resource only (the first three edits): a chain of service-wide
    // edits alone (a resource added, the service's title) leaves no page unrendered, and the case would have no data.
    const edit: () => string = step === STEPS - 1 && !local ? pick(edits.slice(0, 3)) : pick(edits);
    local ||= edits.indexOf(edit) < 3;
    done.push(edit());
    const inc = generate(incremental);
    generate(full, "--force");
    const a = tree(incremental);
    const b = tree(full);
    const context = `seed ${seed}, after: ${done.join("; ")}`;
    assert.equal([...a.keys()].sort(), [...b.keys()].sort(), `the same files (${context})`);
    for (const [rel, bytes] of a) assert.ok(bytes.equals(b.get(rel)!), `${rel} differs from the full generation's (${context})`);
    const left = /docs \(worker; (\d+) of (\d+) left unrendered\)/.exec(inc.stderr);
    // An edit that changed nothing (a property removed twice) is up to date: nothing emitted at all.
    if (left === null) assert.match(inc.stdout, /\b0 created, 0 updated, 0 deleted\b/, `the docs worker reports what it left unrendered (${context})`);
    else unrendered += Number(left[1]);
  }
  // Every edit but a service-wide one leaves most resource pages (two per resource) unrendered.
  assert.ok(unrendered > 0, `pages were left unrendered along the chain (seed ${seed}: ${done.join("; ")})`);
});

test("one resource's description changed: only that resource's pages are rendered again (not the other resources', the error pages, nor the overview)", () => {
  const noun = nouns()[0]!;
  const r = readJson(resourceFile(noun));
  r.properties.name.description = "Renamed in one place only.";
  writeJson(resourceFile(noun), r);
  const inc = generate(incremental);
  const left = /docs \(worker; (\d+) of (\d+) left unrendered\)/.exec(inc.stderr)!;
  // Each error code has an HTML page, its redirect (<code>/index.html) and a Markdown page; none lists a description.
  const codes = fs.readdirSync(path.join(incremental, "docs")).filter((f) => /^\d+\.html$/.test(f)).length;
  assert.ok(codes > 10, `the docs hold the error pages (${codes})`);
  // The overview and actions pages (HTML and Markdown) do not show a field's description: left unrendered too.
  assert.is(Number(left[1]), 2 * (nouns().length - 1) + 3 * codes + 4, inc.stderr);
  // The search index's entries of each resource are remembered by the docs worker and saved by the main thread
  // (the worker's memo reaches the memo file): a regeneration computes the field rows of changed resources only.
  const memo = readJson(path.join(incremental, ".resourcery/memo.json")) as { entries: Record<string, unknown> };
  const searched = Object.values(memo.entries).filter((v) => Array.isArray(v) && (v[0] as Json | undefined)?.kind === "resource").map((v) => (v as Json[])[0]!.title);
  assert.equal(searched.sort(), nouns().map((n) => `${n}s`), "every resource's search entries are in the memo");
  generate(full, "--force");
  const a = tree(incremental);
  const b = tree(full);
  for (const [rel, bytes] of a) assert.ok(bytes.equals(b.get(rel)!), `${rel} differs from the full generation's`);
});

test("a linked resource's declared id example changed: the page of the resource linking to it (its examples show the link's href) is rendered again", () => {
  const child = nouns().find((n) => readJson(resourceFile(n)).properties.parent !== undefined)!;
  const parent = String(readJson(resourceFile(child)).properties.parent.$ref).replace(/\.json$/, "");
  const r = readJson(resourceFile(parent));
  const example = "0190b6c2-7d4e-7a10-8f3e-5b2c9d1e4f61";
  r.properties.id = { type: "string", format: "uuid", examples: [example, "0190b6c2-7d4e-7a10-8f3e-5b2c9d1e4f62"] };
  writeJson(resourceFile(parent), r);
  const inc = generate(incremental);
  const left = /docs \(worker; (\d+) of (\d+) left unrendered\)/.exec(inc.stderr)!;
  assert.ok(Number(left[1]) > 0, `the other resources' pages are left unrendered: ${inc.stderr}`);
  generate(full, "--force");
  const a = tree(incremental);
  const b = tree(full);
    const page = a.get(`docs/resources/${child}s.html`)!.toString("utf8");
  assert.match(page, new RegExp(`${parent}s/0190b6c2-7d4e-7a10-8f3e-5b2c9d1e4f6[12]`), `the linking resource's examples name the new id: ${page.match(new RegExp(`${parent}s/[^"&<]*`, "g"))?.slice(0, 3).join(", ")}`);
  for (const [rel, bytes] of a) assert.ok(bytes.equals(b.get(rel)!), `${rel} differs from the full generation's`);
});

test("a resource's unique key dropped: the page of the code it no longer answers (409) no longer lists it, as a full generation renders it", () => {
  // One no other resource links to: nothing refuses its deletion with a 409 either.
  const linked = new Set(nouns().map((n) => readJson(resourceFile(n)).properties.parent?.$ref?.replace(/\.json$/, "")));
  const noun = nouns().find((n) => !linked.has(n))!;
  const conflictPage = () => {
    const pages = fs.readdirSync(path.join(incremental, "docs")).filter((f) => /^409\d\d\.html$/.test(f));
    return pages.map((f) => fs.readFileSync(path.join(incremental, "docs", f), "utf8")).find((html) => html.includes(`<code>/${noun}s</code></a>:`));
  };
  assert.ok(conflictPage() !== undefined, "before: a 409 page lists the resource's writes");
  const r = readJson(resourceFile(noun));
  delete r["x-unique"];
  writeJson(resourceFile(noun), r);
  generate(incremental);
  assert.is(conflictPage(), undefined, "after: no 409 page lists them");
  generate(full, "--force");
  const a = tree(incremental);
  const b = tree(full);
  for (const [rel, bytes] of a) assert.ok(bytes.equals(b.get(rel)!), `${rel} differs from the full generation's`);
});

test("openapi.json's parts are taken only from the very file the memo's entries were made with: an earlier generation's memo beside a later openapi.json gives a full generation's bytes", () => {
  const noun = nouns()[0]!;
  const memoFile = path.join(incremental, ".resourcery/memo.json");
  const earlier = fs.readFileSync(memoFile);
  // A property added (the resource's examples in openapi.json show it), then the memo of the generation before put back.
  const r = readJson(resourceFile(noun));
  r.properties.extra = { type: "string", maxLength: 20, examples: ["only-in-between"] };
  writeJson(resourceFile(noun), r);
  generate(incremental);
  assert.match(fs.readFileSync(path.join(incremental, "docs/openapi.json"), "utf8"), /"only-in-between"/);
  fs.writeFileSync(memoFile, earlier);
  // The property removed again: the earlier memo's entries fit the resource again, but the file on disk is not theirs.
  delete r.properties.extra;
  writeJson(resourceFile(noun), r);
  generate(incremental);
  generate(full, "--force");
  assert.not.match(fs.readFileSync(path.join(incremental, "docs/openapi.json"), "utf8"), /only-in-between/);
  const a = tree(incremental);
  const b = tree(full);
  for (const [rel, bytes] of a) assert.ok(bytes.equals(b.get(rel)!), `${rel} differs from the full generation's`);
});

test("a page edited by hand is not taken as known: the regeneration reports the edit as a conflict, as ever", () => {
  const page = path.join(incremental, "docs/resources", `${nouns()[1]!}s.html`);
  fs.appendFileSync(page, "<!-- mine -->\n");
  const noun = nouns()[2]!;
  const r = readJson(resourceFile(noun));
  r.properties.name.description = "Another edit.";
  writeJson(resourceFile(noun), r);
  const result = runCli(["generate", defs, "--out", incremental, "--allow-breaking"], undefined, { RESOURCERY_TIMING: "1" });
  assert.is(result.code, 1, result.stdout + result.stderr);
  assert.match(result.stdout + result.stderr, new RegExp(`docs/resources/${nouns()[1]!}s\\.html`));
  assert.match(fs.readFileSync(page, "utf8"), /<!-- mine -->/);
});

test.run();
