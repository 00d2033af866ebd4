/**
 * Definitions whose resources, shared schemas and actions are named like every type the generated modules
 * declare or import of their own (the client's Link, Page, Client, ApiError …; the package entry's Service,
 * Store, KeyRing …; the wiring's ResourceHooks, HandlerContext …) and like TypeScript's globals (Error, Date,
 * Record, Promise …): check accepts them, the package builds (tsc strict, its own tsconfig) and passes its own
 * npm test, every definition's type keeps its plain name in the client and in the package entry while their own
 * are exported under other names, and the client runs against the started service. Then a build that fails
 * (a type error in a hook) writes no dist, and `npm start` stops with tsc's error instead of running a half-built one.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { repoRoot, runCli } from "../helpers/cli.js";
import { freePort, linkModules, run, start, type Started } from "../helpers/package.js";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "resourcery-generated-names-"));
const defs = path.join(tmp, "defs");
const out = path.join(tmp, "names-service");
const tsc = path.join(repoRoot, "node_modules/typescript/bin/tsc");
let service: Started | undefined;

/** Resources: collection, title (when the collection alone would not give the name) and the type name they get. */
const RESOURCES: readonly (readonly [string, string | undefined, string])[] = [
  // The client's own types.
  ["links", undefined, "Link"],
  ["pages", undefined, "Page"],
  ["metas", undefined, "Meta"],
  ["clients", undefined, "Client"],
  ["apiErrors", undefined, "ApiError"],
  ["registries", undefined, "Registry"],
  ["expansions", "Expanded", "Expanded"],
  ["errorCodes", undefined, "ErrorCode"],
  ["auths", undefined, "Auth"],
  ["optionSets", "Get options", "GetOptions"],
  ["diffs", "Merge patch", "MergePatch"],
  ["serverFieldSets", "Server fields", "ServerFields"],
  // The package entry's and the generated wiring's own.
  ["services", undefined, "Service"],
  ["stores", undefined, "Store"],
  ["keyRings", undefined, "KeyRing"],
  ["hookSets", "Resource hooks", "ResourceHooks"],
  ["handlerContexts", undefined, "HandlerContext"],
  ["actionHandlers", undefined, "ActionHandler"],
  ["mediaTypes", undefined, "MediaType"],
  // TypeScript's globals (a resource named error would have the error media type: Error is a shared schema's).
  ["strings", undefined, "String"],
  ["dates", undefined, "Date"],
  ["records", undefined, "Record"],
  ["promises", undefined, "Promise"],
  // A letter after digits, which client/types.ts declares upper-cased (as json-schema-to-typescript does).
  ["v1betaEvents", undefined, "V1BetaEvent"],
  ["maps", undefined, "Map"],
  ["arrays", undefined, "Array"],
  ["objects", undefined, "Object"],
];

/**
 * Shared schemas (files that are no resource, each referred to by a property of stores) and the type name each
 * gets: their own, or with a 2 where a resource's type or one of OpenAPI's own components has it.
 */
const SHARED: readonly (readonly [string, string])[] = [
  ["CallOptions", "CallOptions"],
  ["Checked", "Checked"],
  ["ClientOptions", "ClientOptions"],
  ["ErrorBody", "ErrorBody"],
  ["ReadOptions", "ReadOptions"],
  ["ResponseTooLargeError", "ResponseTooLargeError"],
  ["RetryOptions", "RetryOptions"],
  ["Selected", "Selected"],
  ["Sel", "Sel"],
  ["Collection", "Collection"],
  ["CollectionLink", "CollectionLink2"],
  ["LinkInput", "LinkInput2"],
  ["ServiceOptions", "ServiceOptions"],
  ["ErrorKey", "ErrorKey"],
  ["Subject", "Subject"],
  ["Hooks", "Hooks"],
  ["Actions", "Actions"],
  ["Samples", "Samples"],
  ["ServiceSpec", "ServiceSpec"],
  ["Types", "Types2"],
  ["Set", "Set2"],
  ["Number", "Number2"],
  ["Partial", "Partial2"],
  ["Error", "Error2"],
  ["K8sObject", "K8SObject"],
];

/** Actions named like the generated modules' own functions and values (apiError would share a media type with apiErrors). */
const ACTIONS = ["createClient", "isApiError", "spec", "start"];

function write(file: string, value: unknown): void {
  fs.mkdirSync(path.dirname(path.join(defs, file)), { recursive: true });
  fs.writeFileSync(path.join(defs, file), JSON.stringify(value, null, 2));
}

function writeDefinitions(): void {
  const action = { method: "GET", query: { type: "object", properties: { q: { type: "string" } } }, response: { type: "object", properties: { ok: { type: "boolean" } } } };
  write("service.json", {
    name: "names-service",
    title: "Names",
    vendor: "names",
    version: 1,
    baseUrl: "http://localhost:3000/v1",
    errorDocsUrl: "http://localhost:3000/docs/errors",
    resources: ["resources/*.json"],
    auth: { schemes: ["bearer"] },
    actions: Object.fromEntries(ACTIONS.map((a) => [a, action])),
  });
  RESOURCES.forEach(([collection, title, type], i) => {
    const properties: Record<string, unknown> = { name: { type: "string" }, kind: { const: type } };
    // Each resource links to the one before: the registry of the typed selections names them all.
    if (i > 0) properties.previous = { $ref: `${RESOURCES[i - 1]![0]}.json` };
    if (collection === "stores") for (const [file] of SHARED) properties[`shared${file}`] = { $ref: `../shared/${file}.json` };
    write(`resources/${collection}.json`, { type: "object", "x-collection": collection, ...(title ? { title } : {}), required: ["name"], additionalProperties: false, properties });
  });
  for (const [file] of SHARED) write(`shared/${file}.json`, { type: "object", required: ["shared"], additionalProperties: false, properties: { shared: { const: file } } });
}

/** A user of the package: type-checked against its declarations (strict), then run against the started service. */
function usage(): string {
  const client = RESOURCES.slice(0, 12).map(([, , t]) => t);
  // The client's own types a definition's type took (ApiError is imported as a value).
  const clientOwn = ["Auth", "CallOptions", "Checked", "Client", "ClientOptions", "ErrorBody", "ErrorCode", "Expanded", "GetOptions", "Link", "LinkInput", "MergePatch", "Meta", "Page", "ReadOptions", "Registry", "ResponseTooLargeError", "RetryOptions", "Selected", "ServerFields"];
  const clientShared = ["CallOptions", "Checked", "ClientOptions", "ErrorBody", "ReadOptions", "ResponseTooLargeError", "RetryOptions", "Selected"];
  const entry = ["Service", "Store", "KeyRing", "ApiError", "ErrorCode", "Date", "Record", "Promise", "Array"];
  const entryShared = ["ServiceOptions", "ErrorKey", "Subject", "Hooks", "Actions", "Samples", "ServiceSpec", "Sel", "Collection"];
  const kindOf = (t: string) => `const kind${t}: NonNullable<C${t}["kind"]> = ${JSON.stringify(t)};`;
  return [
    `import { createClient, isApiError, version, ClientApiError } from "../dist/client/index.js";`,
    `import type { ${[...client, "Date", "Store", ...clientShared, "CollectionLink2", "LinkInput2", "Types2", "Set2", "Number2", "Partial2", "Error2"].map((t) => `${t} as C${t}`).join(", ")} } from "../dist/client/index.js";`,
    `import type { ${clientOwn.map((t) => `Client${t}`).join(", ")}, CollectionLink } from "../dist/client/index.js";`,
    `import type { ${[...entry, ...entryShared].map((t) => `${t} as E${t}`).join(", ")} } from "../dist/src/index.js";`,
    `import type { RuntimeService, RuntimeServiceOptions, RuntimeStore, RuntimeKeyRing, RuntimeApiError, RuntimeErrorKey, RuntimeErrorCode } from "../dist/src/index.js";`,
    ``,
    `// Every definition's type under its plain name: only a resource has this kind, only a shared schema this constant.`,
    ...client.map(kindOf),
    ...["CallOptions", "Checked", "ClientOptions", "ErrorBody", "ReadOptions", "ResponseTooLargeError", "RetryOptions", "Selected"].map((t) => `const shared${t}: C${t}["shared"] = ${JSON.stringify(t)};`),
    ...[["CollectionLink2", "CollectionLink"], ["LinkInput2", "LinkInput"], ["Types2", "Types"], ["Set2", "Set"], ["Number2", "Number"], ["Partial2", "Partial"], ["Error2", "Error"]].map(([t, s]) => `const shared${t}: C${t}["shared"] = ${JSON.stringify(s)};`),
    ...entry.map((t) => `const entry${t}: NonNullable<E${t}["kind"]> = ${JSON.stringify(t)};`),
    ...entryShared.map((t) => `const entryShared${t}: E${t}["shared"] = ${JSON.stringify(t)};`),
    ``,
    `// The generated modules' own types, under their other names, are what they were.`,
    `const ownMeta = (m: ClientMeta): string => m.href;`,
    `const ownLink = (l: ClientLink | CollectionLink): ClientMeta => l.meta;`,
    `const ownInput: ClientLinkInput = { meta: { href: "http://localhost/v1/links/x" } };`,
    `const ownPage = (p: ClientPage<CLink>): number => p.size;`,
    `const ownAuth: ClientAuth = { bearer: "x" };`,
    `const ownRetry: ClientRetryOptions | undefined = undefined;`,
    `const ownOptions: ClientClientOptions = { baseUrl: "http://localhost/v1", auth: ownAuth };`,
    `const ownCall: ClientCallOptions = {};`,
    `const ownBody = (b: ClientErrorBody): number => b.code;`,
    `const ownError = (e: ClientApiError): number => e.status;`,
    `const ownCode: ClientErrorCode = 40400;`,
    `const ownServer = (f: ClientServerFields): string => f.id;`,
    `const ownPatch: ClientMergePatch<{ a?: string }> = { a: null };`,
    `const ownExpanded = (x: ClientExpanded<ClientRegistry, "links">): string => x.id;`,
    `const ownGet: ClientGetOptions<"links", ["name"], undefined> = { fields: ["name"] };`,
    `const ownClient = (c: ClientClient): unknown => c.links;`,
    `const runtimeService = (s: RuntimeService): Promise<string> => s.listen();`,
    `const runtimeOptions: RuntimeServiceOptions = {};`,
    `const runtimeStore = (s: RuntimeStore): unknown => s;`,
    `const runtimeKeys = (k: RuntimeKeyRing): unknown => k;`,
    `const runtimeError = (e: RuntimeApiError): number => e.status;`,
    `const runtimeKey: RuntimeErrorKey = "notFound";`,
    `const runtimeCode: RuntimeErrorCode = 40400;`,
    `export const checked = [${[
      ...client.map((t) => `kind${t}`),
      ...entry.map((t) => `entry${t}`),
      ...entryShared.map((t) => `entryShared${t}`),
      ...[...clientShared, "CollectionLink2", "LinkInput2", "Types2", "Set2", "Number2", "Partial2", "Error2"].map((t) => `shared${t}`),
      "ownMeta, ownLink, ownInput, ownPage, ownRetry, ownOptions, ownCall, ownBody, ownError, ownCode, ownServer, ownPatch, ownExpanded, ownGet, ownClient",
      "runtimeService, runtimeOptions, runtimeStore, runtimeKeys, runtimeError, runtimeKey, runtimeCode",
    ].join(", ")}];`,
    ``,
    `/** Creates a string, a date linking to it and a store holding every shared schema; reads them back; calls the actions. */`,
    `export async function run(baseUrl: string, secret: string) {`,
    `  const api = createClient({ baseUrl, auth: { bearer: secret } });`,
    `  const string = await api.strings.create({ name: "e1", kind: "String" });`,
    `  const date: CDate = await api.dates.create({ name: "d1", previous: { meta: { href: string.meta.href } } });`,
    `  const read = await api.dates.get(date.id, { expand: ["previous"], fields: ["name", "previous(name,kind)"] });`,
    `  const previousName: string | undefined = read.previous?.name;`,
    `  const store = await api.stores.create({ name: "s1", ${SHARED.map(([file]) => `shared${file}: { shared: ${JSON.stringify(file)} }`).join(", ")} });`,
    `  const again: CStore = await api.stores.get(store.id);`,
    `  const calls = await Promise.all(${JSON.stringify(ACTIONS)}.map((name) =>`,
    `    (api as unknown as Record<string, (p: object) => Promise<unknown>>)[name]!({ q: "x" }).then(() => 0, (e: unknown) => (isApiError(e) ? e.status : e instanceof ClientApiError ? -2 : -1)),`,
    `  ));`,
    `  return { version, errorName: string.name, previousName, sharedKeys: Object.keys(again).filter((k) => k.startsWith("shared")).sort(), calls };`,
    `}`,
    ``,
  ].join("\n");
}

test("check accepts resources, shared schemas and actions named like the generated modules' own types and TypeScript's globals", () => {
  writeDefinitions();
  const r = runCli(["check", defs, "--json"]);
  assert.is(r.code, 0, r.stdout + r.stderr);
  const errors = (JSON.parse(r.stdout) as { severity: string }[]).filter((d) => d.severity === "error");
  assert.equal(errors, []);
});

test("each generated module names its own types around the definitions' (client, types, package entry, wiring, seeds)", () => {
  const generated = runCli(["generate", defs, "--out", out]);
  assert.is(generated.code, 0, generated.stdout + generated.stderr);
  const read = (file: string) => fs.readFileSync(path.join(out, file), "utf8");
  const types = read("client/types.ts");
  for (const [, , t] of RESOURCES) assert.match(types, new RegExp(`^export type ${t} = select\\.Expanded<ClientRegistry, `, "m"));
  for (const [, t] of SHARED) assert.match(types, new RegExp(`^export (interface|type) ${t}\\b`, "m"));
  assert.match(types, 'export type { CollectionLink, Link as ClientLink, LinkInput as ClientLinkInput, Meta as ClientMeta, Page as ClientPage } from "./select.js";');
  const client = read("client/index.ts");
  assert.match(client, "export { ApiError as ClientApiError, PreconditionFailedError, ResponseTooLargeError as ClientResponseTooLargeError, TokenError, etagOf, type Auth as ClientAuth, ");
  const entry = read("src/index.ts");
  assert.match(entry, "type Service as RuntimeService, type ServiceOptions as RuntimeServiceOptions, type Store as RuntimeStore");
  assert.match(entry, "export { KeyRing as RuntimeKeyRing }");
  assert.match(entry, "export { ApiError as RuntimeApiError }");
  assert.match(entry, "type ErrorKey as RuntimeErrorKey, type ErrorCode as RuntimeErrorCode");
  // The wiring and the seeds refer to the definitions' types through a namespace, and to their handlers by names no definition can have.
  const handlers = read("src/generated/handlers.ts");
  assert.match(handlers, '"hookSets": ResourceHooks<types.ResourceHooksInput, types.ResourceHooks>;');
  assert.match(handlers, 'import { isApiError as action_isApiError } from "../actions/isApiError.js";');
  assert.match(read("src/hooks/dates.ts"), "export const hooks: ResourceHooks<types.DateInput, types.Date> = {");
});

test("the package builds (tsc strict, its own tsconfig) and its npm test passes", () => {
  linkModules(out);
  const tests = run("npm", ["test"], out, { NO_COLOR: "1" });
  assert.is(tests.code, 0, tests.output);
  assert.match(tests.output, /Passed:\s+[1-9]/, "the package's tests ran");
  assert.not.match(tests.output, /error TS\d+/);
});

test("a user's code sees every definition's type under its plain name and the generated modules' own under theirs, and the client runs", async () => {
  const dir = path.join(out, "typetest");
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, "usage.ts"), usage());
  fs.writeFileSync(
    path.join(dir, "tsconfig.json"),
    JSON.stringify({ compilerOptions: { target: "ES2022", module: "NodeNext", moduleResolution: "NodeNext", lib: ["ES2022", "DOM"], strict: true, noEmitOnError: true, noUnusedLocals: false, types: [] }, include: ["*.ts"] }),
  );
  const checked = run(process.execPath, [tsc, "-p", "tsconfig.json", "--pretty", "false"], dir);
  assert.is(checked.code, 0, checked.output);

  const keysFile = path.join(tmp, "keys.json");
  const key = run(process.execPath, ["dist/src/generated/runtime/keys-cli.js", "create"], out, { KEYS_FILE: keysFile });
  assert.is(key.code, 0, key.output);
  const secret = JSON.parse(key.output.trim()).secret as string;
  const port = await freePort();
  const base = `http://127.0.0.1:${port}/v1`;
  service = await start(out, { PORT: String(port), BASE_URL: base, KEYS_FILE: keysFile, DATABASE_FILE: ":memory:", LOG_LEVEL: "warn" }, `${base}/dates`);
  const { run: use } = await import(pathToFileURL(path.join(dir, "usage.js")).href);
  const facts = await use(base, secret);
  assert.is(facts.version, 1);
  assert.is(facts.errorName, "e1");
  assert.is(facts.previousName, "e1", "expand and fields read the linked error back");
  assert.equal(facts.sharedKeys, SHARED.map(([file]) => `shared${file}`).sort());
  // The stubs of the actions answer 501 (not implemented): each was wired to its own handler.
  assert.equal(facts.calls, ACTIONS.map(() => 501));
});

test("a build that fails writes no dist: npm start stops with tsc's error instead of running a half-built package", async () => {
  await service?.stop();
  service = undefined;
  const tsconfig = JSON.parse(fs.readFileSync(path.join(out, "tsconfig.json"), "utf8"));
  assert.is(tsconfig.compilerOptions.noEmitOnError, true);
  fs.writeFileSync(path.join(out, "src/hooks/dates.ts"), `import type { ResourceHooks } from "../generated/errors.js";\nimport type * as types from "../generated/types.js";\n\nexport const hooks: ResourceHooks<types.DateInput, types.Date> = {\n  beforeCreate(input) {\n    const n: number = input.name;\n    return { ...input, name: String(n) };\n  },\n};\n`);
  fs.rmSync(path.join(out, "dist"), { recursive: true, force: true });
  const started = run("npm", ["start"], out, { NO_COLOR: "1", PORT: "0", LOG_LEVEL: "warn" }, 120_000);
  assert.is.not(started.code, 0, started.output);
  assert.match(started.output, /src\/hooks\/dates\.ts\(6,\d+\): error TS2322/);
  assert.not.ok(fs.existsSync(path.join(out, "dist/src/main.js")), "no half-built dist");
  const tests = run("npm", ["test"], out, { NO_COLOR: "1" });
  assert.is.not(tests.code, 0);
  assert.match(tests.output, /error TS2322/);
  assert.not.match(tests.output, /Passed:/, "no test ran");
});

test.after(async () => {
  await service?.stop();
  fs.rmSync(tmp, { recursive: true, force: true });
});
test.run();
