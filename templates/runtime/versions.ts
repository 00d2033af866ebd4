/**
 * Several versions at once (CONTRACT §7): one store and one current model; a request in an older version is
 * converted up to the current one before anything else sees it, a representation down to the request's
 * version before it is sent. What a version is, per resource, comes from the spec (emitted from the model's
 * version views): the properties it has and the names it gives them, and its media types. Conversions the
 * version keywords imply (x-since, x-until, x-renamed) are made here; the user's converters (src/versions/)
 * run after `up` and before `down`.
 */

/** A resource as one version sees it. */
export interface VersionedResourceSpec {
  readonly mediaType: string;
  readonly collectionMediaType: string;
  /** [current name, name in the version] of each property the version has. */
  readonly fields: readonly (readonly [current: string, wire: string])[];
}

/** One older version a service serves. */
export interface VersionSpec {
  readonly version: number;
  /** YYYY-MM-DD after which the version may stop being served. */
  readonly sunset?: string | undefined;
  /** By collection: the collections the version serves. */
  readonly resources: Readonly<Record<string, VersionedResourceSpec>>;
}

type Json = Record<string, unknown>;

/** Properties every representation has that no version renames or drops. */
const SERVER_OWNED = new Set(["meta", "id", "createdAt", "modifiedAt"]);

/** How bodies and representations of one resource move between one version and the current one. */
export interface Converter {
  /** A request body of the version (validated against its schema) as the current version's body. */
  up(body: Json): Json;
  /** A representation of the current version as the version's (properties it lacks dropped, the others renamed). */
  down(representation: Json): Json;
  /** A property name of the version (in fields, expand, an error's property) as the current one; undefined when it has none. */
  currentName(wire: string): string | undefined;
  /** The version's name of a current property; undefined when the version lacks it. */
  wireName(current: string): string | undefined;
}

/** The converter of a resource in a version: renames and drops by the spec's field list. */
export function converterOf(resource: VersionedResourceSpec, allFields: readonly string[]): Converter {
  const toWire = new Map(resource.fields.map(([current, wire]) => [current, wire]));
  const toCurrent = new Map(resource.fields.map(([current, wire]) => [wire, current]));
  const declared = new Set(allFields);
  const put = (out: Json, key: string, value: unknown) => Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  return {
    up(body) {
      const out: Json = {};
      for (const [key, value] of Object.entries(body)) {
        const current = toCurrent.get(key);
        // A name the version does not declare is an open resource's own property: kept as sent.
        put(out, current ?? key, value);
      }
      return out;
    },
    down(representation) {
      const out: Json = {};
      for (const [key, value] of Object.entries(representation)) {
        if (SERVER_OWNED.has(key)) put(out, key, value);
        else if (toWire.has(key)) put(out, toWire.get(key)!, value);
        else if (!declared.has(key)) put(out, key, value); // an open resource's own property
      }
      return out;
    },
    currentName: (wire) => toCurrent.get(wire),
    wireName: (current) => toWire.get(current),
  };
}
