/** What the package's command lines (`npm run keys`, `npm run migrate`) share. */
import fs from "node:fs";
import { pathToFileURL } from "node:url";

/**
 * True when the module of `moduleUrl` (its import.meta.url) is the program node was started with, symlinks
 * resolved as import.meta.url resolves them.
 * @example if (isMain(import.meta.url)) run();
 */
export function isMain(moduleUrl: string): boolean {
  const script = process.argv[1];
  if (script === undefined) return false;
  try {
    return moduleUrl === pathToFileURL(fs.realpathSync(script)).href;
  } catch {
    return moduleUrl === pathToFileURL(script).href;
  }
}
