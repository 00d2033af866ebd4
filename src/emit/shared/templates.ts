/** Handlebars templates of templates/, compiled once: strict (a missing field throws); no escaping for code. */
import fs from "node:fs";
import Handlebars from "handlebars";
import { packagePath } from "../../paths.js";

const env = Handlebars.create();
env.registerHelper("json", (value: unknown) => JSON.stringify(value ?? null));
const compiled = new Map<string, Handlebars.TemplateDelegate>();

/** Renders templates/<name> with `data`. HTML-escaping is on only for .html templates (user text in docs). */
export function render(name: string, data: object): string {
  let template = compiled.get(name);
  if (!template) {
    const source = fs.readFileSync(packagePath("templates", name), "utf8");
    template = env.compile(source, { strict: true, noEscape: !name.endsWith(".html.hbs") });
    compiled.set(name, template);
  }
  return template(data);
}

/** The text of a verbatim file under templates/ (runtime sources, test kit). */
export function asset(...parts: string[]): string {
  return fs.readFileSync(packagePath("templates", ...parts), "utf8");
}

/** Names of the files in a folder under templates/, sorted. */
export function assetNames(...parts: string[]): string[] {
  return fs.readdirSync(packagePath("templates", ...parts)).sort();
}
