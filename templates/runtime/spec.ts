/**
 * The service description a generated package hands to the runtime: plain data emitted by resourcery
 * from its model (src/generated/spec.ts). The runtime reads nothing else about the service.
 */
import type { VersionSpec } from "./versions.js";

export type JsonSchema = { readonly [key: string]: unknown } | boolean;
export type AccessAction = "read" | "create" | "update" | "delete" | "admin";
export type AuthScheme = "apiKey" | "basic" | "bearer" | "oauth2" | "oauth1";

/** service.json auth.oauth2: an external issuer of JWT access tokens, and the service's own token endpoint's settings. */
export interface OAuth2Spec {
  readonly issuer?: string;
  readonly audience?: readonly string[];
  readonly jwksUri?: string;
  /** The claim holding the roles (a dotted path; default "scope"). */
  readonly rolesClaim?: string;
  readonly algorithms?: readonly string[];
  /** false: no token endpoint of the service's own. */
  readonly tokenEndpoint?: boolean;
  /** Seconds an access token of the service's own is valid (default 900). */
  readonly tokenLifetime?: number;
}
export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

export interface ServiceSpec {
  readonly name: string;
  readonly title: string;
  readonly vendor: string;
  readonly version: number;
  /** Absolute base URL from service.json, without a trailing slash (BASE_URL overrides it at run time). */
  readonly baseUrl: string;
  readonly errorDocsUrl: string;
  readonly auth: { readonly schemes: readonly AuthScheme[]; readonly realm: string; readonly oauth2?: OAuth2Spec };
  readonly paging: { readonly defaultLimit: number; readonly maxLimit: number };
  /** Largest accepted request body, in bytes. */
  readonly bodyLimit: number;
  readonly resources: readonly ResourceSpec[];
  readonly actions: readonly ActionSpec[];
  readonly errors: readonly ErrorSpec[];
  readonly mediaTypes: readonly MediaTypeSpec[];
  /**
   * The schemas several others share, by name; a body or query schema refers to one as
   * `resourcery:shared#/$defs/<name>` (compiled once, whoever uses it).
   */
  readonly schemas?: { readonly [name: string]: unknown };
  /** The older versions the service still serves (CONTRACT §7), ascending; absent when it serves the current one only. */
  readonly versions?: readonly VersionSpec[];
}

export interface ResourceSpec {
  /** Singular name: "account". */
  readonly name: string;
  /** Path segment: "accounts". */
  readonly collection: string;
  readonly fields: readonly FieldSpec[];
  readonly required: readonly string[];
  readonly unique: readonly string[];
  readonly access: { readonly [A in AccessAction]?: readonly string[] };
  readonly owner?: string | undefined;
  /** Media types (canonical vendor form) of an instance and of a page of the collection. */
  readonly mediaType: string;
  readonly collectionMediaType: string;
  /** How the server makes the ids of new instances (x-id); absent: UUIDs. */
  readonly idForm?: IdForm | undefined;
  /**
   * True when a body may hold properties the resource does not declare (its root's additionalProperties or
   * patternProperties, in bodySchema): they are stored, represented and merged like the declared ones.
   */
  readonly open?: boolean | undefined;
  /**
   * JSON Schema of a request body for create/replace: the declared properties with links as
   * { meta: { href } }, server-owned, owner and inverse properties excluded, additionalProperties false.
   */
  readonly bodySchema: JsonSchema;
}

/**
 * The form of a resource's ids (x-id): a UUID, a prefix and 22 letters and digits, or an integer counting
 * up from 1 (numbered by the store, a JSON number in representations).
 */
export type IdForm = { readonly kind: "uuid" } | { readonly kind: "prefix"; readonly prefix: string } | { readonly kind: "sequence" };

export interface FieldSpec {
  readonly name: string;
  /** "link" (to an instance), "links" (to a collection), or the JSON type of a plain value. */
  readonly kind: "string" | "number" | "integer" | "boolean" | "object" | "array" | "null" | "any" | "link" | "links";
  readonly link?: {
    readonly kind: "instance" | "collection";
    /** Collection name of the target. */
    readonly target: string;
    /** For an inverse collection link: the target's field that points back here. */
    readonly inverse?: string;
    /**
     * For an instance link, what deleting its target does (x-on-delete): "cascade" deletes the linking
     * instance too, "clear" removes the link; absent, the delete is refused (409 stillLinked).
     */
    readonly onDelete?: "cascade" | "clear";
  };
  /**
   * The value may be null (a type array with "null", an anyOf with { "type": "null" }; for an instance link,
   * anyOf [{ $ref }, { "type": "null" }]): null is stored and shown as null, and in a merge patch null sets the
   * field to null instead of removing it. Absent, null in a merge patch removes the field (RFC 7396).
   */
  readonly nullable?: boolean;
  /**
   * The schema's `default` (a plain value's): filled in by validation when a create leaves it out, and in the
   * instances stored before the property became required (migration.ts).
   */
  readonly default?: unknown;
  /** Declared `"writeOnly": true` (a password, a secret): accepted in bodies, never in a representation. */
  readonly writeOnly?: boolean;
  /**
   * Only older versions have it (x-until): still stored, written and shown in the versions that have it,
   * absent from the current version's bodies and representations.
   */
  readonly retired?: boolean;
  /** For a plain object with declared properties: those properties (`fields=address(city)` selects among them). */
  readonly properties?: readonly FieldSpec[];
}

export interface ActionSpec {
  readonly name: string;
  readonly method: HttpMethod;
  /** JSON Schema of the query parameters (an object of scalars). */
  readonly query: JsonSchema;
  readonly roles: readonly string[];
  readonly mediaType: string;
}

export interface ErrorSpec {
  readonly code: number;
  readonly status: number;
  readonly key: string;
  readonly title: string;
  readonly message: string;
  readonly dev: string;
  readonly info: string;
}

export interface MediaTypeSpec {
  readonly name: string;
  readonly alias: string;
  readonly subject: string;
  readonly kind: "instance" | "collection" | "error" | "action";
  readonly version: number;
}
