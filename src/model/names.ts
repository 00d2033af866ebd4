/**
 * Every identifier decided once: casing, singular/plural forms, verb detection and safe property keys.
 * Emitters read the results from the model and never re-case strings themselves.
 */
import inflection from "pluralize";

/** Verbs that mark a name as an action rather than a resource (R2, E2). */
export const VERBS: readonly string[] = [
  "add", "approve", "archive", "assign", "calculate", "cancel", "change", "check", "clear", "close",
  "compute", "confirm", "convert", "copy", "count", "create", "delete", "disable", "do", "download",
  "edit", "enable", "execute", "export", "fetch", "find", "generate", "get", "import", "insert",
  "list", "load", "lookup", "make", "merge", "modify", "move", "notify", "open", "patch", "post",
  "process", "publish", "put", "query", "read", "refresh", "register", "reject", "remove", "rename",
  "render", "reset", "resolve", "restore", "retrieve", "revoke", "run", "save", "search", "send",
  "set", "show", "sign", "start", "stop", "submit", "sync", "test", "transform", "translate",
  "update", "upload", "upsert", "validate", "verify",
];

const VERB_SET = new Set(VERBS);

/** Splits camelCase, PascalCase, snake_case and kebab-case into lower-case words. */
export function words(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w.toLowerCase());
}

/** camelCase of any name. @example camelCase("first-name") === "firstName" */
export function camelCase(name: string): string {
  return words(name)
    .map((w, i) => (i === 0 ? w : w.charAt(0).toUpperCase() + w.slice(1)))
    .join("");
}

/** PascalCase of any name. @example pascalCase("accounts") === "Accounts" */
export function pascalCase(name: string): string {
  const c = camelCase(name);
  return c.charAt(0).toUpperCase() + c.slice(1);
}

/**
 * Applies `fn` to the last word of a camelCase name, keeping the rest and the casing. Digits after the
 * word are a suffix, not part of the noun: `fn` sees "tickets" in "tickets2", which keeps its 2.
 */
function mapLastWord(name: string, fn: (word: string) => string): string {
  const m = /^(.*?)([A-Z]?[a-z]*)([0-9]*)$/.exec(name);
  const [, prefix = "", last = "", digits = ""] = m ?? [];
  if (!m || last === "") return name;
  const mapped = fn(last.toLowerCase());
  const upper = last.charAt(0) !== last.charAt(0).toLowerCase();
  return prefix + (upper ? mapped.charAt(0).toUpperCase() + mapped.slice(1) : mapped) + digits;
}

/** The last word of a name, without the digits after it. @example lastNoun("userAccounts2") === "accounts" */
function lastNoun(name: string): string {
  return (words(name).at(-1) ?? "").replace(/[0-9]+$/, "");
}

/**
 * Plural of an English noun (the last word of a camelCase name), by the pluralize library.
 * @example pluralize("directory") === "directories"; pluralize("shelf") === "shelves"
 */
export function pluralize(name: string): string {
  return mapLastWord(name, (w) => inflection.plural(w));
}

/**
 * Singular of an English plural noun (the last word of a camelCase name), by the pluralize library.
 * @example singularize("movies") === "movie"; singularize("shelves") === "shelf"
 */
export function singularize(name: string): string {
  return mapLastWord(name, (w) => inflection.singular(w));
}

/**
 * True when the last word of a name reads as a plural noun: the pluralize library calls it plural, or
 * has a singular for it that is another word. Either alone misses real plurals (its isPlural says no to
 * "taxis", whose singular is "taxi"), and uncountables ("data", "metadata", "news") are plural by the first.
 * @example isPlural("awardEmojis") === true; isPlural("fileMinis") === true; isPlural("userData") === true
 */
export function isPlural(name: string): boolean {
  const last = lastNoun(name);
  return last !== "" && (inflection.isPlural(last) || inflection.singular(last) !== last);
}

/**
 * The types the generated client exports of its own (client/index.ts, and client/types.ts re-exporting
 * client/select.ts for the server): a resource or action type may take any of these names (clientTypeNames).
 */
export const CLIENT_TYPE_NAMES = [
  "ApiError", "Auth", "CallOptions", "Checked", "Client", "ClientOptions", "CollectionApi", "CollectionLink", "ErrorBody", "ErrorCode", "Expanded",
  "GetOptions", "Link", "LinkInput", "MergePatch", "Meta", "Page", "PreconditionFailedError", "ReadOptions", "Registry", "ResponseTooLargeError",
  "RetryOptions", "Selected", "ServerFields", "TokenError",
] as const;

/** A type the generated client exports of its own. */
export type ClientTypeName = (typeof CLIENT_TYPE_NAMES)[number];

/**
 * The name each of the client's own types is exported under, given the type names the resources, actions and
 * shared schemas take: its own name when it is free, else `Client<Name>` (then `Client<Name>2`, … while that
 * is taken too), so that a definition's type keeps its plain name. The client's modules refer to their own types
 * through namespace imports (`select.Link`), which no resource's name can shadow.
 * @example clientTypeNames(new Set(["Page", "PageInput"])).Page === "ClientPage"
 */
export function clientTypeNames(taken: ReadonlySet<string>): Readonly<Record<ClientTypeName, string>> {
  return ownTypeNames(CLIENT_TYPE_NAMES, taken, "Client");
}

/**
 * The types the package's entry (src/index.ts) exports of its own beside every type of the definitions
 * (`export type * from "./generated/types.js"`, which an own export of the same name would silently hide).
 */
export const SERVICE_TYPE_NAMES = ["ApiError", "ErrorCode", "ErrorKey", "KeyRing", "Service", "ServiceOptions", "Store"] as const;

/** A type the package's entry exports of its own. */
export type ServiceTypeName = (typeof SERVICE_TYPE_NAMES)[number];

/**
 * The name each of the package entry's own types is exported under: its own when no type of the definitions
 * takes it, else `Runtime<Name>` (as clientTypeNames does for the client).
 * @example serviceTypeNames(new Set(["Store"])).Store === "RuntimeStore"
 */
export function serviceTypeNames(taken: ReadonlySet<string>): Readonly<Record<ServiceTypeName, string>> {
  return ownTypeNames(SERVICE_TYPE_NAMES, taken, "Runtime");
}

/** `names` each under its own name when free, else `<prefix><Name>` (numbered while taken). */
function ownTypeNames<N extends string>(names: readonly N[], taken: ReadonlySet<string>, prefix: string): Readonly<Record<N, string>> {
  const used = new Set<string>([...taken, ...names.filter((n) => !taken.has(n))]);
  const out = {} as Record<N, string>;
  for (const name of names) {
    if (!taken.has(name)) {
      out[name] = name;
      continue;
    }
    let chosen = `${prefix}${name}`;
    for (let n = 2; used.has(chosen); n++) chosen = `${prefix}${name}${n}`;
    used.add(chosen);
    out[name] = chosen;
  }
  return out;
}

/**
 * The name of a resource's or action's type: PascalCase, written as json-schema-to-typescript writes every type
 * name of client/types.ts (safeTypeName), so that the client, the wiring and the seeds refer to exactly the names
 * it declares.
 * @example typeIdentifier("ioK8sApiV1beta1Event") === "IoK8SApiV1Beta1Event"
 */
export function typeIdentifier(name: string): string {
  return safeTypeName(pascalCase(name));
}

/**
 * A name of ASCII letters and digits as json-schema-to-typescript declares it (its toSafeString): a letter that
 * follows digits upper-cased (`V1beta` → `V1Beta`). Two names that differ only there are one type in its output.
 * @example safeTypeName("IoK8sPod") === "IoK8SPod"
 */
export function safeTypeName(identifier: string): string {
  return identifier.replace(/\d+[a-z]/g, (m) => m.toUpperCase());
}

/** The types a resource named `name` declares in the client. */
export function resourceTypeNames(name: string): string[] {
  const t = typeIdentifier(name);
  return [t, `${t}Input`, `${t}Fields`, `${t}Api`];
}

/** A title of one to three words of ASCII letters and digits, the first a letter: a noun, not a sentence. */
const NOUN_TITLE = /^[A-Za-z][A-Za-z0-9]*(?:[ _-][A-Za-z0-9]+)*$/;

/**
 * The singular name of a resource: its `title` camel-cased when the title is a short noun (one to three
 * words of ASCII letters and digits: "Movie" → "movie", "Library book" → "libraryBook") that is not just
 * the collection's name again ("Movies" for movies); else the singular of its collection.
 * @example resourceName("shelves", undefined) === "shelf"; resourceName("books", "Library book") === "libraryBook"
 */
export function resourceName(collection: string, title: string | undefined): string {
  const t = title?.trim() ?? "";
  const fromTitle = camelCase(t);
  const usable =
    NOUN_TITLE.test(t) &&
    words(t).length <= 3 &&
    isCamelName(fromTitle) &&
    !OBJECT_MEMBERS.has(fromTitle) &&
    !FORBIDDEN_NAMES.has(fromTitle) &&
    fromTitle.toLowerCase() !== collection.toLowerCase();
  return usable ? fromTitle : singularize(collection);
}

/** The verb a camelCase name starts with, if any. @example leadingVerb("getAccount") === "get" */
export function leadingVerb(name: string): string | undefined {
  const first = words(name)[0];
  return first !== undefined && VERB_SET.has(first) ? first : undefined;
}

/**
 * Words of VERBS that are as often nouns naming a kind of thing: "checkRuns" (GitHub), "testClocks" (Stripe),
 * "mergeRequests" (GitLab), "uploadSessions" (Box) are collections of runs, clocks, requests and sessions.
 */
const NOUN_MODIFIERS: ReadonlySet<string> = new Set([
  "add", "archive", "change", "check", "compute", "copy", "count", "download", "export", "import",
  "load", "lookup", "merge", "patch", "post", "process", "query", "read", "refresh", "reset", "restore",
  "open", "run", "search", "set", "show", "sign", "start", "stop", "sync", "test", "transform", "upload",
]);

/**
 * Plural nouns that name records of an action: at the end of a name of three words or more they make the
 * name a noun ("createUserResponses", "exportRibListings", "setDefaultPriorityRequests" are collections of
 * responses, listings and requests), as a verb with its object and nothing after ("createUsers") is not.
 */
const RECORD_NOUNS: ReadonlySet<string> = new Set([
  "requests", "responses", "results", "details", "listings", "reads", "creates", "updates", "deletes", "contexts",
  "types", "jobs", "runs", "sessions", "entries", "events", "logs", "reports", "summaries", "statuses", "options",
  "settings", "tasks", "operations", "records", "payloads", "messages", "notifications", "confirmations",
]);

/** Words that make a name a verb phrase when they follow its first word ("searchGroupsByName"). */
const PREPOSITIONS: ReadonlySet<string> = new Set(["by", "for", "with", "from", "to", "in", "on", "of"]);

/**
 * The verb a name of a thing (a collection, a sub-collection, a path segment) starts with, if it reads as
 * one: like leadingVerb, except that a word of NOUN_MODIFIERS in front of a plural noun, and any verb in front
 * of two words or more ending in one of RECORD_NOUNS, with no preposition or other verb after it, name a kind
 * of thing.
 * @example nameVerb("getBooks") === "get"; nameVerb("checkRuns") === undefined; nameVerb("searchGroupsByName") === "search"
 */
export function nameVerb(name: string): string | undefined {
  const verb = leadingVerb(name);
  if (verb === undefined) return undefined;
  const ws = words(name);
  const plain = !ws.slice(1).some((w) => PREPOSITIONS.has(w) || (VERB_SET.has(w) && !NOUN_MODIFIERS.has(w)));
  const modified = NOUN_MODIFIERS.has(verb) && ws.length >= 2 && isPlural(ws.at(-1)!);
  const records = ws.length >= 3 && RECORD_NOUNS.has(ws.at(-1)!);
  // A modifier with a singular noun after it is a compound noun, whatever follows ("checkRunWithSimpleCheckSuites"),
  // as a verb's plural object is not ("searchGroupsByName").
  const compound = modified && ws.length >= 3 && !isPlural(ws[1]!) && !ws.slice(1).some((w) => VERB_SET.has(w) && !NOUN_MODIFIERS.has(w));
  return (plain && (modified || records)) || compound ? undefined : verb;
}

/**
 * The plural noun a verb-led name was about, as the fix to suggest.
 * @example nounFix("searchGroupsByName") === "groups"; nounFix("getAccount") === "accounts"
 */
export function nounFix(name: string): string {
  const ws = words(name);
  const rest = ws.slice(1);
  const by = rest.findIndex((w) => w === "by" || w === "for" || w === "with" || w === "from");
  const noun = (by >= 0 ? rest.slice(0, by) : rest).filter((w) => !VERB_SET.has(w));
  if (noun.length === 0) return "items";
  const joined = camelCase(noun.join("-"));
  return isPlural(joined) ? joined : pluralize(joined);
}

/** Names that must never become object keys or identifiers. */
export const FORBIDDEN_NAMES: ReadonlySet<string> = new Set(["__proto__", "constructor", "prototype"]);

/** JavaScript reserved words: safe as property keys, not as bare identifiers. */
const RESERVED = new Set(
  ("break case catch class const continue debugger default delete do else enum export extends false finally " +
    "for function if import in instanceof new null return super switch this throw true try typeof var void " +
    "while with yield let static implements interface package private protected public await arguments eval")
    .split(" "),
);

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** True when `name` can be written as a bare JS identifier. */
export function isIdentifier(name: string): boolean {
  return IDENTIFIER.test(name) && !RESERVED.has(name);
}

/**
 * Why a property or parameter name cannot work, or undefined when it can. JSON allows any key, and every
 * emitter quotes a key that is not an identifier (`"+1"`, `"16x16"`, `"user-name"`), so only these are
 * refused: a prototype name, U+0000, and the empty name.
 */
export function unsafeReason(name: string): string | undefined {
  if (FORBIDDEN_NAMES.has(name)) return "would reach the object prototype";
  // SQLite reads a JSON path up to its first NUL: "a\u0000b" and "a" would be one stored property.
  if (name.includes("\u0000")) return "holds the character U+0000, which the store cannot tell from the end of the name";
  // An error body's `property` names what caused it, and "" says that no property did (CONTRACT §3).
  if (name === "") return 'is empty: an error about it would carry `property: ""`, which says that no property caused it';
  return undefined;
}

/**
 * The characters of a name in a `fields` or `expand` selection, as the service's parser
 * (templates/runtime/select.ts) reads them: a property named with any other character cannot be selected.
 */
const SELECTION_NAME = /^[A-Za-z0-9_$-]+$/;

/** True when `fields=` and `expand=` can name the property. @example isSelectableName("+1") === false */
export function isSelectableName(name: string): boolean {
  return SELECTION_NAME.test(name) && !FORBIDDEN_NAMES.has(name);
}

/**
 * The shape of a collection link's name, which becomes a URL segment (`/books/{id}/<name>`, written into
 * the route as it is) and a name in `expand`: ASCII letters, digits, "_" and "-", starting with a letter.
 * Nothing that the router reads as syntax (":", "*", "(") or that reaches a path ("/", "\\", ".").
 */
export const SEGMENT_NAME = /^[A-Za-z][A-Za-z0-9_-]*$/;

/** True for a name of the SEGMENT_NAME shape. @example isSegmentName("requested_reviewers") === true */
export function isSegmentName(name: string): boolean {
  return SEGMENT_NAME.test(name);
}

/**
 * The shape of a name that becomes a URL segment, a file name and an identifier (collections, actions,
 * collection links): ASCII letters and digits, starting with a lower-case letter. Nothing else reaches a
 * path: no "/", "\\", "." or ":".
 */
export const CAMEL_NAME = /^[a-z][A-Za-z0-9]*$/;

/**
 * The shape of an action name: a camelCase name, or lower-case words joined by dashes (`calculate-total`,
 * whose handler and client method are `calculateTotal`). A dash is as safe as a letter in a URL segment
 * and a file name; nothing else reaches a path.
 */
export const ACTION_NAME = /^[a-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)*$/;

/** True for a name of the ACTION_NAME shape. @example isActionName("calculate-total") === true */
export function isActionName(name: string): boolean {
  return ACTION_NAME.test(name);
}

/** True for a name of the CAMEL_NAME shape. @example isCamelName("convertCurrency") === true */
export function isCamelName(name: string): boolean {
  return CAMEL_NAME.test(name);
}

/** A camelCase name close to `name`, to suggest as a fix (`fallback` when nothing is left). */
export function camelFix(name: string, fallback: string): string {
  const c = camelCase(name);
  return /^[a-z]/.test(c) ? c : fallback;
}

/**
 * True for the device names Windows reserves in every folder, with or without an extension and in any
 * case (CON, PRN, AUX, NUL, COM0-9, LPT0-9): src/actions/con.ts cannot be created or read there.
 */
export function isDeviceName(name: string): boolean {
  return /^(con|prn|aux|nul|com[0-9]|lpt[0-9])$/i.test(name);
}

/** The members every JavaScript object has (Object.prototype): a client member or map key of that name shadows them. */
export const OBJECT_MEMBERS: ReadonlySet<string> = new Set([
  "constructor", "hasOwnProperty", "isPrototypeOf", "propertyIsEnumerable", "toLocaleString", "toString", "valueOf",
  "__defineGetter__", "__defineSetter__", "__lookupGetter__", "__lookupSetter__", "__proto__",
]);

/** The exported function name of an action's handler: the action's name, suffixed when it is a reserved word. */
export function handlerIdentifier(actionName: string): string {
  const name = camelCase(actionName);
  return isIdentifier(name) ? name : `${name}Action`;
}

/** A property key as TypeScript source: bare when an identifier, quoted otherwise. */
export function propertyKey(name: string): string {
  return IDENTIFIER.test(name) ? name : JSON.stringify(name);
}

/** A noun with its indefinite article. @example withArticle("author") === "an author" */
export function withArticle(name: string): string {
  return `${/^[aeiou]/i.test(name) ? "an" : "a"} ${name}`;
}
