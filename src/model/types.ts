/**
 * THE intermediate model: one plain, readonly, JSON-serializable description of a service. Every
 * emitter reads only this; names are decided and media types built before anything is emitted.
 */

import type { ClientTypeName, ServiceTypeName } from "./names.js";

/** A JSON Schema as plain data (draft 2020-12). */
export type JsonSchema = { readonly [key: string]: unknown } | boolean;

/** Where a model node came from, so later phases can report against the user's source. */
export interface Origin {
  readonly file: string;
  readonly pointer: string;
}

export type AuthScheme = "apiKey" | "basic" | "bearer" | "oauth2" | "oauth1";
export type AccessAction = "read" | "create" | "update" | "delete" | "admin";
export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

export interface Model {
  readonly service: Service;
  /** Sorted by collection name. */
  readonly resources: readonly Resource[];
  /** Sorted by name. */
  readonly actions: readonly Action[];
  /** Built-in and service errors, sorted by code. */
  readonly errors: readonly ErrorDef[];
  /** Every vendor media type of the service, sorted by name. */
  readonly mediaTypes: readonly MediaType[];
  /**
   * The name each of the client's own types (Link, Page, Client …) is exported under: its own, or
   * `Client<Name>` when a resource or action type takes it (names.ts clientTypeNames).
   */
  readonly clientTypes: Readonly<Record<ClientTypeName, string>>;
  /** The name each of the package entry's own types (Service, Store …) is exported under (names.ts serviceTypeNames). */
  readonly serviceTypes: Readonly<Record<ServiceTypeName, string>>;
  /**
   * Every schema a $ref reaches (other than a link's target), once, by name: a field, an action or another
   * shared schema refers to one as `{ "$ref": "#/$defs/<name>" }`. Sorted by name.
   */
  readonly schemas: readonly SharedSchema[];
  /** Absolute paths of every file the model was built from, sorted. */
  readonly sources: readonly string[];
  /**
   * Every schema as written, where it is written: each resource file, each action's query and response,
   * and each other file a $ref read (shared definitions). Lint rules judge keywords and patterns here.
   */
  readonly schemaRoots: readonly SchemaRoot[];
}

/**
 * A schema one or more $refs reach, kept as one: a named TypeScript type, an OpenAPI component and one
 * compiled validator. Its own $refs are in the shared form too (it may refer to itself).
 */
export interface SharedSchema {
  /** PascalCase, unique among the service's type names: "Address". */
  readonly name: string;
  readonly schema: JsonSchema;
  /** Where the $refs lead: the file and the pointer of the schema as written. */
  readonly origin: Origin;
}

/** A schema document (or an action's schema in service.json) as written. */
export interface SchemaRoot {
  readonly schema: unknown;
  readonly origin: Origin;
}

export interface Service {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly vendor: string;
  readonly version: number;
  /** The older versions still served (service.json `versions`), ascending; the current one is `version`. */
  readonly versions: readonly OlderVersion[];
  /** Set only in the model of an older version (modelOfVersion, whose `version` is that one): the version the service is at. */
  readonly currentVersion?: number | undefined;
  readonly baseUrl: string;
  /** Path of baseUrl without a trailing slash ("" for the root): every route sits under it. */
  readonly basePath: string;
  readonly errorDocsUrl: string;
  readonly auth: Auth;
  readonly origin: Origin;
}

/** An older version a service still serves (CONTRACT §7). */
export interface OlderVersion {
  readonly number: number;
  /** The day after which it may stop being served (YYYY-MM-DD): its answers carry Deprecation and Sunset. */
  readonly sunset: string | undefined;
  /** The day it was deprecated (YYYY-MM-DD), for its Deprecation header; undefined: the sunset's day. */
  readonly deprecated: string | undefined;
  readonly origin: Origin;
}

export interface Auth {
  readonly schemes: readonly AuthScheme[];
  readonly realm: string;
  /** service.json auth.oauth2: an external issuer of access tokens, and the service's own token endpoint's settings. */
  readonly oauth2?: OAuth2Settings;
  readonly origin: Origin;
}

/** OAuth 2.0 settings (service.json auth.oauth2; the generated runtime's spec.auth.oauth2). */
export interface OAuth2Settings {
  readonly issuer?: string;
  readonly audience?: readonly string[];
  readonly jwksUri?: string;
  readonly rolesClaim?: string;
  readonly algorithms?: readonly string[];
  readonly tokenEndpoint?: boolean;
  readonly tokenLifetime?: number;
}

export interface Resource {
  /** Singular name, used in media types: "account". */
  readonly name: string;
  /** Collection path segment: "accounts". */
  readonly collection: string;
  /** TypeScript type name: "Account". */
  readonly typeName: string;
  readonly title: string;
  readonly description: string;
  /** The declared properties, without the server-owned ones (see serverOwned). */
  readonly fields: readonly Field[];
  /**
   * Server-owned properties the definition declares (id, createdAt, modifiedAt: documentation of what the
   * server makes, when they fit it; meta never fits), sorted by name. The server writes them whatever they say.
   */
  readonly serverOwned: readonly Field[];
  /** How the server makes the ids of new instances (x-id). */
  readonly idForm: IdForm;
  /** `x-since` at the root: the first version that serves the collection (undefined: every version). */
  readonly since?: number | undefined;
  /** Names of required fields, as declared. */
  readonly required: readonly string[];
  /**
   * The keywords of the resource's root that say what a body holds besides its properties (ROOT_BODY_KEYWORDS:
   * `additionalProperties`, `patternProperties`, `propertyNames`, `minProperties`, `maxProperties`,
   * `dependentRequired`), as written, schemas shared like a field's; `additionalProperties: false` (the
   * default) is left out.
   */
  readonly bodyKeywords: Readonly<Record<string, unknown>>;
  /** True when a body may hold properties the resource does not declare (additionalProperties or patternProperties): they are stored and represented. */
  readonly open: boolean;
  readonly unique: readonly string[];
  readonly access: Access;
  /** Field holding the owner key's id (x-owner), if any. */
  readonly owner: string | undefined;
  /** Vendor media types (canonical form) of an instance and of a page of the collection. */
  readonly mediaType: string;
  readonly collectionMediaType: string;
  /** The schema as written, with $refs to other resources left as they are. */
  readonly schema: JsonSchema;
  readonly origin: Origin;
}

/**
 * The form of a resource's ids (x-id): a UUID (the default), a prefix followed by 22 random letters and
 * digits (`{"prefix": "cus_"}`), or an integer counting up from 1 (`"sequence"`).
 */
export type IdForm = { readonly kind: "uuid" } | { readonly kind: "prefix"; readonly prefix: string } | { readonly kind: "sequence" };

/** Roles allowed per action; an action absent from the map is open to any authenticated caller. */
export type Access = { readonly [A in AccessAction]?: readonly string[] };

export type FieldKind = "string" | "number" | "integer" | "boolean" | "object" | "array" | "null" | "any" | "link" | "links";

export interface Field {
  /** Property name as declared. */
  readonly name: string;
  /** Property key safe to emit in TypeScript (quoted when not an identifier). */
  readonly propertyKey: string;
  readonly kind: FieldKind;
  /** True for string, number, integer, boolean (and enums of those). */
  readonly scalar: boolean;
  readonly required: boolean;
  readonly description: string;
  /** The property's schema, its $refs in the shared form (see Model.schemas); links are described by `link`. */
  readonly schema: JsonSchema;
  readonly link: Link | undefined;
  /** What the version keywords say of the property (x-since, x-until, x-renamed); absent when it has none. */
  readonly history?: FieldHistory | undefined;
  readonly origin: Origin;
}

/** The versions a property appears in, and its older names (CONTRACT §7). */
export interface FieldHistory {
  /** `x-since`: absent from the versions before this one. */
  readonly since: number | undefined;
  /** `x-until`: absent from the versions after this one. */
  readonly until: number | undefined;
  /** `x-renamed`, ascending by version: in version `upTo` and before (down to the previous entry) it was `name`. */
  readonly renames: readonly { readonly upTo: number; readonly name: string }[];
}

export interface Link {
  /** "instance" for a $ref to a resource, "collection" for an array of them. */
  readonly kind: "instance" | "collection";
  /** Collection name of the target resource. */
  readonly target: string;
  /** For a collection link that is the inverse of the target's instance link: that link's field name. */
  readonly inverse: string | undefined;
  /**
   * For an instance link, what deleting its target does (`x-on-delete`): "cascade" deletes this instance
   * too, "clear" removes the link; undefined refuses the delete (409) while the link exists.
   */
  readonly onDelete: OnDelete | undefined;
  /**
   * An instance link that may be `null` (`anyOf` [$ref, { "type": "null" }], or `"type": ["object", "null"]`
   * beside the $ref): a body may send null, and an instance without a target shows null.
   */
  readonly nullable: boolean;
}

/** The values of `x-on-delete`. */
export type OnDelete = "cascade" | "clear";

export interface Action {
  /** Verb name and path segment: "convert". */
  readonly name: string;
  readonly typeName: string;
  readonly method: HttpMethod;
  readonly params: readonly Param[];
  readonly query: JsonSchema;
  readonly response: JsonSchema;
  readonly roles: readonly string[];
  readonly description: string;
  /** Vendor media type (canonical form) of the action's response. */
  readonly mediaType: string;
  readonly origin: Origin;
}

export interface Param {
  readonly name: string;
  readonly propertyKey: string;
  readonly kind: FieldKind;
  readonly scalar: boolean;
  readonly required: boolean;
  readonly schema: JsonSchema;
  readonly origin: Origin;
}

export interface ErrorDef {
  readonly code: number;
  readonly status: number;
  /** Identifier of the error in the typed catalog: "nameConflict". */
  readonly key: string;
  readonly title: string;
  readonly message: string;
  readonly dev: string;
  /** <errorDocsUrl>/<code> */
  readonly info: string;
  readonly builtin: boolean;
  readonly origin: Origin | undefined;
}

export interface MediaType {
  /** The canonical vendor form: application/vnd.<vendor>.v<N>.<subject>+json */
  readonly name: string;
  /** The alternative form: application/<vendor>.v<N>.<subject>.json */
  readonly alias: string;
  /** "account", "accounts", "error", or an action name. */
  readonly subject: string;
  readonly kind: "instance" | "collection" | "error" | "action";
  readonly version: number;
}
