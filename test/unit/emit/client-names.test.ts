/**
 * Resources whose types are named like the client's own (Link, Page, Client, ApiError …): the resource's
 * type keeps the name in client/types.ts, client/index.ts and src/generated/types.ts; the client's own is
 * exported as Client<Name>, and its modules refer to it through namespaces no resource can take. The
 * packages compile in test/e2e/client-type-names.test.ts; here, what is emitted.
 */
import path from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { emitClient } from "../../../src/emit/client.js";
import { emitHandlers } from "../../../src/emit/handlers.js";
import { buildReference } from "../../../src/emit/docs/reference.js";
import { emitReadme } from "../../../src/emit/readme.js";
import { emitTypes } from "../../../src/emit/types.js";
import { clientTypeNames, resourceTypeNames, safeTypeName, serviceTypeNames, typeIdentifier } from "../../../src/model/names.js";
import type { Model } from "../../../src/model/types.js";
import { checkProject } from "../../../src/pipeline.js";
import { repoRoot } from "../../helpers/cli.js";

function modelOf(dir: string): Model {
  const { model, diagnostics } = checkProject(dir);
  assert.ok(model, dir);
  assert.equal(diagnostics.filter((d) => d.severity === "error"), [], dir);
  return model!;
}

const named = modelOf(path.join(repoRoot, "test/fixtures/client-type-names"));
const library = modelOf(path.join(repoRoot, "examples/library"));

test("the model names the client's own types: their own names when free, Client<Name> when a resource's type takes one", () => {
  assert.equal(Object.entries(library.clientTypes).filter(([k, v]) => k !== v), []);
  const renamed = Object.fromEntries(Object.entries(named.clientTypes).filter(([k, v]) => k !== v));
  assert.equal(renamed, { ApiError: "ClientApiError", Client: "ClientClient", CollectionApi: "ClientCollectionApi", Link: "ClientLink", LinkInput: "ClientLinkInput", Meta: "ClientMeta", Page: "ClientPage", Registry: "ClientRegistry" });
});

test("client/types.ts: the resources' Link, Page … declared; select's types imported as a namespace and re-exported as Client<Name>", async () => {
  const [types, server] = await emitTypes(named);
  const text = types!.contents;
  assert.match(text, 'import type * as select from "./select.js";');
  assert.match(text, 'export type { CollectionLink, Link as ClientLink, LinkInput as ClientLinkInput, Meta as ClientMeta, Page as ClientPage } from "./select.js";');
  for (const [type, collection] of [["Link", "links"], ["Page", "pages"], ["Meta", "metas"], ["Client", "clients"], ["Collection", "collections"], ["Registry", "registries"], ["ApiError", "apiErrors"]]) {
    assert.match(text, `export type ${type} = select.Expanded<ClientRegistry, "${collection}">;`);
    assert.match(text, `export interface ${type}Input {`);
  }
  // A link in a body is the client's link input, whatever a resource is called.
  assert.match(text, /export interface LinkInput \{[^}]*page\?: select\.LinkInput/);
  assert.not.match(text, /^import type \{/m, "no type of select.ts is bound by its own name");
  assert.is(server!.contents.includes('export type * from "../../client/types.js";'), true);
});

test("client/index.ts: its own declarations under their public names, every module a namespace, the resources' types by theirs", () => {
  const index = emitClient(named).find((f) => f.path === "client/index.ts")!.contents;
  const imports = [...index.matchAll(/^import .*$/gm)].map((m) => m[0]);
  assert.equal(imports, [
    'import * as runtime from "./runtime.js";',
    'import { actionApi, collectionApi } from "./collection.js";',
    'import type * as select from "./select.js";',
    'import type * as types from "./types.js";',
  ]);
  assert.match(index, "export type { Checked, CollectionLink, Expanded, Link as ClientLink, LinkInput as ClientLinkInput, Meta as ClientMeta, Page as ClientPage, Selected, ServerFields } from \"./select.js\";");
  assert.match(index, "export interface ClientClient {");
  assert.match(index, "export function createClient(options: runtime.ClientOptions): ClientClient {");
  // The calls of every collection are the generic one's (renamed: the collection collections has a CollectionApi).
  assert.match(index, 'export interface LinkApi extends ClientCollectionApi<"links", types.Link, types.LinkInput> {');
  assert.match(index, "export interface ClientCollectionApi<C extends Collection, T, I, Id extends string | number = string> {");
  assert.match(index, "export interface CollectionApi extends ClientCollectionApi<\"collections\", types.Collection, types.CollectionInput>");
  assert.match(index, 'Promise<select.Page<select.Selected<types.ClientRegistry, "pages", F, E>>>');
  assert.not.match(index, /^export (interface|type) (Link|Page|Meta|Client|Collection|Registry|ApiError)\b/m, "no declaration of a resource's name");
});

test("a resource named ApiError: the client exports its error class as ClientApiError, and the README and the reference say so", () => {
  const index = emitClient(named).find((f) => f.path === "client/index.ts")!.contents;
  assert.match(index, "export { ApiError as ClientApiError, PreconditionFailedError, ResponseTooLargeError, TokenError, etagOf,");
  assert.match(index, "error is runtime.ApiError<ErrorCode>");
  const readme = emitReadme(named)[0]!.contents;
  assert.match(readme, 'import { createClient, ClientApiError } from "names-service/client";');
  assert.match(readme, "throws `ClientApiError`");
  const ref = buildReference(named);
  assert.is(ref.apiError, "ClientApiError");
  assert.match(ref.clientSetup, "import { createClient, ClientApiError }");
  assert.match(emitReadme(library)[0]!.contents, 'import { createClient, ApiError } from "library-service/client";');
});

test("the package entry (src/index.ts) exports its own ApiError, Store … as Runtime<Name> when a definition's type takes the name", () => {
  assert.equal(Object.entries(library.serviceTypes).filter(([k, v]) => k !== v), []);
  assert.equal(Object.fromEntries(Object.entries(named.serviceTypes).filter(([k, v]) => k !== v)), { ApiError: "RuntimeApiError" });
  const entry = (m: Model) => emitHandlers(m).find((f) => f.path === "src/index.ts")!.contents;
  assert.match(entry(named), 'export { ApiError as RuntimeApiError } from "./generated/runtime/errors.js";');
  assert.match(entry(library), 'export { ApiError } from "./generated/runtime/errors.js";');
  assert.match(entry(library), "export { createService, start, type Service, type ServiceOptions, type Store } from");
  assert.equal(serviceTypeNames(new Set(["Store", "RuntimeStore", "Service"])), {
    ApiError: "ApiError", ErrorCode: "ErrorCode", ErrorKey: "ErrorKey", KeyRing: "KeyRing", Service: "RuntimeService", ServiceOptions: "ServiceOptions", Store: "RuntimeStore2",
  });
  // Any type of the definitions counts (build-model passes the shared schemas' names too): a shared ErrorCode or Auth.
  assert.is(clientTypeNames(new Set(["ErrorCode", "Auth"])).ErrorCode, "ClientErrorCode");
  assert.is(clientTypeNames(new Set(["ErrorCode", "Auth"])).Auth, "ClientAuth");
});

test("handlers.ts declares the wiring's types and imports hooks and handlers under names no collection or action has", () => {
  const handlers = emitHandlers(library).find((f) => f.path === "src/generated/handlers.ts")!.contents;
  assert.match(handlers, 'import { hooks as hooks_authors } from "../hooks/authors.js";');
  assert.match(handlers, 'import { lookup as action_lookup } from "../actions/lookup.js";');
  assert.match(handlers, '  "books": ResourceHooks<types.BookInput, types.Book>;');
  assert.match(handlers, "export const hooks: Hooks = {");
  assert.match(handlers, '  "lookup": ActionHandler<types.LookupParams, types.LookupResult>;');
  assert.match(handlers, "export const actions: Actions = {");
  const seed = emitHandlers(library).find((f) => f.path === "src/actions/lookup.ts")!.contents;
  assert.match(seed, 'import type { HandlerContext } from "../generated/errors.js";');
  assert.not.match(seed, /^import \{/m, "a handler file imports no value an action's name could clash with");
});

test("type names are written as client/types.ts declares them: a letter after digits upper-cased (json-schema-to-typescript's rule)", () => {
  assert.is(typeIdentifier("ioK8sApiV1beta1Event"), "IoK8SApiV1Beta1Event");
  assert.is(typeIdentifier("customer10"), "Customer10");
  assert.equal(resourceTypeNames("v1betaEvent"), ["V1BetaEvent", "V1BetaEventInput", "V1BetaEventFields", "V1BetaEventApi"]);
  assert.is(safeTypeName("Schema1abc2Def"), "Schema1Abc2Def");
});

test.run();
