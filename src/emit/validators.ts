/**
 * Emits src/generated/validators.js: every request validator of the service, compiled at generate time
 * into ajv's standalone code, so that the service compiles no schema when it starts (at 850 resources
 * compiling them was half of a start). They are compiled as the runtime would compile them, by the
 * runtime's own text (model/validator-schemas.ts, model/ajv-settings.ts), and the module carries the
 * fingerprint of the schemas they were compiled from, which the runtime compares before using them.
 *
 * The module is plain JavaScript that tsc never reads (the package's tsconfig takes no .js): 13 MB for
 * Stripe's schemas, and 8 MB of 850 distinct bodies cost tsc 31 s more as TypeScript under `@ts-nocheck`,
 * 67 s more with `allowJs` (bench/README.md). The generated server loads it from the package root (as it
 * finds docs/).
 *
 * Definitions are untrusted, and ajv writes their values into this code: ajv's code generator (the same
 * that builds validators through `new Function` at start-up otherwise) writes every value it takes from a
 * schema — patterns, enum and const values, defaults, property names, formats, the schema itself — as a
 * JSON literal, with U+2028 and U+2029 escaped, or as a property access by such a literal; names in the
 * code are ajv's own. The names this module adds (collections, actions) go through escape.ts. Annotations
 * (titles, descriptions, examples) are not compiled, so they are not in it at all.
 */
import { createRequire } from "node:module";
import type { Ajv } from "ajv";
import { compileDistinct, validatorAjvs, validatorSchemas, validatorsFingerprint, type DistinctValidators, type ValidatedSpec, type ValidatorSchemas } from "../model/validator-schemas.js";
import type { Model } from "../model/types.js";
import type { EmittedFile, LazyFile } from "./emitted-file.js";
import { lineComment, str } from "./shared/escape.js";
import { tsHeader } from "./shared/header.js";
import { specOf } from "./spec.js";

const require = createRequire(import.meta.url);

/** The validators of one ajv instance, compiled once per distinct schema (the j-th exported as v<j>). */
interface Compiled {
  readonly ajv: Ajv;
  readonly validators: DistinctValidators;
}

/** The path of the module in the package. */
export const VALIDATORS_FILE = "src/generated/validators.js";

/** What the service's validators are compiled from: its spec's schemas, without annotations. */
export function validatorSchemasOf(model: Model): ValidatorSchemas {
  return validatorSchemas(specOf(model) as unknown as ValidatedSpec);
}

/** src/generated/validators.js, compiled when rendered (in a worker thread when the schemas are many: see emit/index.ts). */
export function validatorsFiles(schemas: ValidatorSchemas): LazyFile[] {
  return [{ path: VALIDATORS_FILE, owner: "generated", render: () => validatorsModule(schemas) }];
}

/** src/generated/validators.js of `model`, compiled now. */
export function emitValidators(model: Model): EmittedFile[] {
  return [{ path: VALIDATORS_FILE, owner: "generated", contents: validatorsModule(validatorSchemasOf(model)) }];
}

/** The text of the module. */
export function validatorsModule(schemas: ValidatorSchemas): string {
  try {
    // Without ajv's optimisation of the code (a third of the compile time, for 9% more code, which V8 then
    // optimises alike) and without validating the schemas again (check did): ~2.8× faster.
    const ajvs = validatorAjvs(schemas, { standalone: true, quiet: true, optimize: false, checked: true });
    const bodies = { ajv: ajvs.bodies, validators: compileDistinct(ajvs.bodies, "body", schemas.bodies, (name) => `the body schema of ${name}`) };
    const queries = { ajv: ajvs.queries, validators: compileDistinct(ajvs.queries, "query", schemas.queries, (name) => `the query schema of the action ${name}`) };
    return moduleOf(validatorsFingerprint(schemas), bodies, queries);
  } catch (error) {
    // `check` compiles every schema as the service does, so this is not expected; should it happen, the
    // package is still generated and the service compiles its validators at start-up, and says there
    // which schema fails and why, as it did before validators were precompiled.
    return uncompiledModule(error instanceof Error ? error.message : String(error));
  }
}

/** ajv's standalone code of the validators in `compiled`, which assigns each to `exports.v<j>`. */
function standaloneOf({ ajv, validators }: Compiled): string {
  if (validators.distinct.length === 0) return "";
  const standaloneCode = require("ajv/dist/standalone/index.js") as (a: Ajv, refs: Record<string, string>) => string;
  const refs: Record<string, string> = {};
  validators.distinct.forEach(({ key }, j) => (refs[`v${j}`] = key));
  // The directive ajv starts a CommonJS module with: the ES module is strict already.
  return standaloneCode(ajv, refs).replace(/^"use strict";\n?/, "");
}

/** An object from entries (a name "__proto__" stays a property), each name's value `<scope>.v<j>`, in the spec's order. */
function byName(scope: string, { validators }: Compiled): string {
  const exported = new Map(validators.distinct.flatMap(({ names }, j) => names.map((name) => [name, j] as const)));
  if (exported.size === 0) return "{}";
  const entries = [...validators.byName.keys()].map((name) => [name, exported.get(name)!] as const);
  return `Object.fromEntries([\n${entries.map(([name, j]) => `      [${str(name)}, ${scope}.v${j}],\n`).join("")}    ])`;
}

function moduleOf(fingerprint: string, bodies: Compiled, queries: Compiled): string {
  return (
    tsHeader("the request validators, compiled by ajv at generate time (its standalone code)") +
    `import { createRequire } from "node:module";\n\n` +
    `// ajv's standalone code requires its runtime helpers and ajv-formats' formats, CommonJS modules of the package's dependencies.\n` +
    `const require = createRequire(import.meta.url);\n\n` +
    `/** The fingerprint of the schemas these validators were compiled from (the runtime's validatorsFingerprint). */\n` +
    `export const fingerprint = ${str(fingerprint)};\n\n` +
    `/** The validators of every body by collection and of every action's query by action; \`linearRegExp\` is the runtime's pattern engine. */\n` +
    `export function createValidators(linearRegExp) {\n` +
    `  const bodies = (() => {\n    const exports = {};\n${standaloneOf(bodies)}\n    return exports;\n  })();\n` +
    `  const queries = (() => {\n    const exports = {};\n${standaloneOf(queries)}\n    return exports;\n  })();\n` +
    `  return {\n    bodies: ${byName("bodies", bodies)},\n    queries: ${byName("queries", queries)},\n  };\n}\n`
  );
}

/** A module without validators: the runtime then compiles them at start-up (and reports the failure). */
function uncompiledModule(reason: string): string {
  return (
    tsHeader("the request validators, compiled by ajv at generate time (its standalone code)") +
    `// None: ${lineComment(reason)}\n` +
    `// The service compiles its validators at start-up instead, and says there which schema fails and why.\n\n` +
    `export const fingerprint = "";\n\n` +
    `export function createValidators() {\n  return { bodies: {}, queries: {} };\n}\n`
  );
}
