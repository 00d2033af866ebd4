/**
 * The versions a service serves, seen from its one current model (CONTRACT §7): each older version is the
 * current model with the version keywords applied — resources and properties that did not exist yet (x-since)
 * or no longer exist (x-until) left out, properties under the names they had then (x-renamed), and the
 * version's own media types. The emitters and the runtime take a view instead of reading the model, so
 * that one code serves every version; the current version's view is the model as it is.
 */
import { mediaSubject, vendorMediaType } from "./media-types.js";
import type { Field, FieldHistory, Model, Resource, Service } from "./types.js";

/** A property as one version sees it. */
export interface VersionedField {
  readonly field: Field;
  /** Its name on the wire in that version (an older name under x-renamed, else the field's). */
  readonly wire: string;
  /** Required in that version: required now, and not a property that version is to lose (x-until). */
  readonly required: boolean;
}

/** A resource as one version sees it. */
export interface VersionedResource {
  readonly resource: Resource;
  /** The properties the version has, in the model's order (by current name). */
  readonly fields: readonly VersionedField[];
  /** The version's vendor media types of an instance and of a page (canonical form). */
  readonly mediaType: string;
  readonly collectionMediaType: string;
}

/** One served version of a service. */
export interface VersionView {
  readonly version: number;
  /** True for the current version (service.json `version`). */
  readonly current: boolean;
  /** The day after which the version may stop being served, for an older version that has one. */
  readonly sunset: string | undefined;
  /** The resources the version serves, in the model's order. */
  readonly resources: readonly VersionedResource[];
}

/** Every version the service serves, ascending: the older ones of `versions`, then the current one. */
export function servedVersions(service: Service): number[] {
  return [...service.versions.map((v) => v.number).filter((n) => n < service.version), service.version];
}

/** True when a property (or a resource, with `since` alone) exists in `version`. */
export function presentIn(history: Pick<FieldHistory, "since" | "until"> | undefined, version: number): boolean {
  if (history === undefined) return true;
  return (history.since === undefined || history.since <= version) && (history.until === undefined || version <= history.until);
}

/**
 * The name of a property in `version`: the old name of the first rename at or after that version
 * (x-renamed {"1": "fullName", "3": "displayName"}: fullName in 1 and before, displayName in 2 and 3, the
 * current name from 4 on), else its current name.
 */
export function wireName(field: Field, version: number): string {
  return field.history?.renames.find((r) => version <= r.upTo)?.name ?? field.name;
}

/** The view of the model in `version` (one of servedVersions). */
export function versionView(model: Model, version: number): VersionView {
  const { service } = model;
  const current = version === service.version;
  const older = service.versions.find((v) => v.number === version);
  const resources = model.resources
    .filter((r) => presentIn({ since: r.since, until: undefined }, version))
    .map((resource) => ({
      resource,
      fields: resource.fields
        .filter((f) => presentIn(f.history, version))
        .map((field) => ({ field, wire: wireName(field, version), required: field.required && field.history?.until === undefined })),
      mediaType: current ? resource.mediaType : vendorMediaType(service.vendor, version, mediaSubject(resource.name), "instance").name,
      collectionMediaType: current ? resource.collectionMediaType : vendorMediaType(service.vendor, version, mediaSubject(resource.collection), "collection").name,
    }));
  return { version, current, sunset: older?.sunset, resources };
}
