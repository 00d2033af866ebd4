import { childPointer, tokensOf, type Diagnostic, type Target } from "../../diagnostics/diagnostic.js";
import { report } from "../../diagnostics/report.js";
import { mediaSubject, vendorMediaType } from "../../model/media-types.js";
import { FORBIDDEN_NAMES, handlerIdentifier, OBJECT_MEMBERS } from "../../model/names.js";
import type { Model } from "../../model/types.js";
import { defineRule } from "../rule.js";

/** What is named, where it is written, and how to say it in a message. */
interface Named {
  readonly name: string;
  readonly at: Target;
  /** `collection "books"`, `action "convert"` */
  readonly label: string;
}

/**
 * Names that would end up as the same thing in the generated package: collections and actions that
 * differ only in case (one file on macOS and Windows, one media type), a name the generated modules
 * already use (handlers.ts exports, Object.prototype members of the client object), two resources or
 * actions with one type name or one media type, and error keys that differ only in case. A type name of
 * the client's own (Link, Page …) is no collision: the resource's type takes it (names.ts clientTypeNames).
 * Exact repeats are duplicate-collection's and duplicate-route's.
 */
export const nameCollisions = defineRule({
  codes: ["name-collision"],
  description: "collections, actions, their type names and media types, and error keys do not collide",
  check: (model) => {
    // One finding per name: the first of the checks below that finds it colliding.
    const seen = new Set<string>();
    const all = [...caseCollisions(model), ...reservedNames(model), ...typeNameCollisions(model), ...mediaTypeCollisions(model), ...errorKeyCollisions(model)];
    return all.filter((d) => {
      const key = `${d.file}#${d.pointer}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
  },
});

function collections(model: Model): Named[] {
  return [...model.resources]
    .sort((a, b) => (a.origin.file < b.origin.file ? -1 : a.origin.file > b.origin.file ? 1 : 0))
    .map((r) => ({ name: r.collection, at: { file: r.origin.file, pointer: "/x-collection" }, label: `collection ${JSON.stringify(r.collection)}` }));
}

/** Actions by name ignoring case, a camelCase name before its variants: "convert" is kept and "Convert" reported. */
function actions(model: Model): Named[] {
  const order = (name: string) => `${name.toLowerCase()}\u0000${/^[a-z]/.test(name) ? 0 : 1}${name}`;
  return [...model.actions].sort((a, b) => (order(a.name) < order(b.name) ? -1 : 1)).map((a) => ({ name: a.name, at: { ...a.origin, kind: "key" as const }, label: `action ${JSON.stringify(a.name)}` }));
}

function collide(n: Named, other: string, fix: string): Diagnostic {
  return report("name-collision", n.at, { what: n.label, other, fix });
}

/** Collections and actions whose names differ only in case (equal names are reported as duplicates). */
function caseCollisions(model: Model): Diagnostic[] {
  const first = new Map<string, Named>();
  const out: Diagnostic[] = [];
  for (const n of [...collections(model), ...actions(model)]) {
    const key = n.name.toLowerCase();
    const other = first.get(key);
    if (!other) first.set(key, n);
    else if (other.name !== n.name) out.push(collide(n, `${other.label}: ${caseReason(other, n)}`, "rename one of them, so that the names differ in more than case"));
  }
  return out;
}

/** What goes wrong with two names that differ only in case. */
function caseReason(a: Named, b: Named): string {
  const folder = (n: Named) => (n.label.startsWith("action") ? "src/actions" : "src/hooks");
  const sameType = mediaSubject(a.name) === mediaSubject(b.name) ? ", and both have one media type" : "";
  if (folder(a) === folder(b)) {
    return `the names differ only in case, and the file systems of macOS and Windows take ${folder(a)}/${a.name}.ts and ${folder(b)}/${b.name}.ts for one file${sameType}`;
  }
  return `the names differ only in case, as do their paths /${a.name} and /${b.name}${sameType}`;
}

/**
 * Names the generated modules hold already: Object.prototype's (the client object has them) and a handler name
 * another action's handler has. (handlers.ts imports hooks and handlers under names with "_", which no collection
 * or action has, and a handler file imports no value: an action `hooks`, `apiError` or `booksHooks` is no clash.)
 */
function reservedNames(model: Model): Diagnostic[] {
  const out: Diagnostic[] = [];
  const handlers = new Map<string, string>();
  for (const c of collections(model)) {
    if (isObjectMember(c.name)) out.push(collide(c, `Object.prototype.${c.name}, which every client object has`, "choose another name"));
  }
  for (const a of actions(model)) {
    const fn = handlerIdentifier(a.name);
    if (isObjectMember(a.name)) out.push(collide(a, `Object.prototype.${a.name}, which every client object has`, "choose another name"));
    else if (handlers.has(fn)) out.push(collide(a, `action ${JSON.stringify(handlers.get(fn))}: both handlers are named ${fn}`, "choose another name"));
    handlers.set(fn, a.name);
  }
  return out;
}

/** An Object.prototype member that is not already unsafe-name's (__proto__, constructor, prototype). */
function isObjectMember(name: string): boolean {
  return OBJECT_MEMBERS.has(name) && !FORBIDDEN_NAMES.has(name);
}

/** Resource and action types of one name. */
function typeNameCollisions(model: Model): Diagnostic[] {
  const out: Diagnostic[] = [];
  const owners = new Map<string, Named>();
  const byCollection = new Map(model.resources.map((r) => [r.collection, r.typeName]));
  const byAction = new Map(model.actions.map((a) => [a.name, a.typeName]));
  const named: [Named, string[]][] = [
    ...collections(model).map((c): [Named, string[]] => {
      const t = byCollection.get(c.name)!;
      return [c, [t, `${t}Input`, `${t}Fields`, `${t}Api`]];
    }),
    ...actions(model).map((a): [Named, string[]] => [a, [`${byAction.get(a.name)!}Params`, `${byAction.get(a.name)!}Result`]]),
  ];
  for (const [n, types] of named) {
    // Equal names are duplicates, names that differ in case a case collision: reported once, above.
    const taken = types.find((t) => owners.has(t) && owners.get(t)!.name.toLowerCase() !== n.name.toLowerCase());
    if (taken) out.push(collide(n, `${owners.get(taken)!.label}: both have a type named ${taken}`, "rename one of them"));
    for (const t of types) if (!owners.has(t)) owners.set(t, n);
  }
  return out;
}

/** Two subjects (resource, collection, action, the error) of one vendor media type. */
function mediaTypeCollisions(model: Model): Diagnostic[] {
  const { vendor, version } = model.service;
  const out: Diagnostic[] = [];
  const owners = new Map<string, Named>([["error", { name: "", at: model.service.origin, label: "the error media type" }]]);
  const subjects: [Named, string[]][] = [
    ...collections(model).map((c): [Named, string[]] => {
      const r = model.resources.find((x) => x.collection === c.name)!;
      return [c, [...new Set([mediaSubject(r.name), mediaSubject(r.collection)])]];
    }),
    ...actions(model).map((a): [Named, string[]] => [a, [mediaSubject(a.name)]]),
  ];
  for (const [n, list] of subjects) {
    for (const subject of list) {
      const other = owners.get(subject);
      // Equal names are duplicates, names that differ in case a case collision: reported once, above.
      if (other && other.name.toLowerCase() !== n.name.toLowerCase()) {
        const type = vendorMediaType(vendor, version, subject, "instance").name;
        out.push(collide(n, `${other.label}: both have the media type ${type}`, "rename one of them"));
        break;
      }
    }
    for (const subject of list) if (!owners.has(subject)) owners.set(subject, n);
  }
  return out;
}

/** Error keys that differ only in case (or not at all): the later one, in the order written, is reported. */
function errorKeyCollisions(model: Model): Diagnostic[] {
  const out: Diagnostic[] = [];
  const seen = new Map<string, string>();
  for (const e of model.errors) if (e.builtin) seen.set(e.key.toLowerCase(), `the built-in error key "${e.key}"`);
  const index = (pointer: string) => Number(tokensOf(pointer).at(-1));
  const own = model.errors.filter((e) => e.origin).sort((a, b) => index(a.origin!.pointer) - index(b.origin!.pointer));
  for (const e of own) {
    const other = seen.get(e.key.toLowerCase());
    const label = `error key ${JSON.stringify(e.key)}`;
    if (other) out.push(report("name-collision", { file: e.origin!.file, pointer: childPointer(e.origin!.pointer, "key") }, { what: label, other, fix: "give each error a key of its own: keys that differ only in case collide, and the built-in keys (see the error catalog in the README) are taken" }));
    else seen.set(e.key.toLowerCase(), `the error key "${e.key}" at ${e.origin!.pointer}`);
  }
  return out;
}
