/** Emits the user-owned hook and action files (seeded once) and the generated modules that wire them in. */
import { camelCase, isIdentifier, type ServiceTypeName } from "../model/names.js";
import type { Action, Model } from "../model/types.js";
import type { EmittedFile } from "./emitted-file.js";
import { docComment, ident, str, stringKey } from "./shared/escape.js";
import { tsHeader } from "./shared/header.js";
import { render } from "./shared/templates.js";
import { versionView } from "../model/versions.js";

/** The exported function name of an action's handler (an action named like a keyword gets a suffix). */
export function handlerName(action: Action): string {
  const name = camelCase(action.name);
  return isIdentifier(name) ? name : `${name}Action`;
}

/** Why a hook or action file the user deleted is created again: the generated wiring imports it. */
const IMPORTED = "src/generated/handlers.ts imports it";

/** src/hooks/<collection>.ts and src/actions/<action>.ts (user), src/generated/handlers.ts, server.ts and src/index.ts. */
export function emitHandlers(model: Model): EmittedFile[] {
  const files: EmittedFile[] = [];
  for (const r of model.resources) {
    files.push({ path: `src/hooks/${r.collection}.ts`, contents: render("package/hooks.ts.hbs", r), owner: "user", required: IMPORTED });
  }
  for (const a of model.actions) {
    const path = `${model.service.basePath}/${a.name}`;
    const data = {
      name: a.name,
      typeName: a.typeName,
      functionName: handlerName(a),
      summary: `${a.method} ${path}${a.description ? `: ${a.description}` : ""}`,
      logMessage: `${a.name} called`,
      notImplemented: `Write the handler of ${a.name} in src/actions/${a.name}.ts.`,
    };
    files.push({ path: `src/actions/${a.name}.ts`, contents: render("package/action.ts.hbs", data), owner: "user", required: IMPORTED });
  }
  // One file of the user's converters per older version, imported as version_<N>.
  const older = model.service.versions.map((v) => v.number).filter((n) => n < model.service.version);
  for (const [i, version] of older.entries()) {
    const next = older[i + 1] ?? model.service.version;
    const collections = versionView(model, version).resources.map((r) => r.resource.collection);
    const data = { version, next, title: model.service.title, collections: collections.join(", ") || "none", collectionUnion: collections.map((c) => str(c)).join(" | ") || "never" };
    files.push({ path: `src/versions/v${version}.ts`, contents: render("package/version.ts.hbs", data), owner: "user", required: IMPORTED });
  }
  // Imported under names with "_", which no collection or action name has (CAMEL_NAME, ACTION_NAME): an action
  // called `hooks` or `booksHooks` cannot clash with them or with the exports.
  const hooksOf = (collection: string) => ident(`hooks_${collection}`);
  const actionOf = (a: Action) => ident(`action_${handlerName(a)}`);
  const imports = [
    ...model.resources.map((r) => `import { hooks as ${hooksOf(r.collection)} } from ${str(`../hooks/${r.collection}.js`)};`),
    ...model.actions.map((a) => `import { ${ident(handlerName(a))} as ${actionOf(a)} } from ${str(`../actions/${a.name}.js`)};`),
    ...older.map((v) => `import { converters as version_${v} } from ${str(`../versions/v${v}.js`)};`),
  ];
  // Declared types, so that the declaration of `hooks` names them instead of spelling out every resource's
  // representation (TS7056 in a big API) and the compiler relates each entry once, by reference.
  const handlers =
    tsHeader("wiring of the user-owned hooks and action handlers") +
    `import type { ActionHandler, ResourceHooks } from "./errors.js";\n` +
    `import type * as types from "./types.js";\n` +
    imports.join("\n") +
    (imports.length ? "\n" : "") +
    `\n/** The hooks of every collection, typed by its resource. */\nexport type Hooks = {\n${model.resources.map((r) => `  ${stringKey(r.collection)}: ResourceHooks<types.${ident(`${r.typeName}Input`)}, types.${ident(r.typeName)}>;\n`).join("")}};\n\n` +
    `/** Hooks per collection, from src/hooks/. */\nexport const hooks: Hooks = {\n${model.resources.map((r) => `  ${stringKey(r.collection)}: ${hooksOf(r.collection)},\n`).join("")}};\n\n` +
    `/** The handler of every action, typed by its parameters and result. */\nexport type Actions = {\n${model.actions.map((a) => `  ${stringKey(a.name)}: ActionHandler<types.${ident(`${a.typeName}Params`)}, types.${ident(`${a.typeName}Result`)}>;\n`).join("")}};\n\n` +
    `/** Action handlers, from src/actions/. */\nexport const actions: Actions = {\n${model.actions.map((a) => `  ${stringKey(a.name)}: ${actionOf(a)},\n`).join("")}};\n` +
    (older.length === 0 ? "" : `\n/** The converters of each older version, from src/versions/. */\nexport const versions = {\n${older.map((v) => `  ${v}: version_${v},\n`).join("")}};\n`);
  const server =
    tsHeader("the service: createService builds it, your src/main.ts adds to it and listens") +
    `import { fileURLToPath } from "node:url";\n` +
    `import { buildService, startService, type RunningService, type Service, type ServiceOptions } from "./runtime/server.js";\n` +
    `import { loadValidators } from "./runtime/validate.js";\n` +
    `import { actions, hooks${older.length === 0 ? "" : ", versions"} } from "./handlers.js";\n` +
    `import { spec } from "./spec.js";\n\n` +
    `export type { RunningService, Service, ServiceOptions } from "./runtime/server.js";\n` +
    `export type { Store } from "./runtime/store.js";\n\n` +
    `/** The reference docs (docs/ at the package root), served at /docs. */\n` +
    `export const docsDir = fileURLToPath(new URL("../../../docs/", import.meta.url));\n\n` +
    `/** The request validators, compiled by resourcery at generate time (src/generated/validators.js at the package root): the start compiles no schema. */\n` +
    `export const validatorsFile = new URL("../../../src/generated/validators.js", import.meta.url);\n\n` +
    `${docComment(
      `Builds ${model.service.title} with your hooks and action handlers, without listening: add routes and plugins to \`app\`, then \`listen()\`. ` +
        "The settings come from `options.env` (default process.env: PORT, HOST, BASE_URL, TLS_CERT_FILE, TLS_KEY_FILE, KEYS_FILE, DATABASE_FILE, LOG_LEVEL, ...); " +
        "`options.store` and `options.keys` replace the store and the key ring the settings select.",
    )}\n` +
    `export async function createService(options: ServiceOptions = {}): Promise<Service> {\n  return buildService(spec, { hooks, actions${older.length === 0 ? "" : ", versions"}, docsDir, validators: await loadValidators(validatorsFile) }, options);\n}\n\n` +
    `${docComment(`Builds ${model.service.title} and listens at once (the entry point of packages generated before createService).`)}\n` +
    `export async function start(env: NodeJS.ProcessEnv = process.env): Promise<RunningService> {\n  return startService(spec, { hooks, actions${older.length === 0 ? "" : ", versions"}, docsDir, validators: await loadValidators(validatorsFile) }, env);\n}\n`;
  // Its own types under the names the model gave them: an own export of a name a definition's type takes would
  // hide that type from `export type *` without a word.
  const own = (name: ServiceTypeName, typeOnly = true) => {
    const as = model.serviceTypes[name];
    return `${typeOnly ? "type " : ""}${name}${as === name ? "" : ` as ${ident(as)}`}`;
  };
  const index =
    tsHeader("the package's exports") +
    `export { spec } from "./generated/spec.js";\n` +
    `export { createService, start, ${own("Service")}, ${own("ServiceOptions")}, ${own("Store")} } from "./generated/server.js";\n` +
    `export { buildApp } from "./generated/runtime/app.js";\n` +
    `export { openSqliteStore } from "./generated/runtime/sqlite-store.js";\n` +
    `export { ${own("KeyRing", false)} } from "./generated/runtime/keys.js";\n` +
    `export { ${own("ApiError", false)} } from "./generated/runtime/errors.js";\n` +
    `export { errors, apiError, ${own("ErrorKey")}, ${own("ErrorCode")} } from "./generated/errors.js";\n` +
    `export { mediaTypes, formatMediaType, parseMediaType, negotiateMediaType } from "./generated/media-types.js";\n` +
    `export { hooks, actions } from "./generated/handlers.js";\n` +
    `export type * from "./generated/types.js";\n`;
  files.push(
    { path: "src/generated/handlers.ts", contents: handlers, owner: "generated" },
    { path: "src/generated/server.ts", contents: server, owner: "generated" },
    { path: "src/index.ts", contents: index, owner: "generated" },
  );
  return files;
}
