/** `init`: a new definitions project copied from a bundled example, named after its folder. */
import fs from "node:fs";
import path from "node:path";
import { packagePath } from "./paths.js";

/** Names of the bundled examples (folders of examples/ holding a service.json). */
export function listExamples(): string[] {
  const root = packagePath("examples");
  if (!fs.existsSync(root)) return [];
  return fs
    .readdirSync(root)
    .filter((d) => fs.existsSync(path.join(root, d, "service.json")))
    .sort();
}

/** An npm-safe package name from a folder name. @example npmName("My API") === "my-api" */
export function npmName(folder: string): string {
  const name = folder.toLowerCase().replace(/[^a-z0-9._~-]+/g, "-").replace(/^[._-]+|-+$/g, "");
  return name || "service";
}

/**
 * Copies example `example` into `dir` (created), names the service after the folder, and points each
 * `$schema` at the meta-schemas of this resourcery install so editors autocomplete. Returns the files written.
 */
export function initProject(dir: string, example: string): string[] {
  const from = packagePath("examples", example);
  const written: string[] = [];
  const copy = (src: string, dest: string) => {
    fs.mkdirSync(dest, { recursive: true });
    for (const entry of fs.readdirSync(src, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const s = path.join(src, entry.name);
      const d = path.join(dest, entry.name);
      if (entry.isDirectory()) copy(s, d);
      else if (entry.isFile()) {
        fs.writeFileSync(d, entry.name.endsWith(".json") ? rewrite(s, d, dir) : fs.readFileSync(s));
        written.push(path.relative(dir, d));
      }
    }
  };
  copy(from, dir);
  return written;
}

function rewrite(src: string, dest: string, dir: string): string {
  const value = JSON.parse(fs.readFileSync(src, "utf8")) as Record<string, unknown>;
  const isService = path.basename(src) === "service.json" && path.dirname(dest) === dir;
  if (typeof value.$schema === "string" && /(service|resource)\.schema\.json$/.test(value.$schema)) {
    const schema = packagePath("schemas", isService ? "service.schema.json" : "resource.schema.json");
    value.$schema = path.relative(path.dirname(dest), schema).split(path.sep).join("/");
  }
  if (isService) value.name = npmName(path.basename(dir));
  return JSON.stringify(value, null, 2) + "\n";
}
