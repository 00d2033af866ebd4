/** Locations inside the resourcery package itself (schemas, templates, docs, examples). */
import path from "node:path";
import { fileURLToPath } from "node:url";

/** Root of the installed resourcery package (src/ and dist/ both sit one level below it). */
export const packageRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/** A path inside the package root. */
export function packagePath(...parts: string[]): string {
  return path.join(packageRoot, ...parts);
}
