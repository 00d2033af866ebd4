/**
 * The content of the HTML and Markdown references, decided once from the model: every page, section,
 * table row, example and link, in a form neither format owns. Text is a list of segments (plain or
 * code) and a link names a page of the docs root without its extension, so each renderer only maps
 * them to its own syntax and escaping.
 */
import { withArticle } from "../../model/names.js";
import { clientPackageName, subMethod } from "../client.js";
import { STATUS_CODES } from "node:http";
import type { Action, ErrorDef, Field, IdForm, JsonSchema, Model, Resource } from "../../model/types.js";
import { isIdentifier } from "../../model/names.js";
import { handlerName } from "../handlers.js";
import { jsValue, member, shellWord, str } from "../shared/escape.js";
import { sampleOf, sharedSchemasKey, withSharedResolved } from "../samples.js";
import { SharedSchemas } from "../../model/shared.js";
import { BODY_LIMIT, PAGING } from "../spec.js";
import { describeIds } from "../../model/id-forms.js";
import { exampleIdOf, serverFieldDoc } from "../shared/server-fields.js";
import { Deferred, keyOf } from "../keys.js";
import { memo } from "../memo.js";
import { issuesTokens } from "../shared/auth.js";
import { expandNames, fieldNames, operationsKey, operationsOf, resourceOf, type Operation } from "./operations.js";

/** A run of text, shown as code or as prose, and linked when `link` is set. */
export interface Segment {
  readonly text: string;
  readonly code: boolean;
  readonly link: Target | undefined;
}
export type Text = readonly Segment[];

/** A place in the reference: a page (path from the docs root, no extension) and an optional anchor. */
export interface Target {
  readonly page: string;
  readonly anchor: string;
}

export interface ErrorRef {
  readonly code: number;
  readonly status: number;
  readonly title: string;
  readonly target: Target;
}

export interface FieldDoc {
  readonly name: string;
  readonly anchor: string;
  readonly type: Text;
  readonly required: boolean;
  readonly description: Text;
  readonly constraints: readonly Text[];
}

export interface ParamDoc {
  readonly name: string;
  readonly in: "path" | "query";
  readonly type: Text;
  readonly required: boolean;
  readonly description: Text;
  readonly constraints: readonly Text[];
}

export interface OperationDoc extends OperationSummary {
  readonly description: Text;
  /** Who may call it. */
  readonly access: Text;
  readonly params: readonly ParamDoc[];
  /** Media types a request body may have, and an example (JSON text); undefined without a body. */
  readonly body: { readonly mediaTypes: readonly string[]; readonly example: string } | undefined;
  readonly curl: string;
  readonly client: string;
  readonly status: number;
  readonly statusText: string;
  /** Content-Type of the success answer (undefined for 204). */
  readonly responseType: string | undefined;
  /** Example success body (JSON text), undefined when there is none. */
  readonly response: string | undefined;
  readonly errors: readonly ErrorRef[];
}

export interface LinkDoc {
  readonly name: string;
  readonly fieldAnchor: string;
  readonly kind: "instance" | "collection";
  readonly target: Target;
  readonly targetName: string;
  readonly description: Text;
}

export interface ResourcePage {
  readonly page: string;
  readonly collection: string;
  readonly title: string;
  readonly description: Text;
  readonly facts: readonly { readonly label: string; readonly value: Text }[];
  readonly access: readonly { readonly action: string; readonly roles: Text }[];
  /**
   * The rows of its fields and its links, computed when read (a page rendered, the search index's entries of
   * a resource changed since the memo's): keyed by what they are made from, as operationDocs.
   */
  readonly fields: Deferred<readonly FieldDoc[]>;
  readonly links: Deferred<readonly LinkDoc[]>;
  readonly clientSetup: string;
  /** What lists the resource's operations needs (the overview, the search index): made at once. */
  readonly operations: readonly OperationSummary[];
  /**
   * Each operation in full, as its page shows it: computed when read, so that a regeneration that finds the
   * page's key unchanged (its JSON holds the key of what they are made from) never computes them.
   */
  readonly operationDocs: Deferred<readonly OperationDoc[]>;
}

/** An operation as lists name it. */
export interface OperationSummary {
  readonly id: string;
  readonly anchor: string;
  readonly method: string;
  readonly path: string;
  readonly summary: string;
}

export interface ErrorPage {
  readonly page: string;
  readonly code: number;
  readonly status: number;
  readonly statusText: string;
  readonly key: string;
  readonly title: string;
  readonly message: Text;
  readonly dev: Text;
  readonly builtin: boolean;
  /** When it happens, as a sentence. */
  readonly condition: Text;
  /** Every operation of the service can answer with it (then `operations` is empty: a list would name them all). */
  readonly everyOperation: boolean;
  /**
   * The operations that can answer with it, one line per resource (and one for the actions): the
   * resource linked, then its operations as links labelled with the method and the path below the
   * resource's ("GET /{id}"). Per resource rather than per operation, so that a common code's page
   * stays readable (and small) for a service of hundreds of resources.
   */
  readonly operations: readonly Text[];
  readonly example: string;
  readonly info: string;
}

export interface Convention {
  readonly anchor: string;
  readonly title: string;
  readonly rules: string;
  readonly paragraphs: readonly Text[];
  /** An example (JSON text), or "". */
  readonly example: string;
}

export interface SearchEntry {
  /** What it is: resource, field, operation, action, error, section. */
  readonly kind: string;
  readonly title: string;
  readonly detail: string;
  /** Path from the docs root, without extension, with "#anchor" when it has one. */
  readonly page: string;
  readonly anchor: string;
}

export interface Reference {
  readonly title: string;
  readonly description: Text;
  readonly baseUrl: string;
  readonly version: number;
  readonly vendor: string;
  readonly errorDocsUrl: string;
  readonly auth: {
    readonly realm: string;
    readonly schemes: readonly { readonly name: string; readonly header: string; readonly text: Text }[];
    readonly challenges: readonly string[];
    readonly notes: readonly Text[];
  };
  readonly mediaTypes: readonly { readonly subject: string; readonly kind: string; readonly name: string; readonly alias: string }[];
  readonly negotiation: readonly Text[];
  readonly conventions: readonly Convention[];
  readonly clientSetup: string;
  /** The name the client exports its error class under (ApiError, unless a resource's type is named so). */
  readonly apiError: string;
  readonly resources: readonly ResourcePage[];
  readonly actions: { readonly page: string; readonly description: Text; readonly clientSetup: string; readonly operations: readonly OperationDoc[] };
  readonly errors: readonly ErrorPage[];
  readonly search: readonly SearchEntry[];
}

/**
 * The digest of what the overview pages (index.html, index.md) show of a reference (emit/keys.ts): the service,
 * its authentication, media types and conventions, each resource's collection, title, description and operation
 * summaries, the actions, and each error's code, status, title and message — not the resources' fields, nor the
 * operations' docs, which a regeneration then need not compute for them.
 */
export function overviewKey(ref: Reference): string {
  return keyOf(
    "overview",
    [ref.title, ref.description, ref.baseUrl, ref.version, ref.vendor, ref.errorDocsUrl, ref.auth, ref.mediaTypes, ref.negotiation, ref.conventions, ref.clientSetup, ref.apiError],
    ref.resources.map((r) => [r.page, r.collection, r.title, r.description, r.operations]),
    ref.actions,
    ref.errors.map((e) => [e.page, e.code, e.status, e.title, e.message]),
  );
}

/** The page names of the reference. */
export const PAGES = { index: "index", actions: "actions", resource: (c: string) => `resources/${c}`, error: (code: number) => String(code) } as const;

/** The ids in an operation's examples: its instance's (exampleInstance's), and its member's (a linked instance, as exampleInput writes it). */
function sampleIds(model: Model, op: Operation): { id: string | number; member: string | number } {
  const r = op.resource;
  const target = op.field?.link ? resourceOf(model, op.field.link.target) : undefined;
  return { id: r ? exampleIdOf(model, r) : "", member: target ? exampleIdOf(model, target, 1) : "" };
}

/** The type of an id of a form, in the docs' words. */
function idTypeText(form: IdForm): string {
  return form.kind === "sequence" ? "integer" : form.kind === "uuid" ? "string (uuid)" : "string";
}

// ---------------------------------------------------------------------------------------------------
// Text

export const plain = (text: string): Segment => ({ text, code: false, link: undefined });
export const code = (text: string, link?: Target): Segment => ({ text, code: true, link });

/** Prose that may hold `code spans` (descriptions, the catalog's texts). */
export function prose(text: string): Text {
  const out: Segment[] = [];
  const parts = text.split("`");
  // An odd number of parts means every backtick is paired; otherwise keep the text as it is.
  if (parts.length % 2 === 0) return text ? [plain(text)] : [];
  parts.forEach((part, i) => {
    if (part) out.push(i % 2 === 1 ? code(part) : plain(part));
  });
  return out;
}

/** Text from pieces: strings are prose (with `code`), segments are kept. */
export function text(...pieces: (string | Segment | Text)[]): Text {
  return pieces.flatMap((p) => (typeof p === "string" ? prose(p) : Array.isArray(p) ? (p as Text) : [p as Segment]));
}

/** Items as code, joined with ", ", each linked to `link(item)` when given. */
function codeList(items: readonly string[], link?: (item: string) => Target | undefined): Segment[] {
  return items.flatMap((item, i) => (i === 0 ? [code(item, link?.(item))] : [plain(", "), code(item, link?.(item))]));
}

/** The plain string of a text (search index, titles). */
export function flat(t: Text): string {
  return t.map((s) => s.text).join("");
}

/** A name usable as an HTML id and URL fragment, unique per name: characters outside [A-Za-z0-9_-] become .<hex>. */
export function slug(name: string): string {
  return name.replace(/[^A-Za-z0-9_-]/g, (c) => `.${c.codePointAt(0)!.toString(16)}`);
}

const target = (page: string, anchor = ""): Target => ({ page, anchor });

/** The relative URL of the file `to` from the file `from` (both relative to the docs root). */
export function relativePath(from: string, to: string): string {
  const dir = from.split("/").slice(0, -1);
  const parts = to.split("/");
  let same = 0;
  while (same < dir.length && same < parts.length - 1 && dir[same] === parts[same]) same++;
  return "../".repeat(dir.length - same) + parts.slice(same).join("/");
}

/**
 * Relative paths of pages (without extension) by folder of the linking file, then by page: a page
 * links the same few pages many times, and the pages of a folder link the same ones. The folder of
 * the last file asked for is kept, as links are resolved one file at a time.
 */
const relativePages = new Map<string, Map<string, string>>();
let lastFile: string | undefined;
let lastPages = new Map<string, string>();

function relativePage(file: string, page: string): string {
  if (file !== lastFile) {
    const folder = file.slice(0, file.lastIndexOf("/") + 1);
    let pages = relativePages.get(folder);
    if (!pages) relativePages.set(folder, (pages = new Map()));
    lastFile = file;
    lastPages = pages;
  }
  let out = lastPages.get(page);
  if (out === undefined) lastPages.set(page, (out = relativePath(file, page)));
  return out;
}

/** The href of a target from `file`, for pages with extension `ext`; an anchor on the same page is "#anchor". */
export function hrefFrom(file: string, to: Target, ext: string): string {
  if (to.anchor && file.length === to.page.length + ext.length && file.startsWith(to.page) && file.endsWith(ext)) return `#${to.anchor}`;
  const path = relativePage(file, to.page) + ext;
  return to.anchor ? `${path}#${to.anchor}` : path;
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** "a book", "an author". */
export const article = withArticle;
const json = (value: unknown): string => JSON.stringify(value, null, 2);

// ---------------------------------------------------------------------------------------------------
// Schemas

type Schema = { readonly [key: string]: unknown };

function asSchema(written: JsonSchema | undefined): Schema {
  const s = written === undefined ? undefined : withSharedResolved(written);
  return typeof s === "object" && s !== null ? s : {};
}

/** A short type: "string (email)", "array of string", "integer or null", "one of …". */
export function typeText(schema: JsonSchema): string {
  return typeTextWithin(schema, new Set(), new Set());
}

/**
 * typeText, with the shared schemas being spelt out around this one in `within`: a shared schema met again
 * inside itself (a JSON value's "array of Json") is named, not spelt out again without end. A shared union or
 * array is spelt out once per text (`spelt`) and named where it comes again, so that a text grows with the
 * schemas it reaches, not with the paths to them (unions of unions of the same schemas double at each level).
 */
function typeTextWithin(schema: JsonSchema, within: ReadonlySet<string>, spelt: Set<string>): string {
  const name = SharedSchemas.nameOf(schema);
  if (name !== undefined && within.has(name)) return name;
  const inner = name === undefined ? within : new Set([...within, name]);
  const typeText = (sub: JsonSchema) => typeTextWithin(sub, inner, spelt);
  const s = asSchema(schema);
  if (schema === true || Object.keys(s).length === 0) return "any";
  if (schema === false) return "nothing";
  const variants = (s["oneOf"] ?? s["anyOf"]) as JsonSchema[] | undefined;
  if (name !== undefined && (Array.isArray(variants) || s["items"] !== undefined)) {
    if (spelt.has(name)) return name;
    spelt.add(name);
  }
  if (Array.isArray(variants)) return variants.map(typeText).join(" or ");
  let type = s["type"];
  if (type === undefined && Array.isArray(s["enum"])) type = [...new Set((s["enum"] as unknown[]).map(jsonType))];
  if (type === undefined && "const" in s) type = jsonType(s["const"]);
  const types = (Array.isArray(type) ? type : type === undefined ? ["any"] : [type]) as string[];
  return types
    .map((t) => {
      if (t === "array") return s["items"] !== undefined ? `array of ${typeText(s["items"] as JsonSchema)}` : "array";
      if (t === "string" && typeof s["format"] === "string") return `string (${s["format"]})`;
      return t;
    })
    .join(" or ");
}

function jsonType(v: unknown): string {
  return v === null ? "null" : Array.isArray(v) ? "array" : Number.isInteger(v) ? "integer" : typeof v;
}

const LIMITS: readonly (readonly [string, (n: number) => string])[] = [
  ["minLength", (n) => `at least ${plural(n, "character")}`],
  ["maxLength", (n) => `at most ${plural(n, "character")}`],
  ["minimum", (n) => `≥ ${n}`],
  ["maximum", (n) => `≤ ${n}`],
  ["exclusiveMinimum", (n) => `> ${n}`],
  ["exclusiveMaximum", (n) => `< ${n}`],
  ["multipleOf", (n) => `a multiple of ${n}`],
  ["minItems", (n) => `at least ${plural(n, "item")}`],
  ["maxItems", (n) => `at most ${plural(n, "item")}`],
  ["minProperties", (n) => `at least ${plural(n, "property", "properties")}`],
  ["maxProperties", (n) => `at most ${plural(n, "property", "properties")}`],
];

/** The constraints a schema puts on a value, one text each. */
export function constraintsOf(schema: JsonSchema): Text[] {
  const s = asSchema(schema);
  const out: Text[] = [];
  for (const [key, phrase] of LIMITS) {
    if (typeof s[key] === "number") out.push([plain(phrase(s[key] as number))]);
  }
  if (typeof s["pattern"] === "string") out.push([plain("matches "), code(s["pattern"])]);
  if (Array.isArray(s["enum"])) out.push([plain("one of "), ...codeList((s["enum"] as unknown[]).map((v) => JSON.stringify(v)))]);
  if ("const" in s) out.push([plain("always "), code(JSON.stringify(s["const"]))]);
  if (s["uniqueItems"] === true) out.push([plain("items are unique")]);
  if ("default" in s) out.push([plain("default "), code(JSON.stringify(s["default"]))]);
  const items = asSchema(s["items"] as JsonSchema | undefined);
  for (const c of s["items"] !== undefined ? constraintsOf(items) : []) out.push([plain("each item: "), ...c]);
  if (s["readOnly"] === true) out.push([plain("read-only")]);
  return out;
}

function describe(own: string, schema: JsonSchema): Text {
  const fallback = asSchema(schema)["description"];
  return prose(own || (typeof fallback === "string" ? fallback : ""));
}

// ---------------------------------------------------------------------------------------------------
// The reference

const referenceCache = new WeakMap<Model, Reference>();

/** Everything both references show, from the model (built once per model: HTML and Markdown share it). */
export function buildReference(model: Model): Reference {
  let ref = referenceCache.get(model);
  if (!ref) referenceCache.set(model, (ref = computeReference(model)));
  return ref;
}

function computeReference(model: Model): Reference {
  const { service } = model;
  const ops = operationsOf(model);
  const errorsByKey = new Map(model.errors.map((e) => [e.key, e]));
  const errorRefs = (keys: readonly string[]): ErrorRef[] =>
    [...new Set(keys)]
      .map((k) => errorsByKey.get(k))
      .filter((e): e is ErrorDef => e !== undefined)
      .sort((a, b) => a.code - b.code)
      .map((e) => ({ code: e.code, status: e.status, title: e.title, target: target(PAGES.error(e.code)) }));
  const ref = (key: string): Segment[] => {
    const e = errorsByKey.get(key);
    return e ? [code(String(e.code), target(PAGES.error(e.code))), plain(` ${e.title}`)] : [code(key)];
  };
  const auth = authOf(model);
  const clientSetup = clientSetupOf(model);
  const docOf = (op: Operation): OperationDoc => operationDoc(model, op, errorRefs(op.errors), auth.credential);

  const byTag = new Map<string, Operation[]>();
  for (const op of ops) {
    if (op.kind === "action") continue;
    const list = byTag.get(op.tag);
    if (list) list.push(op);
    else byTag.set(op.tag, [op]);
  }
  // What operationDoc reads of the model besides each operation and the resources it names: the service (base
  // URL, credentials), the error catalog, the shared schemas (server fields' declared examples).
  const opInputs = [service, model.errors, sharedSchemasKey()] as const;
  const resources: ResourcePage[] = model.resources.map((r) => {
    const page = PAGES.resource(r.collection);
    const own = byTag.get(r.collection) ?? [];
    return {
      page,
      collection: r.collection,
      title: r.title || r.collection,
      description: prose(r.description),
      facts: resourceFacts(r),
      access: accessOf(r),
      // fieldsOf reads the resource and the shared schemas; linksOf the name of each link's target besides.
      fields: new Deferred(
        () => fieldsOf(model, r),
        () => keyOf("field docs", r, sharedSchemasKey()),
      ),
      links: new Deferred(
        () => linksOf(model, r),
        () => keyOf("link docs", r, r.fields.flatMap((f) => (f.link ? [resourceOf(model, f.link.target)?.name ?? null] : []))),
      ),
      clientSetup,
      operations: own.map(summaryOf),
      operationDocs: new Deferred(
        () => own.map(docOf),
        () => keyOf("operation docs", ...opInputs, operationsKey(model, own)),
      ),
    };
  });
  const actions = {
    page: PAGES.actions,
    description: model.actions.length
      ? text("Actions are operations that are not about a resource (E2): their path segment is a verb and their inputs are query parameters (E3). Each answers 200 with its result; a parameter that fails its schema is a 400 (", ref("invalidParameter"), ").")
      : text("This service has no actions."),
    clientSetup,
    operations: ops.filter((o) => o.kind === "action").map(docOf),
  };

  // Per error key, the operations that can answer with it, grouped by page (operations come resource by resource).
  const usedBy = new Map<string, { count: number; groups: Map<string, Segment[]> }>();
  for (const op of ops) {
    const action = op.kind === "action";
    const page = action ? PAGES.actions : PAGES.resource(op.tag);
    // The path below the collection's ("/{id}", "" for the collection itself); an action's whole path.
    const suffix = action ? op.path : op.path.slice(op.tag.length + 1);
    const link = code(suffix ? `${op.method} ${suffix}` : op.method, target(page, `op-${slug(op.id)}`));
    for (const key of new Set(op.errors)) {
      let used = usedBy.get(key);
      if (!used) usedBy.set(key, (used = { count: 0, groups: new Map() }));
      used.count++;
      const line = used.groups.get(page);
      if (line) line.push(plain(", "), link);
      else used.groups.set(page, [action ? { text: "Actions", code: false, link: target(page) } : code(`/${op.tag}`, target(page)), plain(": "), link]);
    }
  }
  const errors: ErrorPage[] = model.errors.map((e) => {
    const used = usedBy.get(e.key);
    // Each operation counts once per key: all of them when the count is that of the service's operations.
    const every = used !== undefined && used.count === ops.length;
    return {
      page: PAGES.error(e.code),
      code: e.code,
      status: e.status,
      statusText: STATUS_CODES[e.status] ?? "",
      key: e.key,
      title: e.title,
      message: prose(e.message),
      dev: prose(e.dev),
      builtin: e.builtin,
      condition: conditionOf(model, e),
      everyOperation: every,
      operations: every || !used ? [] : [...used.groups.values()],
      example: json({ status: e.status, code: e.code, property: exampleProperty(model, e), message: e.message, dev: e.dev, info: e.info }),
      info: e.info,
    };
  });

  return {
    title: service.title,
    description: prose(service.description),
    baseUrl: service.baseUrl,
    version: service.version,
    vendor: service.vendor,
    errorDocsUrl: service.errorDocsUrl,
    auth: { realm: auth.realm, schemes: auth.schemes, challenges: auth.challenges, notes: auth.notes(ref) },
    mediaTypes: model.mediaTypes.map((m) => ({ subject: m.subject, kind: m.kind, name: m.name, alias: m.alias })),
    negotiation: negotiationOf(model, ref),
    conventions: conventionsOf(model, ref, (errors.find((e) => e.key === "conflict") ?? errors[0])?.example ?? ""),
    clientSetup,
    apiError: model.clientTypes.ApiError,
    resources,
    actions,
    errors,
    search: searchIndex(resources, actions.operations, errors),
  };
}

// ---------------------------------------------------------------------------------------------------
// Authentication and media types

function authOf(model: Model) {
  const { schemes, realm } = model.service.auth;
  const bearer = schemes.some((s) => s === "bearer" || s === "apiKey" || s === "oauth2");
  const basic = schemes.some((s) => s === "basic" || s === "apiKey");
  const out: { name: string; header: string; text: Text }[] = [];
  if (bearer) {
    out.push({
      name: "Bearer",
      header: "Authorization: Bearer <key secret>",
      text: text(`Send the secret of an API key as a Bearer token (enabled by ${schemes.filter((s) => s !== "basic").map((s) => `\`${s}\``).join(", ")}). Keys are created with \`npm run keys -- create --roles <roles>\` on the server, which prints \`{"id": ..., "secret": ...}\`; the service stores only a hash of the secret.`),
    });
  }
  if (basic) {
    out.push({
      name: "Basic",
      header: "Authorization: Basic base64(<key id>:<key secret>)",
      text: text("Send the key id and its secret joined by a colon, base64-encoded. Basic is accepted over TLS (https) only (A3): over plain HTTP it is refused with 401 even when the key is valid."),
    });
  }
  if (schemes.includes("oauth2")) {
    const { oauth2 } = model.service.auth;
    const own = issuesTokens(model.service.auth);
    out.push({
      name: "OAuth 2.0",
      header: "Authorization: Bearer <access token>",
      text: text(
        own ? `Get an access token with the client-credentials grant: \`POST ${model.service.baseUrl}/oauth/token\` with the form \`grant_type=client_credentials&client_id=<key id>&client_secret=<key secret>\` and an optional \`scope\` (a space-separated subset of the key's roles). It answers \`{ "access_token", "token_type": "Bearer", "expires_in", "scope" }\`; send the token as a Bearer token until it expires. ` : "",
        oauth2?.issuer !== undefined ? `Access tokens of ${oauth2.issuer} (for the audience ${(oauth2.audience ?? []).join(", ")}) are accepted too, their roles read from the \`${oauth2.rolesClaim ?? "scope"}\` claim. ` : "",
        'A token that is expired or otherwise not valid answers 401 with `error="invalid_token"` in the challenge; a token without the role an operation needs, 403 with `error="insufficient_scope"`.',
      ),
    });
  }
  if (schemes.includes("oauth1")) {
    out.push({
      name: "OAuth 1.0a",
      header: 'Authorization: OAuth oauth_consumer_key="<key id>", oauth_signature_method="HMAC-SHA256", …',
      text: text("Sign each request with OAuth 1.0a (RFC 5849), HMAC-SHA256 or HMAC-SHA1: the key id is the consumer key, and the key's OAuth 1.0a signing secret (printed once by `npm run keys -- create --oauth1`) the consumer secret; there is no token. A bad signature, a timestamp more than 300 s off or a nonce used before answers 401."),
    });
  }
  const challenges = [...new Set(schemes.map((s) => `${s === "basic" ? "Basic" : s === "oauth1" ? "OAuth" : "Bearer"} realm="${realm}"`))];
  const credential = bearer ? { curl: `-H "Authorization: Bearer $SECRET"`, client: "{ bearer: process.env.SECRET! }" } : { curl: `-u "$KEY_ID:$SECRET"`, client: "{ basic: { id: process.env.KEY_ID!, secret: process.env.SECRET! } }" };
  const notes = (ref: (k: string) => Segment[]): Text[] => [
    text("Every request carries its own credentials (A1): there is no session and no cookie. API keys are used rather than user names and passwords (A5)."),
    text("No credentials, or credentials that are not valid, answer 401 ", ref("unauthenticated"), " with one `WWW-Authenticate` challenge per enabled scheme (A6)", basic ? text("; Basic over plain HTTP answers 401 ", ref("basicNeedsTls")) : [], "."),
    text("Valid credentials without the role the operation needs, or for an instance owned by another key, answer 403 ", ref("forbidden"), " (A6). Roles are listed per operation; the decision is taken on the loaded instance, not on the URL (A2)."),
  ];
  return { realm, schemes: out, challenges, credential, notes };
}

function negotiationOf(model: Model, ref: (k: string) => Segment[]): Text[] {
  const { vendor, version } = model.service;
  const first = model.mediaTypes.find((m) => m.kind === "instance") ?? model.mediaTypes[0];
  const example = first?.name ?? `application/vnd.${vendor}.v${version}.<resource>+json`;
  return [
    text(`Every representation has a vendor media type in two equivalent shapes (V1): \`application/vnd.${vendor}.v${version}.<subject>+json\` and \`application/${vendor}.v${version}.<subject>.json\`. \`application/json\` is always served too.`),
    text(`\`Accept\` is a comma-separated list of media ranges with optional q-values and wildcards, e.g. \`Accept: ${example}, application/json;q=0.5\`; the service picks the acceptable representation weighed highest and names it in \`Content-Type\`. Without \`Accept\`, any representation is acceptable.`),
    text(`The version is part of the vendor type (\`v${version}\`) and may also be given as a parameter, e.g. \`application/json;version=${version}\` (V1, V2). Asking for another version answers 406 `, ref("unknownVersion"), "; an `Accept` that matches nothing the service offers answers 406 ", ref("notAcceptable"), "."),
    text("Request bodies are JSON: `Content-Type: application/json`, the resource's vendor type, or `application/merge-patch+json` for PATCH. Any other body type answers 415 ", ref("unsupportedMediaType"), "."),
  ];
}

// ---------------------------------------------------------------------------------------------------
// Conventions

function conventionsOf(model: Model, ref: (k: string) => Segment[], errorExample: string): Convention[] {
  const { service } = model;
  const r = model.resources[0];
  const c = r?.collection ?? "accounts";
  const linked = model.resources.find((x) => x.fields.some((f) => f.link?.kind === "instance"));
  const link = linked?.fields.find((f) => f.link?.kind === "instance");
  const a = model.actions[0];
  const versionSegment = /\/v\d+(\/|$)/.exec(new URL(service.baseUrl).pathname)?.[0].replace(/\//g, "");
  return [
    {
      anchor: "resources-are-nouns",
      title: "Resources are nouns",
      rules: "R1–R3, E1",
      paragraphs: [
        text(`There are two kinds of resource: a collection, such as \`/${c}\`, and an instance of it, \`/${c}/{id}\` (R1, R3). Path segments are plural nouns, never verbs (R2); the HTTP method carries the action (E1): \`POST\` creates, \`GET\` reads, \`PATCH\` (or \`POST\` on an instance) updates with a JSON merge patch, \`PUT\` replaces and \`DELETE\` deletes. A method a route does not have answers 405 `, ref("methodNotAllowed"), " with an `Allow` header."),
        text(`Paths in this reference are relative to the base URL \`${service.baseUrl}\`; ids are assigned by the server. The server owns \`id\`, \`meta\`, \`createdAt\` and \`modifiedAt\`: sending them answers 400 `, ref("readOnlyProperty"), "."),
      ],
      example: "",
    },
    {
      anchor: "actions-are-verbs",
      title: "Actions are verbs",
      rules: "E2, E3",
      paragraphs: [
        a
          ? text(`An operation that is not about a resource uses a verb as its path segment, and takes its inputs as query parameters (E2, E3): \`${a.method} /${a.name}?${a.params.map((p) => `${p.name}=…`).join("&")}\`. A parameter that fails its schema answers 400 `, ref("invalidParameter"), ".")
          : text("An operation that is not about a resource would use a verb as its path segment, with its inputs as query parameters (E2, E3). This service has no actions."),
      ],
      example: "",
    },
    {
      anchor: "meta-links",
      title: "Links: meta",
      rules: "V2, V3",
      paragraphs: [
        text(`Every instance and collection carries \`meta: { href, mediaType }\`: \`href\` is its absolute URL, starting with the base URL${versionSegment ? ` (whose \`${versionSegment}\` segment is the API version, V3)` : ""}, and \`mediaType\` is the vendor type of the representation (V2).`),
        text(`A link to another resource is the same object, \`{ "meta": { "href", "mediaType" } }\`. To write a link, send \`{ "meta": { "href": "<href of an existing instance>" } }\`: the href of an instance of the link's collection under this service's base URL (a path such as \`${service.basePath}/<collection>/<id>\` is read against the base URL). An href on another host, of another collection, or that names no instance answers 400 `, ref("invalidLink"), " with `property` set to the link."),
        text("Links stay whole: deleting an instance that others link to answers 409 ", ref("stillLinked"), " with `property` set to the linking collection and field (e.g. `books.author`), unless that link says it is deleted with it or cleared (each resource page says which); a stored list of links drops a deleted member."),
      ],
      example: "",
    },
    {
      anchor: "fields-and-expand",
      title: "Partial and expanded representations",
      rules: "§4 expand, fields",
      paragraphs: [
        text(`\`?expand=a,b\` inlines the named links (a link to a collection inlines a page of it); \`a(b)\` nests, e.g. \`?expand=${link ? `${link.name}` : "directory"}\`. \`?fields=x,y,a(z)\` returns only the listed fields plus \`meta\`; selecting inside a link expands it, inside an object keeps only the named properties (\`?fields=address(city)\`).`),
        text("Each resource page lists the names its `fields` and `expand` accept. An unknown name answers 400 with `property` set to `fields` (", ref("unknownField"), ") or `expand` (", ref("unknownExpand"), ")."),
      ],
      example: "",
    },
    {
      anchor: "paging",
      title: "Paging and limits",
      rules: "R1, §8",
      paragraphs: [
        text(`A collection answers a page: \`{ meta, offset, limit, size, items }\`, where \`size\` is the number of instances in the whole collection. \`offset\` is an integer ≥ 0 (default 0) and \`limit\` an integer from 1 to ${PAGING.maxLimit} (default ${PAGING.defaultLimit}); anything else answers 400 `, ref("invalidPaging"), "."),
        text(`A request body is at most ${BODY_LIMIT} bytes; a larger one answers 413 `, ref("payloadTooLarge"), ". Malformed JSON answers 400 ", ref("malformedJson"), "."),
      ],
      example: "",
    },
    {
      anchor: "error-body",
      title: "The error body",
      rules: "§7",
      paragraphs: [
        text("Every 4xx and 5xx answer has `Content-Type: application/json` (or the vendor error type) and the body `{ status, code, property, message, dev, info }`: `status` repeats the HTTP status, `code` is the service's error code (the same condition always gives the same code), `property` names the property that caused it (`\"\"` when none did), `message` is for the end user, `dev` tells the developer how to fix it, and `info` is the address of the code's page in this reference."),
        text(`\`info\` is \`${service.errorDocsUrl}/<code>\`. A 500 never shows a stack trace or internal detail. The catalog below lists every code. For example:`),
      ],
      example: errorExample,
    },
    {
      anchor: "stateless-auth",
      title: "Stateless authentication",
      rules: "A1–A6",
      paragraphs: [
        text("Each request is authenticated on its own (A1), with existing protocols only (A3, A4): Bearer tokens, and Basic over TLS only. API keys are preferred over user names and passwords (A5). Authorization is decided on the content of the resource, such as its owner, not on the URL (A2). 401 means no valid credentials, 403 valid credentials without the rights (A6)."),
      ],
      example: "",
    },
    {
      anchor: "versioning",
      title: "Versioning",
      rules: "V1–V3",
      paragraphs: [
        text(`This is version ${service.version}. The version is negotiated with \`Accept\` (V1): \`application/vnd.${service.vendor}.v${service.version}.<resource>+json\` or \`application/${service.vendor}.v${service.version}.<resource>.json\`; a media type in a link may carry \`version\` and \`schema\` parameters (V2); hrefs may carry a \`v<N>\` path segment (V3).`),
      ],
      example: "",
    },
  ];
}

// ---------------------------------------------------------------------------------------------------
// Resources

function resourceFacts(r: Resource): { label: string; value: Text }[] {
  const facts: { label: string; value: Text }[] = [
    { label: "Collection", value: [code(`/${r.collection}`)] },
    { label: "Instance", value: [code(`/${r.collection}/{id}`)] },
    { label: "Media type", value: [code(r.mediaType)] },
    { label: "Collection media type", value: [code(r.collectionMediaType)] },
  ];
  if (r.unique.length) facts.push({ label: "Unique", value: text(...codeList(r.unique, (f) => target(PAGES.resource(r.collection), `field-${slug(f)}`)), ` (a repeated value answers 409 with \`property\` set to the field)`) });
  const counts = (["minProperties", "maxProperties", "propertyNames", "dependentRequired"] as const).filter((k) => r.bodyKeywords[k] !== undefined);
  if (counts.length) facts.push({ label: "Bodies also meet", value: text(...codeList(counts.map((k) => `${k}: ${JSON.stringify(r.bodyKeywords[k])}`))) });
  if (r.owner) facts.push({ label: "Owner", value: text(`\`${r.owner}\` holds the id of the key that created the ${r.name}: only that key or an admin role can see or change it (A2)`) });
  return facts;
}

const ACCESS_ACTIONS = ["read", "create", "update", "delete", "admin"] as const;

function accessOf(r: Resource): { action: string; roles: Text }[] {
  return ACCESS_ACTIONS.map((action) => {
    const roles = r.access[action];
    if (action === "admin") return { action, roles: roles?.length ? text(...codeList(roles), " (pass every role and ownership check)") : text("none") };
    return { action, roles: roles ? (roles.length ? codeList(roles) : text("no role")) : text("any authenticated caller") };
  });
}

function fieldsOf(model: Model, r: Resource): FieldDoc[] {
  const declared = (name: "id" | "createdAt" | "modifiedAt", fallback: string) => serverFieldDoc(model, r, name).description ?? fallback;
  const id = serverField("id", idTypeText(r.idForm), declared("id", "The instance's id, assigned by the server."));
  const server: FieldDoc[] = [
    { ...id, constraints: [...id.constraints, text(describeIds(r.idForm))] },
    serverField("meta", "object", "`{ href, mediaType }`: the instance's absolute URL and its media type."),
    serverField("createdAt", "string (date-time)", declared("createdAt", "When the instance was created.")),
    serverField("modifiedAt", "string (date-time)", declared("modifiedAt", "When the instance was last changed.")),
  ];
  // Each shared schema's fields are listed once per page, where it is first met.
  const expanded = new Map<string, string>();
  const own = r.fields.flatMap((f): FieldDoc[] => {
    const constraints = f.link ? [] : constraintsOf(f.schema);
    if (r.unique.includes(f.name)) constraints.unshift(text("unique in the collection"));
    if (f.name === r.owner) constraints.unshift(text("read-only: set by the server to the caller's key id"));
    if (f.link?.inverse) constraints.unshift(text(`read-only: the ${f.link.target} whose \`${f.link.inverse}\` is this ${r.name}`));
    const row: FieldDoc = {
      name: f.name,
      anchor: `field-${slug(f.name)}`,
      type: fieldType(f),
      required: f.required,
      description: describe(f.description, f.schema),
      constraints,
    };
    return f.link ? [row] : withNested(row, f.schema, 1, expanded);
  });
  return [...server, ...own, ...otherPropertiesOf(r)];
}

/** Rows for the other properties an open resource allows (additionalProperties, patternProperties at its root). */
function otherPropertiesOf(r: Resource): FieldDoc[] {
  const rows: FieldDoc[] = [];
  const row = (name: string, anchor: string, schema: JsonSchema, what: string): FieldDoc => ({
    name,
    anchor,
    type: [plain(schema === true ? "any" : typeText(schema))],
    required: false,
    description: prose(what),
    constraints: schema === true ? [] : constraintsOf(schema),
  });
  const patterns = r.bodyKeywords.patternProperties;
  if (isPlainObject(patterns)) {
    Object.entries(patterns).forEach(([pattern, schema], i) =>
      rows.push(row(`(names matching ${pattern})`, `field-pattern-${i + 1}`, schema as JsonSchema, "Other properties whose names match the pattern: stored and represented as sent.")),
    );
  }
  const extra = r.bodyKeywords.additionalProperties;
  if (extra !== undefined && extra !== false) rows.push(row("(any other name)", "field-other", extra as JsonSchema, "Any other property: stored and represented as sent, and removed by a merge patch of null."));
  return rows;
}

/** Deepest level of nested properties the reference lists (a selection nests 8 levels at most). */
const MAX_NESTED_DEPTH = 8;

/**
 * The row of a plain field (or a property inside one) followed by the rows of the declared properties
 * inside it, named by their path: `address.city` inside an object, `lines[].sku` inside the objects of an
 * array; nested ones follow their parent. A shared schema's properties are listed where the page first
 * meets it (`expanded`: name → that path); elsewhere the row says where, so that a page grows with the
 * schemas it reaches, not with every path to them.
 */
function withNested(row: FieldDoc, schema: JsonSchema, depth: number, expanded: Map<string, string>): FieldDoc[] {
  if (depth > MAX_NESTED_DEPTH) return [row];
  const path = row.name;
  const s = asSchema(schema);
  const items = asSchema(s["items"] as JsonSchema | undefined);
  const [inside, prefix] = isPlainObject(s["properties"]) ? [s, `${path}.`] : isPlainObject(items["properties"]) ? [items, `${path}[].`] : [undefined, ""];
  if (inside === undefined) return [row];
  const shared = SharedSchemas.nameOf(inside === s ? schema : s["items"]);
  if (shared !== undefined) {
    const first = expanded.get(shared);
    if (first !== undefined) return [{ ...row, constraints: [...row.constraints, text(`its fields are those of \`${first}\`, listed there`)] }];
    expanded.set(shared, path);
  }
  const required = Array.isArray(inside["required"]) ? (inside["required"] as unknown[]) : [];
  return [
    row,
    ...Object.entries(inside["properties"] as Record<string, JsonSchema>).flatMap(([name, sub]) => {
      const full = prefix + name;
      const nested: FieldDoc = {
        name: full,
        anchor: `field-${slug(full)}`,
        type: [plain(typeText(sub))],
        required: required.includes(name),
        description: describe("", sub),
        constraints: constraintsOf(sub),
      };
      return withNested(nested, sub, depth + 1, expanded);
    }),
  ];
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function serverField(name: string, type: string, description: string): FieldDoc {
  return { name, anchor: `field-${name}`, type: [plain(type)], required: false, description: prose(description), constraints: [text("read-only: set by the server")] };
}

function fieldType(f: Field): Text {
  if (f.link?.kind === "instance") return [plain("link to "), code(f.link.target, target(PAGES.resource(f.link.target)))];
  if (f.link?.kind === "collection") return [plain("link to a collection of "), code(f.link.target, target(PAGES.resource(f.link.target)))];
  return [plain(typeText(f.schema))];
}

function linksOf(model: Model, r: Resource): LinkDoc[] {
  return r.fields
    .filter((f) => f.link)
    .map((f) => {
      const l = f.link!;
      const t = resourceOf(model, l.target)!;
      const onDelete =
        l.onDelete === "cascade"
          ? `Deleting the ${t.name} deletes this ${r.name} too (\`x-on-delete: cascade\`).`
          : l.onDelete === "clear"
            ? `Deleting the ${t.name} removes this link (\`x-on-delete: clear\`).`
            : `While it links here, deleting the ${t.name} is refused (409, \`property\` \`${r.collection}.${f.name}\`).`;
      const description =
        l.kind === "instance"
          ? text(`One \`${t.name}\`, read as \`{ "meta": { "href", "mediaType" } }\` and written as \`{ "meta": { "href": "<href of ${article(t.name)}>" } }\` (an href of this service: another host or collection is a 400). \`?expand=${f.name}\` inlines it. ${onDelete}`)
          : l.inverse
            ? text(`The \`${t.collection}\` whose \`${l.inverse}\` is this ${r.name}: \`GET /${r.collection}/{id}/${f.name}\`. Read-only here; set the \`${l.inverse}\` of ${article(t.name)} instead. \`?expand=${f.name}\` inlines a page of it.`)
            : text(
                `A stored list of \`${t.collection}\`, written as an array of \`{ "meta": { "href": ... } }\`, and read as a collection at \`GET /${r.collection}/{id}/${f.name}\`. \`?expand=${f.name}\` inlines a page of it. ` +
                  `One member at a time: \`POST /${r.collection}/{id}/${f.name}\` with a link adds one, \`DELETE /${r.collection}/{id}/${f.name}/{memberId}\` removes one. A deleted ${t.name} drops out of every list.`,
              );
      return { name: f.name, fieldAnchor: `field-${slug(f.name)}`, kind: l.kind, target: target(PAGES.resource(t.collection)), targetName: t.collection, description };
    });
}

// ---------------------------------------------------------------------------------------------------
// Operations

function clientSetupOf(model: Model): string {
  const { service } = model;
  const bearer = service.auth.schemes.some((s) => s !== "basic");
  const auth = bearer ? "{ bearer: process.env.SECRET! }" : "{ basic: { id: process.env.KEY_ID!, secret: process.env.SECRET! } }";
  // An older version's client is a package of its own (generate --client-only --version N).
  const from = service.currentVersion === undefined ? `${service.name}/client` : clientPackageName(service.name, service.version);
  return [`import { createClient, ${model.clientTypes.ApiError} } from ${str(from)};`, "", `const api = createClient({ baseUrl: ${str(service.baseUrl)}, auth: ${auth} });`].join("\n");
}

/** An operation as lists name it (ResourcePage.operations). */
function summaryOf(op: Operation): OperationSummary {
  return { id: op.id, anchor: `op-${slug(op.id)}`, method: op.method, path: op.path, summary: op.summary };
}

/**
 * What operationDoc reads of an operation besides the model objects it names (its resource, the resource it
 * answers with, its link's target: keyed beside it, each digested once): part of a resource page's key.
 */
function operationDoc(model: Model, op: Operation, errors: ErrorRef[], credential: { curl: string; client: string }): OperationDoc {
  const { service } = model;
  const r = op.resource;
  const path = op.path;
  const ids = sampleIds(model, op);
  const url = `${service.baseUrl}${path.replace("{id}", String(ids.id)).replace("{memberId}", String(ids.member))}${op.exampleQuery ? `?${op.exampleQuery}` : ""}`;
  const responseType = op.status === 204 ? undefined : op.action ? op.action.mediaType : op.kind === "list" || op.kind === "sub-collection" ? op.answers!.collectionMediaType : op.answers!.mediaType;
  const bodyOf = op.kind === "add-member" ? op.answers : r;
  const bodyTypes = op.exampleBody === undefined ? undefined : ["application/json", ...(bodyOf ? [bodyOf.mediaType] : []), ...(op.kind === "update" ? ["application/merge-patch+json"] : [])];
  const body = op.exampleBody === undefined ? undefined : { mediaTypes: bodyTypes!, example: json(op.exampleBody) };

  const curl = [`curl${op.method === "GET" ? "" : ` -X ${op.method}`} ${shellQuote(url)}`, `  ${credential.curl}`];
  if (responseType) curl.push(`  -H ${shellQuote(`Accept: ${responseType}`)}`);
  if (op.exampleBody !== undefined) curl.push(`  -H ${shellQuote(`Content-Type: ${op.kind === "update" ? "application/merge-patch+json" : "application/json"}`)}`, `  -d ${shellQuote(JSON.stringify(op.exampleBody))}`);

  return {
    ...summaryOf(op),
    description: prose(op.description),
    access: accessText(op),
    params: paramsOf(model, op),
    body,
    curl: curl.join(" \\\n"),
    client: clientCall(op, ids),
    status: op.status,
    statusText: STATUS_CODES[op.status] ?? "",
    responseType,
    response: op.exampleAnswer === undefined ? undefined : json(op.exampleAnswer),
    errors,
  };
}

/** One shell word, on one line (shared/escape.ts). */
const shellQuote = shellWord;

function accessText(op: Operation): Text {
  if (op.action) return op.action.roles.length ? text("Roles: ", ...codeList(op.action.roles), ".") : text("Any authenticated caller.");
  const r = op.resource!;
  const action = op.kind === "create" ? "create" : op.kind === "update" || op.kind === "replace" || op.kind === "add-member" || op.kind === "remove-member" ? "update" : op.kind === "delete" ? "delete" : "read";
  const roles = r.access[action];
  const admin = r.access.admin?.length ? text(" Admin roles (", ...codeList(r.access.admin), ") always pass.") : [];
  const who = roles === undefined ? text("Any authenticated caller.") : roles.length ? text("Roles: ", ...codeList(roles), ".") : text("No role may call it.");
  const owner = r.owner && op.kind !== "create" ? text(` Only the key that owns the ${r.name} (\`${r.owner}\`) sees it or changes it.`) : [];
  return [...who, ...admin, ...owner];
}

function paramsOf(model: Model, op: Operation): ParamDoc[] {
  const out: ParamDoc[] = [];
  if (op.path.includes("{id}")) {
    const form = op.resource!.idForm;
    out.push({ name: "id", in: "path", type: [plain(idTypeText(form))], required: true, description: text(`The id of the ${op.resource!.name}.`), constraints: [text(describeIds(form))] });
  }
  if (op.path.includes("{memberId}")) {
    const form = resourceOf(model, op.field!.link!.target)!.idForm;
    out.push({ name: "memberId", in: "path", type: [plain(idTypeText(form))], required: true, description: text(`The id of the ${op.field!.name} member to remove.`), constraints: [text(describeIds(form))] });
  }
  if (op.kind === "list" || op.kind === "sub-collection") {
    out.push(
      { name: "offset", in: "query", type: [plain("integer")], required: false, description: text("Index of the first item of the page."), constraints: [text("≥ 0"), text("default `0`")] },
      { name: "limit", in: "query", type: [plain("integer")], required: false, description: text("Number of items on the page."), constraints: [text(`from 1 to ${PAGING.maxLimit}`), text(`default \`${PAGING.defaultLimit}\``)] },
    );
  }
  if ((op.kind === "list" || op.kind === "sub-collection" || op.kind === "get") && op.answers) {
    const items = op.kind === "get" ? "" : " of each item";
    const page = PAGES.resource(op.answers.collection);
    const toField = (name: string) => target(page, `field-${slug(name)}`);
    out.push({ name: "fields", in: "query", type: [plain("string")], required: false, description: text(`Comma-separated fields${items} to return (plus \`meta\`); \`link(field)\` selects inside a link, \`object(property)\` inside an object.`), constraints: [text("one of ", ...codeList(fieldNames(op.answers), toField))] });
    const expand = expandNames(op.answers);
    if (expand.length) out.push({ name: "expand", in: "query", type: [plain("string")], required: false, description: text(`Comma-separated links${items} to inline; \`link(sub)\` nests.`), constraints: [text("one of ", ...codeList(expand, toField))] });
  }
  for (const p of op.action?.params ?? []) {
    out.push({ name: p.name, in: "query", type: [plain(typeText(p.schema))], required: p.required, description: describe("", p.schema), constraints: constraintsOf(p.schema) });
  }
  return out;
}

function clientCall(op: Operation, ids: { id: string | number; member: string | number }): string {
  const id = jsValue(ids.id);
  if (op.action) {
    const params = sampleOf(op.action.query) ?? {};
    return `const result = await ${member("api", handlerName(op.action))}(${jsValue(params)});`;
  }
  const r = op.resource!;
  const api = member("api", r.collection);
  const v = isIdentifier(r.name) ? r.name : "instance";
  const body = jsValue(op.exampleBody ?? {}, 2);
  switch (op.kind) {
    case "list":
      return `const page = await ${api}.list({ offset: 0, limit: 10 });`;
    case "create":
      return `const ${v} = await ${api}.create(${body});`;
    case "get":
      return `const ${v} = await ${api}.get(${id});`;
    case "update":
      return `const ${v} = await ${api}.update(${id}, ${body});`;
    case "replace":
      return `const ${v} = await ${api}.replace(${id}, ${body});`;
    case "delete":
      return `await ${api}.delete(${id});`;
    case "add-member": {
      const target = op.answers!;
      const one = isIdentifier(target.name) ? target.name : "member";
      const href = (op.exampleBody as { meta: { href: string } }).meta.href;
      return `const ${one} = await ${member(api, subMethod(op.field!.name))}.add(${id}, ${str(href)});`;
    }
    case "remove-member":
      return `await ${member(api, subMethod(op.field!.name))}.remove(${id}, ${jsValue(ids.member)});`;
    default: {
      const name = op.field!.name;
      const method = subMethod(name);
      return `const page = await ${member(api, method)}(${id}, { offset: 0, limit: 10 });`;
    }
  }
}

// ---------------------------------------------------------------------------------------------------
// Errors

const CONDITIONS: Readonly<Record<string, string>> = {
  malformedJson: "A request body (POST, PUT or PATCH) cannot be parsed as JSON.",
  missingProperty: "A create or replace body lacks a property the resource requires; `property` names it.",
  unknownProperty: "A body has properties the resource does not declare; `property` names the first in the body and `dev` all of them (up to 20), so one answer shows every typo. Unknown properties are never dropped silently.",
  invalidProperty: "A property's value does not match its schema (type, format, range, length, pattern or enum); `property` names it.",
  readOnlyProperty: "A body sets a property the server owns: `id`, `meta`, `createdAt`, `modifiedAt`, the owner field or an inverse link.",
  invalidLink: "A link in a body is not `{ \"meta\": { \"href\": ... } }` or its href names no existing instance of the link's target.",
  unknownField: "The `fields` query parameter names a field the resource does not have; `property` is `fields`.",
  unknownExpand: "The `expand` query parameter names something that is not a link of the resource; `property` is `expand`.",
  invalidPaging: "`offset` or `limit` on a collection is not an integer in its range; `property` names it.",
  invalidParameter: "A query parameter of an action is missing or fails its schema; `property` names it.",
  unauthenticated: "The request has no `Authorization` header, a malformed one, a scheme the service does not accept, or a key that is not valid.",
  basicNeedsTls: "Basic credentials are sent over plain HTTP; they are accepted over TLS only (A3).",
  forbidden: "The key is valid but lacks a role the operation needs, or the instance belongs to another key (A2, A6).",
  notFound: "The id in the path names no instance of the collection (or one the caller may not see).",
  routeNotFound: "The path matches no route of the service.",
  methodNotAllowed: "The route exists but does not answer this method; the `Allow` header lists those it does.",
  notAcceptable: "The `Accept` header matches none of the representations the operation offers.",
  unknownVersion: "The `Accept` header asks for an API version the service does not serve.",
  conflict: "A create or update repeats the value of a field that is unique in its collection; `property` names the field.",
  stillLinked: "A delete of an instance that others link to through a link without `x-on-delete` (or a delete that such a link would cascade to): `property` names the linking collection and field, e.g. `books.author`. Nothing is deleted.",
  payloadTooLarge: `The request body is larger than ${BODY_LIMIT} bytes.`,
  unsupportedMediaType: "A request body's `Content-Type` is not JSON.",
  internal: "The service failed unexpectedly. The answer never shows internal detail.",
  notImplemented: "The action is defined but its handler has not been written yet.",
  invalidTokenRequest: "A request to the token endpoint (`POST <base>/oauth/token`, when `oauth2` is enabled) is not a client-credentials grant the service can answer; `error` in the body names the OAuth 2.0 error: `invalid_request`, `unsupported_grant_type` or `invalid_scope` (a scope that is not a subset of the key's roles).",
  invalidClient: "The token endpoint's client credentials (an API key's id and secret) are not valid; `error` is `invalid_client`.",
  preconditionFailed: "An update or delete sent `If-Match` with an ETag the instance no longer has (another write came first), or `If-None-Match` with one it has. Nothing is written.",
  tooManyRequests: "The caller exceeded the service's rate limit (`RATE_LIMIT` requests per minute, per key or per client address); `Retry-After` says when to retry.",
  notReady: "`GET /health/ready`: the service's store does not answer.",
  storeBusy: "The database stayed locked by another writer longer than the service waits, or could not be reached; `Retry-After` says when to retry.",
};

function conditionOf(model: Model, e: ErrorDef): Text {
  if (e.builtin) return prose(CONDITIONS[e.key] ?? e.message);
  return text(`Specific to ${model.service.title}: its own business rules (its hooks and action handlers) answer with it, not a built-in check, so which operations can do so depends on those rules. ${e.message}`);
}

function exampleProperty(model: Model, e: ErrorDef): string {
  const firstField = (pick: (r: Resource) => string | undefined) => model.resources.map(pick).find((x) => x !== undefined) ?? "";
  switch (e.key) {
    case "missingProperty":
      return firstField((r) => r.required[0]);
    case "invalidProperty":
    case "unknownProperty":
      return firstField((r) => r.fields.find((f) => f.scalar)?.name);
    case "conflict":
      return firstField((r) => r.unique[0]);
    case "invalidLink":
      return firstField((r) => r.fields.find((f) => f.link?.kind === "instance")?.name);
    case "stillLinked":
      return firstField((r) => {
        const f = r.fields.find((x) => x.link?.kind === "instance" && x.link.onDelete === undefined);
        return f ? `${r.collection}.${f.name}` : undefined;
      });
    case "unknownField":
      return "fields";
    case "unknownExpand":
      return "expand";
    case "invalidPaging":
      return "limit";
    case "invalidParameter":
      return model.actions.flatMap((a: Action) => a.params.map((p) => p.name))[0] ?? "";
    default:
      return "";
  }
}

// ---------------------------------------------------------------------------------------------------
// Search

function searchIndex(resources: readonly ResourcePage[], actions: readonly OperationDoc[], errors: readonly ErrorPage[]): SearchEntry[] {
  const out: SearchEntry[] = [
    { kind: "section", title: "Authentication", detail: "Authorization Bearer Basic API key 401 403 WWW-Authenticate", page: PAGES.index, anchor: "authentication" },
    { kind: "section", title: "Media types", detail: "Accept Content-Type q-values version vendor", page: PAGES.index, anchor: "media-types" },
    { kind: "section", title: "Conventions", detail: "R1 R2 R3 E1 E2 E3 A1 A2 A3 A4 A5 A6 V1 V2 V3 fields expand paging error body", page: PAGES.index, anchor: "conventions" },
    { kind: "section", title: "Error catalog", detail: "error codes status", page: PAGES.index, anchor: "errors" },
  ];
  for (const r of resources) {
    // A resource's entries are remembered (emit/memo.ts) by what they are made from: a regeneration computes the
    // field rows of the resources that changed only.
    const entries = memo().get("search entries", [r.page, r.collection, r.title, r.description, r.fields, r.operations], () => {
      const own: SearchEntry[] = [{ kind: "resource", title: r.collection, detail: `${r.title} ${flat(r.description)}`.trim(), page: r.page, anchor: "" }];
      for (const f of r.fields.value) own.push({ kind: "field", title: `${r.collection}.${f.name}`, detail: `${flat(f.type)} ${flat(f.description)}`.trim(), page: r.page, anchor: f.anchor });
      for (const o of r.operations) own.push({ kind: "operation", title: `${o.method} ${o.path}`, detail: `${o.summary} ${o.id}`, page: r.page, anchor: o.anchor });
      return own;
    });
    out.push(...entries);
  }
  for (const o of actions) out.push({ kind: "action", title: `${o.method} ${o.path}`, detail: `${o.summary} ${flat(o.description)}`, page: PAGES.actions, anchor: o.anchor });
  for (const e of errors) out.push({ kind: "error", title: `${e.code} ${e.title}`, detail: `${e.status} ${e.key} ${flat(e.message)}`, page: e.page, anchor: "" });
  return out;
}
