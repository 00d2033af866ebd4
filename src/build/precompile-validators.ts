/**
 * Build step, run by `npm run build` after tsc: compiles the meta-schema validators (src/load/validate-meta.ts)
 * into standalone code, dist/meta-validators.precompiled.cjs, with the fingerprint of what they were
 * compiled from; a check then loads them instead of compiling the meta-schemas. CommonJS because ajv's
 * standalone code requires its runtime helpers (an ES module of it would too), and because the
 * validators are loaded synchronously, on first use.
 */
import fs from "node:fs";
import path from "node:path";
import standalone from "ajv/dist/standalone/index.js";
import { appendErrorsInPlace, metaFingerprint, metaSchemaAjv, PRECOMPILED_FILE, readMetaSchemas } from "../load/validate-meta.js";

const sources = readMetaSchemas();
const { ajv, refs } = metaSchemaAjv(sources, { code: { source: true } });
// A CommonJS module whose function is also its "default" export.
const standaloneCode = (standalone as unknown as { default: (a: typeof ajv, refs: Record<string, string>) => string }).default;
// Standalone code is printed from the code before ajv's code.process: the same rewrite, applied here.
const code = appendErrorsInPlace(standaloneCode(ajv, refs));

const out = PRECOMPILED_FILE;
const text =
  `// The meta-schema validators, precompiled by dist/build/precompile-validators.js (npm run build). Do not edit.\n` +
  `${code}\nexports.fingerprint = ${JSON.stringify(metaFingerprint(sources))};\n`;
// Written beside and renamed, so that a run never reads a half-written module.
fs.mkdirSync(path.dirname(out), { recursive: true });
fs.writeFileSync(`${out}.tmp`, text);
fs.renameSync(`${out}.tmp`, out);
console.log(`precompiled the meta-schema validators into ${path.relative(process.cwd(), out) || out}`);
