/**
 * Build step, run by `npm run build` after tsc: precompiles every Handlebars template of templates/ into
 * dist/templates.precompiled.cjs, so that generating loads them instead of compiling them. Each entry
 * holds the fingerprint of what it was compiled from; render() (src/emit/shared/templates.ts) uses it
 * only while the template file still has that fingerprint, and compiles the file otherwise.
 */
import fs from "node:fs";
import { PRECOMPILED_TEMPLATES, precompiledTemplatesModule } from "../emit/shared/templates.js";

// Written beside and renamed, so that a run never reads a half-written module.
fs.writeFileSync(`${PRECOMPILED_TEMPLATES}.tmp`, precompiledTemplatesModule());
fs.renameSync(`${PRECOMPILED_TEMPLATES}.tmp`, PRECOMPILED_TEMPLATES);
