/**
 * Handlebars templates of templates/, compiled once: strict (a missing field throws); no escaping for code.
 * `npm run build` precompiles them into dist/templates.precompiled.cjs (src/build/precompile-templates.ts),
 * so that a run loads only the Handlebars runtime. A precompiled template is used only when its
 * fingerprint (source, options, Handlebars version) matches the template file as it is now; otherwise, or
 * without dist (tests run src/ directly), the template is compiled at run time.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import type HandlebarsModule from "handlebars";
import { packagePath } from "../../paths.js";
import { escapeHelpers } from "./escape.js";

type Handlebars = typeof HandlebarsModule;
type Template = HandlebarsModule.TemplateDelegate;
const require = createRequire(import.meta.url);

/** The runtime alone loads in half the time of the whole package; the compiler is loaded when needed. */
const runtime = require("handlebars/runtime") as Handlebars;
let compilerEnv: Handlebars | undefined;

/** The module of precompiled templates, in dist/ (beside the compiled code). */
export const PRECOMPILED_TEMPLATES = packagePath("dist", "templates.precompiled.cjs");

/** A template as the precompiled module holds it. */
export interface PrecompiledTemplate {
  readonly fingerprint: string;
  readonly spec: TemplateSpecification;
}
let precompiledModule: Readonly<Record<string, PrecompiledTemplate>> | null | undefined;

/** The precompiled templates by name, or null when there are none (not built, or unreadable). */
function precompiled(): Readonly<Record<string, PrecompiledTemplate>> | null {
  if (precompiledModule === undefined) {
    try {
      precompiledModule = require(PRECOMPILED_TEMPLATES) as Record<string, PrecompiledTemplate>;
    } catch {
      precompiledModule = null;
    }
  }
  return precompiledModule;
}

/**
 * The helpers every template may call: `json` (a value as JSON, for .json templates) and the escaping
 * layer's (escape.ts), through which every piece of definition text reaches a template of code.
 */
function withHelpers(env: Handlebars): Handlebars {
  env.registerHelper("json", (value: unknown) => JSON.stringify(value ?? null));
  for (const [name, helper] of Object.entries(escapeHelpers)) env.registerHelper(name, helper);
  return env;
}

const env = withHelpers(runtime.create());
const compiled = new Map<string, Template>();

/** Compile options of templates/<name>: HTML-escaping is on only for .html templates (user text in docs). */
export function templateOptions(name: string): CompileOptions {
  return { strict: true, noEscape: !name.endsWith(".html.hbs") };
}

/** What a compiled template depends on: the Handlebars version, the options and the source. */
export function templateFingerprint(source: string, options: CompileOptions): string {
  return crypto.createHash("sha256").update(`${runtime.VERSION}\0${JSON.stringify(options)}\0${source}`).digest("hex");
}

/** Renders templates/<name> with `data`. */
export function render(name: string, data: object): string {
  return templateNamed(name)(data);
}

/**
 * Makes the templates of the folder templates/<folder> ready now rather than at their first render (the
 * precompiled module loaded, each template read and checked): the docs worker does it while it waits for its model.
 */
export function prepareTemplates(folder: string): void {
  for (const name of assetNames(folder)) if (name.endsWith(".hbs")) templateNamed(`${folder}/${name}`);
}

function templateNamed(name: string): Template {
  let template = compiled.get(name);
  if (!template) {
    const source = fs.readFileSync(packagePath("templates", name), "utf8");
    compiled.set(name, (template = templateOf(name, source, precompiled()?.[name])));
  }
  return template;
}

/** The template of `source`: `built` when it was precompiled from this very source, else compiled now. */
export function templateOf(name: string, source: string, built: PrecompiledTemplate | undefined): Template {
  const options = templateOptions(name);
  if (built && built.fingerprint === templateFingerprint(source, options)) {
    try {
      return env.template(built.spec);
    } catch {
      // Precompiled for another Handlebars runtime: compile it below.
    }
  }
  return compiler().compile(source, options);
}

function compiler(): Handlebars {
  return (compilerEnv ??= withHelpers((require("handlebars") as Handlebars).create()));
}

/** The text of the precompiled module (a CommonJS module, so that render() can load it synchronously): every template of templates/. */
export function precompiledTemplatesModule(): string {
  const root = packagePath("templates");
  const names = (fs.readdirSync(root, { recursive: true }) as string[])
    .map((name) => name.split(path.sep).join("/"))
    .filter((name) => name.endsWith(".hbs"))
    .sort();
  const entries = names.map((name) => {
    const source = fs.readFileSync(path.join(root, name), "utf8");
    const options = templateOptions(name);
    const fingerprint = templateFingerprint(source, options);
    // precompile() adds its defaults to the options it is given: a copy keeps those of the fingerprint.
    const spec = compiler().precompile(source, { ...options }) as unknown as string;
    return `  ${JSON.stringify(name)}: { fingerprint: ${JSON.stringify(fingerprint)}, spec: ${spec} },\n`;
  });
  return `// The templates of templates/, precompiled by npm run build (src/build/precompile-templates.ts). Do not edit.\n"use strict";\nmodule.exports = {\n${entries.join("")}};\n`;
}

/** HTML that templates insert as it is: built by code that escapes every piece of user text itself. */
export type Html = HandlebarsModule.SafeString;

/** Marks `html` as already escaped. */
export function trusted(html: string): Html {
  return new runtime.SafeString(html);
}

/** Escapes text for HTML exactly as `{{value}}` does in an .html template. */
export const escapeHtml: (text: string) => string = runtime.escapeExpression;

/** The text of a verbatim file under templates/ (runtime sources, test kit). */
export function asset(...parts: string[]): string {
  return fs.readFileSync(packagePath("templates", ...parts), "utf8");
}

/** Names of the files in a folder under templates/, sorted. */
export function assetNames(...parts: string[]): string[] {
  return fs.readdirSync(packagePath("templates", ...parts)).sort();
}
