/**
 * Emits the typed client (client/): zero dependencies beyond fetch, plain functions and interfaces,
 * typed selections, ApiError with the catalog's codes, and the vendor Accept of this version.
 */
import { idTsType } from "../model/id-forms.js";
import type { ClientTypeName } from "../model/names.js";
import { withArticle } from "../model/names.js";
import type { Model, Resource } from "../model/types.js";
import type { EmittedFile } from "./emitted-file.js";
import { handlerName } from "./handlers.js";
import { doc, docComment, ident, jsValue, key, member, str, stringKey } from "./shared/escape.js";
import { tsHeader } from "./shared/header.js";
import { asset, render } from "./shared/templates.js";

const METHODS = new Set(["create", "list", "get", "update", "replace", "delete"]);

/** The method name of a sub-collection (its field name, unless that is taken by a standard method). */
export function subMethod(field: string): string {
  return METHODS.has(field) ? `${field}Collection` : field;
}

/**
 * The client's own names in client/index.ts: its modules are imported as namespaces (`runtime`, `select`,
 * `types`: lower-case, so no resource's type can take them), and what it declares itself is named as the
 * model decided (a resource's type keeps its plain name; the client's then has another).
 */
function namesOf(model: Model) {
  const own = model.clientTypes;
  const registry = `types.${ident(own.Registry)}`;
  return {
    own,
    registry,
    type: (name: string) => `types.${ident(name)}`,
    page: (collection: string, selection: string) => `select.Page<select.Selected<${registry}, ${str(collection)}, ${selection}>>`,
  };
}

/**
 * The calls every collection has, declared once: a resource's `<Type>Api` extends it with its name, types and id
 * type (a few hundred bytes per resource instead of a few kilobytes: the compiler reads, checks and declares
 * client/index.ts in time proportional to it). The types are as precise as written out per resource.
 */
function collectionApiDeclaration(model: Model): string {
  const { own, registry } = namesOf(model);
  const readOptions = ident(own.ReadOptions);
  const getOptions = ident(own.GetOptions);
  return [
    docComment("The calls of a collection `C` whose representation is `T`, request body `I` and ids `Id` (`api.<collection>`)."),
    `export interface ${ident(own.CollectionApi)}<C extends Collection, T, I, Id extends string | number = string> {`,
    docComment("POST /<collection>: creates an instance; 201 with the new instance.", "  "),
    `  create(body: I, options?: runtime.CallOptions): Promise<T>;`,
    docComment("GET /<collection>: a page of the collection, optionally with fields and expand applied to the items.", "  "),
    `  list<const F extends Sel = undefined, const E extends Sel = undefined>(params?: ${readOptions}<C, F, E>, options?: runtime.CallOptions): Promise<select.Page<select.Selected<${registry}, C, F, E>>>;`,
    docComment("GET /<collection>/{id}: one instance, typed by the fields and expand selections.", "  "),
    `  get<const F extends Sel = undefined, const E extends Sel = undefined>(id: Id, params?: ${getOptions}<C, F, E>, options?: runtime.CallOptions): Promise<select.Selected<${registry}, C, F, E>>;`,
    docComment("PATCH /<collection>/{id}: JSON merge patch (null sets a nullable field to null and removes any other optional field).", "  "),
    `  update(id: Id, patch: ${ident(own.MergePatch)}<I>, options?: runtime.CallOptions): Promise<T>;`,
    docComment("PUT /<collection>/{id}: replaces the whole instance.", "  "),
    `  replace(id: Id, body: I, options?: runtime.CallOptions): Promise<T>;`,
    docComment("DELETE /<collection>/{id}", "  "),
    `  delete(id: Id, options?: runtime.CallOptions): Promise<void>;`,
    `}`,
  ].join("\n");
}

function collectionApi(model: Model, r: Resource): string {
  const { own, type: typeOf, page } = namesOf(model);
  const c = str(r.collection);
  const type = typeOf(r.typeName);
  const input = typeOf(`${r.typeName}Input`);
  const subs = r.fields.filter((f) => f.link?.kind === "collection");
  // A sequence's ids are numbers, as its representations carry them.
  const idType = idTsType(r.idForm);
  const id = `id: ${idType}`;
  const base = `${ident(own.CollectionApi)}<${c}, ${type}, ${input}${idType === "string" ? "" : `, ${idType}`}>`;
  const what = r.name === r.collection ? "an instance" : withArticle(r.name);
  const lines = [
    docComment(`Calls of the ${r.collection} collection: POST /${r.collection} creates ${what}, GET lists them; /${r.collection}/{id} reads, updates (PATCH), replaces (PUT) and deletes one.`),
    `export interface ${ident(r.typeName)}Api extends ${base} {`,
  ];
  for (const f of subs) {
    const t = str(f.link!.target);
    const list = `<const F extends Sel = undefined, const E extends Sel = undefined>(${id}, params?: ${ident(own.ReadOptions)}<${t}, F, E>, options?: runtime.CallOptions): Promise<${page(f.link!.target, "F, E")}>`;
    if (f.link!.inverse) {
      lines.push(docComment(`GET /${r.collection}/{id}/${f.name}: a page of ${f.link!.target} whose ${f.link!.inverse} is this instance.`, "  "), `  ${key(subMethod(f.name))}${list};`);
      continue;
    }
    const target = model.resources.find((x) => x.collection === f.link!.target)!;
    const one = typeOf(target.typeName);
    lines.push(
      docComment(`GET /${r.collection}/{id}/${f.name}: a page of the ${f.link!.target} this instance lists; \`.add\` and \`.remove\` change the list one member at a time.`, "  "),
      `  ${key(subMethod(f.name))}: {`,
      `    ${list};`,
      docComment(`POST /${r.collection}/{id}/${f.name}: adds the ${target.name} \`member\` links to (its href, or the ${target.name} itself) at the end; resolves to that ${target.name} (201, or 200 when it already was one).`, "    "),
      `    add(${id}, member: string | { readonly meta: { readonly href: string } }, options?: runtime.CallOptions): Promise<${one}>;`,
      docComment(`DELETE /${r.collection}/{id}/${f.name}/{memberId}: removes that ${target.name} from the list (it is not deleted); ApiError 404 when it is not in it.`, "    "),
      `    remove(${id}, memberId: ${idTsType(target.idForm)}, options?: runtime.CallOptions): Promise<void>;`,
      `  };`,
    );
  }
  // An interface with nothing of its own is still declared (`BookApi` is the resource's name for its calls).
  if (lines.length === 2) return `${lines[0]}\n${lines[1]}}`;
  lines.push("}");
  return lines.join("\n");
}

function specOf(model: Model, r: Resource): string {
  const subs = r.fields
    .filter((f) => f.link?.kind === "collection")
    .map((f) => {
      const target = model.resources.find((x) => x.collection === f.link!.target)!;
      return `${stringKey(subMethod(f.name))}: [${str(f.name)}, ${str(target.collectionMediaType)}${f.link!.inverse ? "" : `, ${str(target.mediaType)}`}]`;
    });
  return `{ collection: ${str(r.collection)}, mediaType: ${str(r.mediaType)}, collectionMediaType: ${str(r.collectionMediaType)}, subCollections: { ${subs.join(", ")} } }`;
}

/** `name` exported as the public name the model gave it (`Link as ClientLink` when a resource's type is Link). */
function exported(model: Model, name: ClientTypeName, typeOnly: boolean): string {
  const as = model.clientTypes[name];
  return `${typeOnly ? "type " : ""}${name}${as === name ? "" : ` as ${ident(as)}`}`;
}

/** client/index.ts, and the verbatim client modules. */
export function emitClient(model: Model): EmittedFile[] {
  const { own, registry, type: typeOf } = namesOf(model);
  const codes = model.errors.map((e) => jsValue(e.code)).join(" | ");
  const version = jsValue(model.service.version);
  const runtimeExports = [
    ...(["ApiError", "PreconditionFailedError", "ResponseTooLargeError", "TokenError"] as const).map((n) => exported(model, n, false)),
    "etagOf",
    ...(["Auth", "CallOptions", "ClientOptions", "ErrorBody", "RetryOptions"] as const).map((n) => exported(model, n, true)),
  ];
  const selectExports = (["Checked", "CollectionLink", "Expanded", "Link", "LinkInput", "Meta", "Page", "Selected", "ServerFields"] as const).map((n) => exported(model, n, false));
  const errorCode = ident(own.ErrorCode);
  const getOptions = ident(own.GetOptions);
  const readOptions = ident(own.ReadOptions);
  const client = ident(own.Client);
  const body = [
    `import * as runtime from "./runtime.js";`,
    `import { actionApi, collectionApi } from "./collection.js";`,
    `import type * as select from "./select.js";`,
    `import type * as types from "./types.js";`,
    "",
    `export { ${runtimeExports.join(", ")} } from "./runtime.js";`,
    `export type { ${selectExports.join(", ")} } from "./select.js";`,
    `export type * from "./types.js";`,
    "",
    docComment(`The vendor media types this client pins (version ${model.service.version}).`),
    `export const version = ${version};`,
    "",
    `/** Every error code the service answers with. */`,
    `export type ${errorCode} = ${codes};`,
    "",
    docComment(`True for an ${own.ApiError} of this service, with its code typed.`),
    `export function isApiError(error: unknown): error is runtime.ApiError<${errorCode}> {`,
    `  return error instanceof runtime.ApiError;`,
    `}`,
    "",
    `type Sel = readonly string[] | undefined;`,
    `type Collection = keyof ${registry};`,
    `/** fields and expand of a read, checked against the resource at compile time. */`,
    `export interface ${getOptions}<C extends Collection, F extends Sel, E extends Sel> {`,
    `  fields?: F & select.Checked<${registry}, C, NonNullable<F>, "fields">;`,
    `  expand?: E & select.Checked<${registry}, C, NonNullable<E>, "expand">;`,
    `}`,
    `/** Paging plus fields and expand. */`,
    `export interface ${readOptions}<C extends Collection, F extends Sel, E extends Sel> extends ${getOptions}<C, F, E> {`,
    `  offset?: number;`,
    `  limit?: number;`,
    `}`,
    `/** A JSON merge patch of T: any subset of its fields; null sets a nullable one to null and removes any other optional one. */`,
    `export type ${ident(own.MergePatch)}<T> = { [K in keyof T]?: T[K] | null };`,
    "",
    collectionApiDeclaration(model),
    "",
    ...model.resources.map((r) => collectionApi(model, r) + "\n"),
    docComment(`The client of ${model.service.title}: one object per collection, one function per action.`),
    `export interface ${client} {`,
    ...model.resources.map((r) => `  ${key(r.collection)}: ${ident(r.typeName)}Api;`),
    ...model.actions.map((a) => `${docComment(`${a.method} /${a.name}${a.description ? `: ${a.description}` : ""}`, "  ")}\n  ${key(handlerName(a))}(params: ${typeOf(`${a.typeName}Params`)}, options?: runtime.CallOptions): Promise<${typeOf(`${a.typeName}Result`)}>;`),
    `}`,
    "",
    `/**`,
    ` * Creates the client. Every non-2xx answer throws ${own.ApiError}.`,
    ` * @example ${doc(`const api = createClient({ baseUrl: ${str(model.service.baseUrl)}, auth: { bearer: secret } });`, "")}`,
    ` */`,
    `export function createClient(options: runtime.ClientOptions): ${client} {`,
    `  return {`,
    ...model.resources.map((r) => `    ${key(r.collection)}: collectionApi(options, ${specOf(model, r)}) as unknown as ${ident(r.typeName)}Api,`),
    ...model.actions.map((a) => `    ${key(handlerName(a))}: actionApi(options, ${str(a.name)}, ${str(a.method)}, ${str(a.mediaType)}) as unknown as ${client}[${str(handlerName(a))}],`),
    `  };`,
    `}`,
    "",
  ].join("\n");
  const verbatim = ["runtime.ts", "select.ts", "collection.ts"].map((name) => ({
    path: `client/${name}`,
    contents: tsHeader(`client module, copied from resourcery's templates/client/${name}`) + asset("client", name),
    owner: "generated" as const,
  }));
  return [{ path: "client/index.ts", contents: tsHeader("the typed client") + body, owner: "generated" }, ...verbatim];
}

/** The name of the standalone client package: "<name>-client", "<name>-client-v<N>" for an older version N (so that both can be installed). */
export function clientPackageName(serviceName: string, olderVersion?: number): string {
  return olderVersion === undefined ? `${serviceName}-client` : `${serviceName}-client-v${olderVersion}`;
}

/** `generate --client-only`: the client as a package of its own, for the API's consumers (of an older version: `--version N`, modelOfVersion's model). */
export async function emitClientPackage(model: Model, types: readonly EmittedFile[]): Promise<EmittedFile[]> {
  const { service } = model;
  const first = model.resources[0];
  const examples = first
    ? [
        `const page = await ${member("api", first.collection)}.list({ offset: 0, limit: 10 });`,
        `const one = await ${member("api", first.collection)}.get(page.items[0]!.id, { fields: ["id"] });`,
      ]
    : [];
  const older = service.currentVersion !== undefined;
  const name = clientPackageName(service.name, older ? service.version : undefined);
  const description = `Typed client of ${service.title}${older ? `, version ${service.version}` : ""}`;
  const own = model.clientTypes;
  const data = { name, apiError: own.ApiError, tokenError: own.TokenError, preconditionFailedError: own.PreconditionFailedError, etagApi: first ? member("api", first.collection) : "", title: service.title, description, version: service.version, baseUrl: service.baseUrl, examples };
  return [
    ...emitClient(model),
    ...types.filter((f) => f.path.startsWith("client/")),
    { path: "package.json", contents: render("package/client-package.json.hbs", data), owner: "generated" },
    { path: "tsconfig.json", contents: render("package/client-tsconfig.json.hbs", data), owner: "generated" },
    { path: "README.md", contents: render("package/client-README.md.hbs", data), owner: "generated" },
  ];
}
