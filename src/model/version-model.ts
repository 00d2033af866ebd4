/**
 * An older version of a service as a model of its own: what versionView says of the version (its
 * resources, its properties under their names then, what it required, its media types) put back into the
 * model's shape, so that the emitters of the current version's docs and client describe it as they are,
 * with no second code path. The model of an older version serves that version alone: `service.version` is
 * it, `service.currentVersion` the one the service is at, and `service.versions` holds it only when it has
 * dates to say (versionDates).
 */
import { mediaSubject, vendorMediaType } from "./media-types.js";
import { propertyKey } from "./names.js";
import type { Action, Field, MediaType, Model, OlderVersion, Resource, Service } from "./types.js";
import { servedVersions, versionView, type VersionedResource } from "./versions.js";

/** The `v<N>` segment of a base URL's path (the first), if it has one. */
const VERSION_SEGMENT = /\/v\d+(?=\/|$)/;

/**
 * The base URL of `version`: when the current base URL's path has a `v<K>` segment, each version is served
 * under its own (`v<version>` in its place), else every version shares the base URL.
 * @example versionBaseUrl("https://api.example.com/v4", 2) === "https://api.example.com/v2"
 */
export function versionBaseUrl(baseUrl: string, version: number): string {
  const url = new URL(baseUrl);
  if (!VERSION_SEGMENT.test(url.pathname)) return baseUrl;
  const path = url.pathname.replace(VERSION_SEGMENT, `/v${version}`);
  return `${url.origin}${path === "/" ? "" : path.replace(/\/$/, "")}${url.search}`;
}

/** The dates of a version (CONTRACT §7). */
export interface VersionDates {
  /** The day it is deprecated as of (its Deprecation header): its own `deprecated`, else its sunset. */
  readonly deprecated: string | undefined;
  /** The day after which it may stop being served (its Sunset header). */
  readonly sunset: string | undefined;
}

/** The dates of `version` (by default the one `service` describes, as a model of a version does); none for the current version. */
export function versionDates(service: Service, version: number = service.version): VersionDates {
  const older = service.versions.find((v) => v.number === version);
  return { deprecated: older?.deprecated ?? older?.sunset, sunset: older?.sunset };
}

/**
 * The model of `version` (one the service serves): the resources the version has, each field under its name
 * then and required as then, links only to resources the version has, and the version's vendor media types and
 * base URL. The current version's is `model` itself, less the properties it no longer has (x-until).
 */
export function modelOfVersion(model: Model, version: number): Model {
  const { service } = model;
  if (!servedVersions(service).includes(version)) throw new Error(`version ${version} is not a version ${service.name} serves`);
  // (The common case, a current version that lost no property, costs no view.)
  if (version === service.version && !model.resources.some((r) => r.fields.some((f) => f.history?.until !== undefined))) return model;
  const view = versionView(model, version);
  if (view.current && view.resources.every((r, i) => model.resources[i] === r.resource && r.fields.length === r.resource.fields.length)) return model;
  const byCollection = new Map(view.resources.map((r) => [r.resource.collection, r]));
  const resources = view.resources.map((r) => resourceInVersion(r, byCollection));
  if (view.current) return { ...model, resources };
  const actions: Action[] = model.actions.map((a) => ({ ...a, mediaType: vendorMediaType(service.vendor, version, mediaSubject(a.name), "action").name }));
  const older = service.versions.find((v) => v.number === version) as OlderVersion;
  const baseUrl = versionBaseUrl(service.baseUrl, version);
  return {
    ...model,
    service: {
      ...service,
      version,
      currentVersion: service.version,
      versions: older.sunset === undefined && older.deprecated === undefined ? [] : [older],
      baseUrl,
      basePath: new URL(baseUrl).pathname.replace(/\/+$/, ""),
    },
    resources,
    actions,
    mediaTypes: mediaTypesOf(service.vendor, version, resources, actions),
  };
}

/** A resource of the view as a model's resource: its version's fields, names, requirements and media types. */
function resourceInVersion(view: VersionedResource, byCollection: ReadonlyMap<string, VersionedResource>): Resource {
  const r = view.resource;
  const wire = new Map(view.fields.map((f) => [f.field.name, f.wire]));
  const fields: Field[] = [];
  for (const { field, wire: name, required } of view.fields) {
    const link = field.link;
    const target = link ? byCollection.get(link.target) : undefined;
    // A link to a resource the version does not have is not a property of it (the version has nothing to link).
    if (link && !target) continue;
    let inverse = link?.inverse;
    if (inverse !== undefined) {
      inverse = target!.fields.find((f) => f.field.name === inverse)?.wire;
      if (inverse === undefined) continue; // the instance link it lists by is not in this version
    }
    fields.push({ ...field, name, propertyKey: propertyKey(name), required, link: link && { ...link, inverse }, history: undefined });
  }
  const kept = new Map(fields.map((f) => [f.name, f]));
  const inVersion = (names: readonly string[]) => names.map((n) => wire.get(n)).filter((n): n is string => n !== undefined && kept.has(n));
  return {
    ...r,
    fields,
    required: inVersion(r.required).filter((n) => kept.get(n)!.required),
    unique: inVersion(r.unique),
    owner: r.owner === undefined ? undefined : wire.get(r.owner),
    since: undefined,
    mediaType: view.mediaType,
    collectionMediaType: view.collectionMediaType,
    // Its root `examples` are in the current names: the docs make the version's own.
    schema: withoutExamples(r.schema),
  };
}

/** Every vendor media type of `version` (as build-model's buildMediaTypes makes the current version's): the error's, each resource's and action's. */
function mediaTypesOf(vendor: string, version: number, resources: readonly Resource[], actions: readonly Action[]): MediaType[] {
  const types = [
    vendorMediaType(vendor, version, "error", "error"),
    ...resources.flatMap((r) => [vendorMediaType(vendor, version, mediaSubject(r.name), "instance"), vendorMediaType(vendor, version, mediaSubject(r.collection), "collection")]),
    ...actions.map((a) => vendorMediaType(vendor, version, mediaSubject(a.name), "action")),
  ];
  return [...new Map(types.map((t) => [t.name, t])).values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

function withoutExamples(schema: Resource["schema"]): Resource["schema"] {
  if (typeof schema !== "object" || !("examples" in schema)) return schema;
  const { examples: _examples, ...rest } = schema;
  return rest;
}
