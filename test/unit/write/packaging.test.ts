/**
 * Installs print no warning on Node 20: every locked package accepts Node 20 (a transitive dependency of
 * Fastify, cookie 2 through light-my-request, wants Node 22: `overrides` keeps it at 1.x, in resourcery's
 * package.json and in the generated package's), and every package with an install script is named in
 * `allowScripts` (allowed or denied), so npm prints no "install scripts not yet covered" warning.
 */
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { mergePackageJson } from "../../../src/write/merge.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const readJson = (file: string) => JSON.parse(fs.readFileSync(path.join(root, file), "utf8")) as Record<string, any>;
// semver comes with npm's own tree (a dependency of @oclif/core and of fastify).
const semver = createRequire(import.meta.url)("semver") as { satisfies(version: string, range: string): boolean };

const pkg = readJson("package.json");
const lock = readJson("package-lock.json");
const locked = Object.entries(lock.packages as Record<string, { version?: string; engines?: { node?: string } | string[]; hasInstallScript?: boolean }>).filter(
  ([where]) => where !== "",
);
/** The package name of a lock key (`node_modules/a/node_modules/@s/b` → `@s/b`). */
const nameOf = (where: string) => where.slice(where.lastIndexOf("node_modules/") + "node_modules/".length);
/** The template of the generated package's package.json, with its one placeholder filled. */
const templatePkg = JSON.parse(
  fs.readFileSync(path.join(root, "templates/package/package.json.hbs"), "utf8").replace("{{name}}", "x").replace("{{{json description}}}", '""'),
) as Record<string, any>;

test("every locked package accepts Node 20 (npm prints no EBADENGINE)", () => {
  const refused: string[] = [];
  for (const [where, entry] of locked) {
    const range = Array.isArray(entry.engines) ? undefined : entry.engines?.node;
    if (range !== undefined && !semver.satisfies("20.19.0", range)) refused.push(`${where}@${entry.version}: node ${range}`);
  }
  assert.equal(refused, []);
});

test("cookie, which light-my-request (Fastify's) pulls in, is overridden to 1.x (node >=18) here and in the generated package", () => {
  assert.is(pkg.overrides?.cookie, "^1.1.1");
  assert.is(templatePkg.overrides?.cookie, pkg.overrides.cookie, "templates/package/package.json.hbs overrides cookie as package.json does");
  const cookies = locked.filter(([where]) => nameOf(where) === "cookie");
  assert.ok(cookies.length > 0, "cookie is in the lock");
  for (const [where, entry] of cookies) {
    assert.ok(semver.satisfies(entry.version!, pkg.overrides.cookie), `${where}@${entry.version}`);
    assert.ok(semver.satisfies("20.0.0", (entry.engines as { node: string }).node), `${where} accepts Node 20.0`);
  }
});

test("every locked package with an install script is named in allowScripts; the Spectral telemetry (@scarf/scarf) is denied", () => {
  const named = new Set(Object.keys(pkg.allowScripts as Record<string, boolean>));
  const uncovered = locked.filter(([, entry]) => entry.hasInstallScript).map(([where]) => nameOf(where)).filter((name) => !named.has(name));
  assert.equal(uncovered, []);
  assert.is(pkg.allowScripts["@scarf/scarf"], false);
  assert.ok(locked.some(([where, entry]) => nameOf(where) === "@scarf/scarf" && entry.hasInstallScript), "the lock still has @scarf/scarf with its postinstall");
});

test("regenerating into an existing package adds the overrides it lacks, keeping the user's own", () => {
  const mine = JSON.stringify({ name: "mine", overrides: { lodash: "4.17.21" } }, null, 2) + "\n";
  const merged = JSON.parse(mergePackageJson(mine, JSON.stringify(templatePkg))!) as Record<string, any>;
  assert.equal(merged.overrides, { lodash: "4.17.21", cookie: "^1.1.1" });
});

test.run();
