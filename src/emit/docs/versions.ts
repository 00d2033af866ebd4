/**
 * The reference of a service that serves several versions (CONTRACT §7): the current version's pages where
 * a single version's are, each older version's in a folder of its own (v<N>/), the error pages shared at the
 * root, a version switch between the same page in each version, and a changelog page made from the version
 * keywords. A service that serves one version has none of this: its reference is as it always was.
 */
import { changelogOf, type Change } from "../../model/changelog.js";
import { servedVersions } from "../../model/versions.js";
import type { Model } from "../../model/types.js";
import { versionDates, type VersionDates } from "../../model/version-model.js";
import { code, PAGES, text, type Reference, type Target, type Text } from "./reference.js";
import { Deferred } from "../keys.js";

/** One version's page set in the reference. */
export interface DocsVersion {
  readonly version: number;
  readonly current: boolean;
  /** The folder of its pages under the docs root: "" for the current version, "v<N>/" for an older one. */
  readonly folder: string;
  readonly dates: VersionDates;
  /** The collections it serves (the pages it has besides its index and actions). */
  readonly collections: ReadonlySet<string>;
}

/** The page of the changelog (at the docs root). */
export const CHANGELOG = "changelog";

/** The page sets of a service's served versions (ascending) and its changelog. */
export interface DocsVersions {
  readonly all: readonly DocsVersion[];
  readonly changelog: Changelog;
}

/** The page sets and the changelog of a service's served versions (from its whole model); undefined when it serves one version only. */
export function docsVersionsOf(model: Model): DocsVersions | undefined {
  const { service } = model;
  const served = servedVersions(service);
  if (served.length < 2) return undefined;
  const all = served.map((version) => {
    const current = version === service.version;
    return {
      version,
      current,
      folder: current ? "" : `v${version}/`,
      dates: versionDates(service, version),
      collections: new Set(model.resources.filter((r) => r.since === undefined || r.since <= version).map((r) => r.collection)),
    };
  });
  return { all, changelog: changelogContent(model, all) };
}

/** The version whose page set a model's reference is (its `service.version`: a model of a version is that version's). */
export function docsVersionOf(model: Model, versions: DocsVersions | undefined): DocsVersion | undefined {
  return versions?.all.find((v) => v.version === model.service.version);
}

/**
 * The reference moved into `folder`: every page it names is under it, except the error pages, which every
 * version shares at the root (an error code means the same in each).
 */
export function inFolder(ref: Reference, folder: string): Reference {
  if (folder === "") return ref;
  const move = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(move);
    if (value instanceof Deferred) return value.map(move); // moved when read, keyed as before
    if (value === null || typeof value !== "object") return value;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      out[k] = k === "page" && typeof v === "string" && !isErrorPage(v) ? `${folder}${v}` : move(v);
    }
    return out;
  };
  return move(ref) as Reference;
}

function isErrorPage(page: string): boolean {
  return /^\d+$/.test(page);
}

/** One entry of the version switch of a page: the same page in that version (its index when it lacks the page). */
export interface VersionLink {
  readonly label: string;
  readonly target: Target;
  /** The version of the page it is on. */
  readonly here: boolean;
}

/**
 * The version switch of the page `page` (a page of the docs root, without extension) of the version `here`
 * (undefined for the shared pages: the error pages and the changelog): a link per version to the same page
 * there, or to its overview when it has no such page.
 */
export function versionSwitch(versions: readonly DocsVersion[], here: DocsVersion | undefined, page: string): VersionLink[] {
  const inSet = here && page.startsWith(here.folder) ? page.slice(here.folder.length) : undefined;
  return [...versions].reverse().map((v) => {
    const has = inSet !== undefined && (inSet === PAGES.index || inSet === PAGES.actions || (inSet.startsWith("resources/") && v.collections.has(inSet.slice("resources/".length))));
    return {
      label: `v${v.version}${v.current ? " (current)" : v.dates.sunset ? ` (until ${v.dates.sunset})` : v.dates.deprecated ? " (deprecated)" : ""}`,
      target: { page: `${v.folder}${has ? inSet : PAGES.index}`, anchor: "" },
      here: v === here,
    };
  });
}

/** The file of a version's OpenAPI document: openapi.json for the current one, openapi.v<N>.json for an older one. */
export function openApiFile(version: number, current: number): string {
  return version === current ? "openapi.json" : `openapi.v${version}.json`;
}

/** What a version's dates mean for its clients, in a sentence (the docs of an older version say it). */
export function deprecationNote(version: number, dates: VersionDates): string {
  if (dates.deprecated === undefined) return `Version ${version} is served with no end date set.`;
  if (dates.sunset === undefined) return `Version ${version} is deprecated${since(dates)}, with no end date set: its answers carry the \`Deprecation\` header.`;
  return `Version ${version} is deprecated${since(dates)} and served until ${dates.sunset}: its answers carry the \`Deprecation\` and \`Sunset\` headers.`;
}

/** " as of <day>" when a version is deprecated before its sunset (a sunset alone deprecates it as of that day). */
function since(dates: VersionDates): string {
  return dates.deprecated !== undefined && dates.deprecated !== dates.sunset ? ` as of ${dates.deprecated}` : "";
}

/** The notice on every page of an older version: which version it is, and until when it is served. */
export function versionNotice(here: DocsVersion | undefined, current: number): Text {
  if (!here || here.current) return [];
  return text(
    `This is the reference of version ${here.version}, an older version; the current one is ${current} (the `,
    { text: "changelog", code: false, link: { page: CHANGELOG, anchor: "" } },
    " says what changed). ",
    deprecationNote(here.version, here.dates),
  );
}

/** The changelog's content, in a form the HTML and the Markdown pages each render. */
export interface Changelog {
  readonly intro: Text;
  readonly versions: readonly {
    readonly anchor: string;
    readonly heading: string;
    /** Its reference and its OpenAPI document (a file of the docs root); none for a version no longer served. */
    readonly reference: Target | undefined;
    readonly openapi: string | undefined;
    readonly changes: readonly Text[];
    /** Said when it has no changes to list. */
    readonly empty: Text;
  }[];
}

/** The changelog of a service that serves several versions, from the version keywords (of its whole model). */
function changelogContent(model: Model, versions: readonly DocsVersion[]): Changelog {
  const byVersion = new Map(versions.map((v) => [v.version, v]));
  const log = changelogOf(model);
  const page = (v: number, collection?: string): Target | undefined => {
    const set = byVersion.get(v);
    if (!set) return undefined;
    return { page: `${set.folder}${collection !== undefined && set.collections.has(collection) ? PAGES.resource(collection) : PAGES.index}`, anchor: "" };
  };
  const describe = (v: number, c: Change): Text => {
    const where = code(`/${c.collection}`, page(v, c.collection));
    switch (c.kind) {
      case "resource-added":
        return text("Added the collection ", where, ".");
      case "added":
        return text(where, ": added ", code(c.property), ".");
      case "renamed":
        return text(where, ": renamed ", code(c.from), " → ", code(c.to), ".");
      case "removed":
        return text(where, ": removed ", code(c.property), " (still stored: the versions that have it read and write it).");
    }
  };
  return {
    intro: text(
      "What each version changed since the one before it, made from the version keywords of the definitions (`x-since`, `x-renamed`, `x-until`). " +
        "Every served version is served at once, from one store: what one version writes, every version reads. A client picks its version with the vendor media type in `Accept`.",
    ),
    versions: log.map((entry) => {
      const set = byVersion.get(entry.version);
      const dates = versionDates(model.service, entry.version);
      const state = entry.current ? "current" : !entry.served ? "no longer served" : dates.deprecated ? `deprecated${since(dates)}${dates.sunset ? `, served until ${dates.sunset}` : ""}` : "served";
      return {
        anchor: `v${entry.version}`,
        heading: `Version ${entry.version} (${state})`,
        reference: set && { page: `${set.folder}${PAGES.index}`, anchor: "" },
        openapi: set && openApiFile(entry.version, model.service.version),
        changes: entry.changes.map((c) => describe(entry.version, c)),
        empty: text(entry === log.at(-1) ? "The oldest version served: the changes above are what its clients meet when they move on." : "No changes to its resources."),
      };
    }),
  };
}
