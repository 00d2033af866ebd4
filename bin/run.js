#!/usr/bin/env node
// Entry point of the resourcery CLI. oclif finds the commands through oclif.manifest.json, written by
// `npm run build` (without it, oclif imports every command module to list them).
//
// oclif's own Node-version warning loads semver on every start (a sixth of the start-up time); the
// check below says the same from package.json's engines field.
if (Number(process.versions.node.split(".")[0]) < 20) {
  process.emitWarning(`resourcery needs Node.js 20 or newer; this is ${process.versions.node}.`);
}
process.env.OCLIF_DISABLE_ENGINE_WARNING ??= "1";
const { execute } = await import("@oclif/core");
await execute({ dir: import.meta.url });
