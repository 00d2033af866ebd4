/** Emits the package around the code: package.json, tsconfig.json, .gitignore and the entry point (seeded once). */
import type { Model } from "../model/types.js";
import type { EmittedFile } from "./emitted-file.js";
import { render } from "./shared/templates.js";

/**
 * Files the user owns after the first generate: package.json, tsconfig.json, .gitignore, src/main.ts. The
 * package is built from the first two, so they are created again when deleted; the others are not.
 */
export function emitPackage(model: Model): EmittedFile[] {
  const { service } = model;
  const data = { name: service.name, title: service.title, description: service.description || service.title };
  return [
    { path: "package.json", contents: render("package/package.json.hbs", data), owner: "user", required: "the package is installed, built and tested from it" },
    { path: "tsconfig.json", contents: render("package/tsconfig.json.hbs", data), owner: "user", required: "the build (tsc -p tsconfig.json) reads it" },
    { path: ".gitignore", contents: render("package/gitignore.hbs", data), owner: "user" },
    { path: "src/main.ts", contents: render("package/main.ts.hbs", data), owner: "user" },
  ];
}
