/**
 * Every value a template of templates/ writes goes through the escaping layer (src/emit/shared/escape.ts)
 * or HTML escaping: each template is parsed with Handlebars and each `{{…}}` / `{{{…}}}` it outputs must
 * call a helper of its kind of output, or be on ALLOWED below with the reason it needs none. A template
 * that interpolates definition text without the layer fails here.
 */
import fs from "node:fs";
import path from "node:path";
import Handlebars from "handlebars";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { escapeHelpers } from "../../../src/emit/shared/escape.js";
import { repoRoot } from "../../helpers/cli.js";

type Kind = "code" | "json" | "markdown" | "html" | "docs-markdown" | "static";

/** What a template produces, from its name. */
function kindOf(name: string): Kind {
  if (name.startsWith("docs/") && name.endsWith(".md.hbs")) return "docs-markdown";
  if (name.endsWith(".ts.hbs") || name.endsWith(".js.hbs")) return "code";
  if (name.endsWith(".json.hbs")) return "json";
  if (name.endsWith(".md.hbs")) return "markdown";
  if (name.endsWith(".html.hbs")) return "html";
  return "static";
}

/** The helpers that make a value safe in each kind of output. */
const HELPERS: Readonly<Record<Kind, ReadonlySet<string>>> = {
  code: new Set(["str", "doc", "lineComment", "templateText", "ident", "propKey", "jsValue", "scriptJson"]),
  json: new Set(["json"]),
  markdown: new Set(["md", "cellCode", "str", "lineComment", "shellWord"]),
  // HTML templates escape every {{value}} (templateOptions): they need no helper, but never {{{value}}}.
  html: new Set(),
  // markdown.ts escapes every value it hands these templates (escapeMd, codeSpan, codeBlock).
  "docs-markdown": new Set(),
  static: new Set(),
};

/** Values written as they are, per template, each with the reason it is safe. */
const ALLOWED: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  "package/package.json.hbs": { name: "the npm package name: service.schema.json's pattern allows only [a-z0-9._~-] and one @scope/" },
  "package/version.ts.hbs": {
    version: "a version number: an integer (service.schema.json's versions keys, checked by the model)",
    next: "a version number: an integer (the next served version)",
    collectionUnion: "a union of string literals, each written by str() in src/emit/handlers.ts",
  },
  "package/client-package.json.hbs": { name: "the npm package name (as in package.json) plus -client" },
  "package/README.md.hbs": {
    name: "the npm package name (as in package.json)",
    defaultLimit: "a constant of src/model/conventions.ts",
    maxLimit: "a constant of src/model/conventions.ts",
    bodyLimit: "a constant of src/model/conventions.ts",
    bodyDepth: "a constant of src/model/conventions.ts",
    expandLimit: "a constant of src/model/conventions.ts",
    code: "an error code: an integer (service.schema.json)",
    status: "an HTTP status: an integer from 400 to 599 (service.schema.json)",
    this: "the lines of #each curl and #each clientExamples: code built by src/emit/readme.ts with shellWord(), str() and member()",
    apiError: "the client's error class: ApiError or Client<Name> (model clientTypes), an identifier of letters and digits",
  },
  "package/client-README.md.hbs": {
    name: "the npm package name (as in package.json) plus -client",
    version: "the API version: an integer (service.schema.json)",
    this: "the lines of #each examples: code built by src/emit/client.ts with member()",
    apiError: "the client's error class: ApiError or Client<Name> (model clientTypes), an identifier of letters and digits",
    tokenError: "the client's token error class: TokenError or ClientTokenError (model clientTypes), an identifier of letters and digits",
    preconditionFailedError: "the client's 412 error class: PreconditionFailedError or Client<Name> (model clientTypes), an identifier",
    etagApi: "a member expression (api.<collection>) built by src/emit/client.ts with member()",
  },
};

/** Every template under templates/, by name relative to it. */
function templates(): string[] {
  const root = path.join(repoRoot, "templates");
  return (fs.readdirSync(root, { recursive: true }) as string[])
    .map((n) => n.split(path.sep).join("/"))
    .filter((n) => n.endsWith(".hbs"))
    .sort();
}

interface Output {
  readonly text: string;
  readonly helper: string | undefined;
  readonly escaped: boolean;
}

/** The mustaches of a template that write something: `{{x}}`, `{{{x}}}`, `{{helper x}}`. */
function outputs(source: string): Output[] {
  const found: Output[] = [];
  const visit = (node: unknown): void => {
    if (!node || typeof node !== "object") return;
    if (Array.isArray(node)) return node.forEach(visit);
    const n = node as { type?: string; path?: { original?: unknown }; params?: unknown[]; escaped?: boolean; loc?: unknown };
    if (n.type === "MustacheStatement") {
      const head = String(n.path?.original);
      const params = (n.params ?? []).map((p) => String((p as { original?: unknown }).original));
      found.push(params.length ? { text: `${head} ${params.join(" ")}`, helper: head, escaped: n.escaped !== false } : { text: head, helper: undefined, escaped: n.escaped !== false });
    }
    for (const [k, v] of Object.entries(n)) if (k !== "loc" && k !== "path" && k !== "params" && k !== "hash") visit(v);
  };
  visit(Handlebars.parse(source));
  return found;
}

for (const name of templates()) {
  test(`${name}: every value it writes is escaped for its output`, () => {
    const kind = kindOf(name);
    const source = fs.readFileSync(path.join(repoRoot, "templates", name), "utf8");
    const allowed = ALLOWED[name] ?? {};
    for (const out of outputs(source)) {
      const where = `${name}: {{${out.text}}}`;
      if (kind === "html") {
        assert.ok(out.escaped, `${where} is written unescaped: use {{…}} (HTML-escaped) and build trusted HTML in code`);
        continue;
      }
      if (kind === "docs-markdown") continue;
      if (out.helper !== undefined) {
        assert.ok(HELPERS[kind].has(out.helper), `${where}: ${out.helper} is not an escaping helper of ${kind} output (${[...HELPERS[kind]].join(", ") || "none"})`);
        continue;
      }
      assert.ok(Object.hasOwn(allowed, out.text), `${where} writes a value as it is: pass it through one of ${[...HELPERS[kind]].join(", ") || "no helper (this template writes no values)"}, or justify it in ALLOWED`);
    }
  });
}

test("the allow-list names only values the templates write", () => {
  for (const [name, values] of Object.entries(ALLOWED)) {
    const written = new Set(outputs(fs.readFileSync(path.join(repoRoot, "templates", name), "utf8")).map((o) => o.text));
    for (const value of Object.keys(values)) assert.ok(written.has(value), `${name}: ALLOWED.${value} is not written there any more`);
  }
});

test("every helper the check accepts is registered by the escaping layer (or is json)", () => {
  for (const helpers of Object.values(HELPERS)) for (const h of helpers) assert.ok(h === "json" || Object.hasOwn(escapeHelpers, h), h);
});

test("the check catches a bare value, an unknown helper and a triple-stash in HTML", () => {
  assert.equal(outputs("a {{title}} b {{str title}} {{{raw}}} {{#each x}}{{this}}{{/each}}"), [
    { text: "title", helper: undefined, escaped: true },
    { text: "str title", helper: "str", escaped: true },
    { text: "raw", helper: undefined, escaped: false },
    { text: "this", helper: undefined, escaped: true },
  ]);
});

test.run();
