/**
 * Build step: writes oclif.manifest.json (the commands, their flags and help) at the package root, so
 * that oclif loads only the command that runs instead of importing every command module first.
 * The file is build output, never committed: a stale one would hide a changed flag.
 */
import fs from "node:fs";
import { Config } from "@oclif/core";
import { packagePath, packageRoot } from "../paths.js";

const manifestFile = packagePath("oclif.manifest.json");
fs.rmSync(manifestFile, { force: true }); // loading the config must read the commands, not an old manifest
const config = await Config.load(packageRoot);
// `manifest` is set on the loaded plugin but not declared by its interface.
const plugin = config.plugins.get(config.pjson.name) as { manifest?: unknown } | undefined;
if (!plugin?.manifest) throw new Error(`oclif did not load the ${config.pjson.name} plugin from ${packageRoot}`);
fs.writeFileSync(manifestFile, JSON.stringify(plugin.manifest) + "\n");
