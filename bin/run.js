#!/usr/bin/env node
// Entry point of the resourcery CLI. oclif finds the commands through oclif.manifest.json, written by
// `npm run build` (without it, oclif imports every command module to list them).
if (Number(process.versions.node.split(".")[0]) < 20) {
  process.emitWarning(`resourcery needs Node.js 20 or newer; this is ${process.versions.node}.`);
}

// A plain `generate DIR --out OUT` runs without loading oclif (see src/cli/fast-path.ts).
const args = process.argv.slice(2);
let done = false;
if (args[0] === "generate") {
  let runPlainGenerate;
  try {
    ({ runPlainGenerate } = await import("../dist/cli/fast-path.js"));
  } catch {
    runPlainGenerate = undefined; // not built: the command reports it
  }
  if (runPlainGenerate) done = await runPlainGenerate(args.slice(1));
}

if (!done) {
  // oclif's own Node-version warning loads semver on every start (a sixth of the start-up time);
  // the check above says the same from package.json's engines field.
  process.env.OCLIF_DISABLE_ENGINE_WARNING ??= "1";
  const { execute } = await import("@oclif/core");
  await execute({ dir: import.meta.url });
}
