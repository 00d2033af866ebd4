/**
 * THE table of diagnostic codes. Convention rules use the conventions' own ids (R1, E2, A3 …);
 * format checks use kebab-case codes. Every code has a page in docs/rules/<code>.md.
 */
import type { Severity } from "./diagnostic.js";

type Args = Record<string, string | number>;
type Template<A extends Args> = (args: A) => string;

interface CodeDef<A extends Args> {
  readonly severity: Severity;
  readonly title: string;
  readonly message: Template<A>;
  readonly hint: Template<A>;
}

const def = <A extends Args>(d: CodeDef<A>): CodeDef<A> => d;

export const codes = {
  "json-syntax": def<{ problem: string; fix: string }>({
    severity: "error",
    title: "The file is not valid JSON",
    message: (a) => `invalid JSON: ${a.problem}`,
    hint: (a) => a.fix,
  }),
  "missing-file": def<{ path: string; what: string }>({
    severity: "error",
    title: "A file the definitions need does not exist",
    message: (a) => `${a.what} "${a.path}" does not exist`,
    hint: (a) =>
      a.what === "service definition"
        ? "run resourcery in the folder that holds service.json (or pass that folder), or start one with `resourcery init DIR`"
        : `create "${a.path}" or correct the path`,
  }),
  "meta-schema": def<{ problem: string; fix: string }>({
    severity: "error",
    title: "The definition does not match the definition format",
    message: (a) => a.problem,
    hint: (a) => a.fix,
  }),
  "invalid-schema": def<{ problem: string }>({
    severity: "error",
    title: "A resource is not a valid JSON Schema (draft 2020-12)",
    message: (a) => `not a valid JSON Schema: ${a.problem}`,
    hint: () => "see https://json-schema.org/draft/2020-12 for the keyword's allowed values",
  }),
  "unresolved-ref": def<{ ref: string; problem: string; fix: string }>({
    severity: "error",
    title: "A $ref cannot be resolved",
    message: (a) => `cannot resolve "${a.ref}": ${a.problem}`,
    hint: (a) => a.fix,
  }),
  "no-resources": def<{ pattern: string }>({
    severity: "error",
    title: "A resources entry matches no file",
    message: (a) => `"${a.pattern}" matches no resource file`,
    hint: () => "correct the path or glob, relative to service.json",
  }),
  "ref-outside-project": def<{ what: string; name: string; link: string }>({
    severity: "error",
    title: "A $ref or resources entry leads outside the project",
    message: (a) => `${a.what} "${a.name}" leads outside the project folder${a.link}; it is not read`,
    hint: () =>
      "move the file into the folder that holds service.json and refer to it by a relative path, or allow its folder with `--allow-path DIR`",
  }),
  "unreadable-file": def<{ what: string; name: string; problem: string; fix: string }>({
    severity: "error",
    title: "A $ref or resources entry leads to something that is not a readable definition file",
    message: (a) => `${a.what} "${a.name}" leads to ${a.problem}; it is not read`,
    hint: (a) => a.fix,
  }),
  "invalid-utf8": def<{ bytes: string }>({
    severity: "error",
    title: "A definition file is not UTF-8",
    message: (a) => `the file is not valid UTF-8: ${a.bytes} here is not a character`,
    hint: () => "save the file as UTF-8 (JSON text is UTF-8, RFC 8259)",
  }),
  "nesting-too-deep": def<{ limit: number }>({
    severity: "error",
    title: "Arrays and objects nest too deep",
    message: (a) => `arrays and objects nest more than ${a.limit} levels deep here`,
    hint: () => 'flatten the structure, or move nested schemas into "$defs" and refer to them with "$ref"',
  }),
  "schema-too-large": def<{ what: string; problem: string }>({
    severity: "error",
    title: "A schema is too large",
    message: (a) => `${a.what} ${a.problem}`,
    hint: () => 'split it: move parts into "$defs" entries (a schema a $ref reaches is one shared schema, counted once), or into resources of their own',
  }),
  "allof-conflict": def<{ name: string; first: string; second: string; where: string }>({
    severity: "error",
    title: "allOf parts give a property types that cannot meet",
    message: (a) => `property "${a.name}" is ${a.second} here but ${a.first} in ${a.where}: allOf applies both, so no value could be valid`,
    hint: (a) => `give "${a.name}" one type in every part that declares it, or declare it in one part only`,
  }),
  "resource-union": def<{ keyword: string }>({
    severity: "warning",
    title: "A resource's branches are merged into one shape",
    message: (a) =>
      `a resource is one shape: the properties of every ${a.keyword} branch become its fields, required when every branch requires them; which branch a body follows is not checked`,
    hint: () => "to keep the choice, split the branches into resources of their own, or tell them apart by a property (an enum) and check it in a hook",
  }),
  "root-keyword-ignored": def<{ keyword: string; collection: string }>({
    severity: "warning",
    title: "A resource's root uses a keyword bodies are not checked with",
    message: (a) =>
      `"${a.keyword}" at the root of ${a.collection} is not applied: a body of ${a.collection} is checked against its properties, required, additionalProperties, patternProperties, propertyNames, minProperties, maxProperties and dependentRequired only`,
    hint: (a) => `check what "${a.keyword}" says in a beforeCreate / beforeUpdate hook (src/hooks/${a.collection}.ts), or say it with the keywords above; then remove it`,
  }),
  "embedded-resource": def<{ target: string }>({
    severity: "warning",
    title: "A $ref to a resource is embedded, not linked",
    message: (a) => `this $ref to the resource "${a.target}" is not a link: its schema is embedded here as a copy (a link is a property of its own)`,
    hint: (a) =>
      `to link to ${a.target}, make it a property whose schema is {"$ref": …}, anyOf [{"$ref": …}, {"type": "null"}] or anyOf [{"type": "string"}, {"$ref": …}]; to embed a shape, $ref a shared schema (a "$defs" entry) instead of the resource`,
  }),
  "circular-ref": def<{ ref: string; chain: string }>({
    severity: "error",
    title: "A $ref leads back to itself",
    message: (a) => `"$ref": "${a.ref}" leads back to where it is written (${a.chain}) with no schema on the way, so it validates nothing`,
    hint: () => "point the $ref at a schema, or write the schema in place of the last $ref",
  }),
  R1: def<{ name: string; verb: string; noun: string; problem: string }>({
    severity: "error",
    title: "Collections are plural nouns",
    message: (a) =>
      a.problem === "verb"
        ? `collection "${a.name}" starts with the verb "${a.verb}"`
        : `collection "${a.name}" is not a plural noun`,
    hint: (a) => `name the collection with a plural noun, e.g. "${a.noun}"`,
  }),
  R2: def<{ name: string; verb: string; noun: string; where: string }>({
    severity: "error",
    title: "Route names are nouns",
    message: (a) => `${a.where} "${a.name}" starts with the verb "${a.verb}"`,
    hint: (a) => `name it with a noun, e.g. "${a.noun}": the HTTP method carries the action (E1), and actions that are not resource operations go under "actions" (E2)`,
  }),
  R3: def<{ name: string; fix: string }>({
    severity: "error",
    title: "Collection path segments are camelCase",
    message: (a) => `collection "${a.name}" is not a camelCase path segment`,
    hint: (a) => `use letters and digits only, starting with a lower-case letter, e.g. "${a.fix}"`,
  }),
  E2: def<{ name: string; problem: string; fix: string }>({
    severity: "error",
    title: "Actions are verbs",
    message: (a) => `action "${a.name}" ${a.problem}`,
    hint: (a) => a.fix,
  }),
  E3: def<{ action: string; param: string; problem: string }>({
    severity: "error",
    title: "Action parameters are scalars with a schema",
    message: (a) => `parameter "${a.param}" of action "${a.action}" ${a.problem}`,
    hint: () => 'give the parameter a scalar schema, e.g. { "type": "string" } or { "type": "number" }',
  }),
  A3: def<{ baseUrl: string; https: string }>({
    severity: "error",
    title: "Basic authentication needs TLS",
    message: (a) => `the basic scheme is enabled but baseUrl "${a.baseUrl}" is not https`,
    hint: (a) => `serve the API over TLS ("${a.https}") or drop "basic" from auth.schemes`,
  }),
  A5: def<Record<string, never>>({
    severity: "warning",
    title: "API keys are preferred over user name and password",
    message: () => "basic is the only authentication scheme",
    hint: () => 'add "apiKey" (or "bearer") to auth.schemes so clients can use API keys',
  }),
  "oauth2-unused": def<Record<string, never>>({
    severity: "error",
    title: "auth.oauth2 is set only with oauth2 among the schemes",
    message: () => 'auth.oauth2 is set, but "oauth2" is not in auth.schemes: no access token would be accepted, its issuer\'s nor the service\'s own',
    hint: () => 'add "oauth2" to auth.schemes, or remove auth.oauth2',
  }),
  V1: def<{ vendor: string; fix: string }>({
    severity: "error",
    title: "The vendor token fits a media type",
    message: (a) => `vendor "${a.vendor}" is not a valid media-type token`,
    hint: (a) => `use lower-case letters, digits and hyphens, starting with a letter, e.g. "${a.fix}"`,
  }),
  V3: def<{ segment: string; version: number }>({
    severity: "error",
    title: "The version segment of baseUrl agrees with the version",
    message: (a) => `baseUrl has the version segment "${a.segment}" but version is ${a.version}`,
    hint: (a) => `change the segment to "v${a.version}", or set version to ${a.segment.slice(1)}`,
  }),
  "server-owned-property": def<{ name: string }>({
    severity: "error",
    title: "A definition does not declare meta",
    message: (a) => `property "${a.name}" is owned by the server and cannot be declared`,
    hint: () => 'remove it: every representation carries meta { href, mediaType }; name data of your own otherwise, e.g. "metadata"',
  }),
  "server-owned-mismatch": def<{ name: string; declared: string; made: string; fix: string }>({
    severity: "error",
    title: "A declared id, createdAt or modifiedAt fits what the server makes",
    message: (a) => `"${a.name}" is declared ${a.declared}, but the server makes ${a.made}`,
    hint: (a) => a.fix,
  }),
  "server-owned-twin": def<{ name: string; owned: string; when: string }>({
    severity: "warning",
    title: "No property repeats createdAt or modifiedAt under another name",
    message: (a) => `"${a.name}" repeats the server's "${a.owned}": every representation carries both, and the server sets only "${a.owned}"`,
    hint: (a) => `remove it and read "${a.owned}", which the server sets ${a.when}; a time of your own needs a name of its own, e.g. "publishedAt"`,
  }),
  "unknown-property": def<{ keyword: string; name: string; resource: string }>({
    severity: "error",
    title: "A keyword names a property that is not declared",
    message: (a) => `${a.keyword} names "${a.name}", which is not a property of ${a.resource}`,
    hint: () => "declare the property under properties, or correct the name",
  }),
  "non-scalar-property": def<{ keyword: string; name: string; actual: string; expected: string }>({
    severity: "error",
    title: "x-unique and x-owner name scalar properties",
    message: (a) => `${a.keyword} names "${a.name}", which is ${a.actual}, not ${a.expected}`,
    hint: (a) => `in ${a.keyword}, name a property that is ${a.expected}`,
  }),
  "duplicate-collection": def<{ name: string; other: string }>({
    severity: "error",
    title: "Collection names are unique",
    message: (a) => `collection "${a.name}" is already defined in ${a.other}`,
    hint: () => "give each resource its own x-collection",
  }),
  "duplicate-route": def<{ name: string; other: string }>({
    severity: "error",
    title: "Actions and collections do not share a path",
    message: (a) => `action "${a.name}" has the same path as ${a.other}`,
    hint: () => "rename the action or the collection",
  }),
  "unsafe-name": def<{ what: string; name: string; reason: string; fix: string }>({
    severity: "error",
    title: "Names must be safe identifiers",
    message: (a) => `${a.what} ${JSON.stringify(a.name)} ${a.reason}`,
    hint: (a) => a.fix,
  }),
  "unselectable-name": def<{ name: string; fix: string }>({
    severity: "warning",
    title: "A property's name can be written in fields and expand",
    message: (a) => `property ${JSON.stringify(a.name)} cannot be named in fields or expand: the service reads a selection name as ASCII letters, digits, "_", "$" and "-"`,
    hint: (a) => a.fix,
  }),
  "sub-collection-case": def<{ name: string; fix: string }>({
    severity: "warning",
    title: "Sub-collection path segments are camelCase, as collections are",
    message: (a) => `sub-collection "${a.name}" is not a camelCase path segment, unlike every collection's (R3)`,
    hint: (a) => `name the property in camelCase, e.g. "${a.fix}", so that every path segment of the API has one style; if clients already read it as "${a.name}", keep it: the route works`,
  }),
  "name-collision": def<{ what: string; other: string; fix: string }>({
    severity: "error",
    title: "Generated names do not collide",
    message: (a) => `${a.what} collides with ${a.other}`,
    hint: (a) => a.fix,
  }),
  "invalid-pattern": def<{ pattern: string; problem: string; fix: string }>({
    severity: "error",
    title: "Patterns are regular expressions ECMAScript and RE2 both accept",
    message: (a) => `pattern ${JSON.stringify(a.pattern)} ${a.problem}`,
    hint: (a) => a.fix,
  }),
  "media-type-too-long": def<{ what: string; subtype: string; length: number; fix: string }>({
    severity: "error",
    title: "Media types fit in 127 characters",
    message: (a) => `${a.what} makes the media type subtype "${a.subtype}" ${a.length} characters long, more than the 127 of RFC 6838`,
    hint: (a) => a.fix,
  }),
  "unsupported-keyword": def<{ keyword: string; effect: string; fix: string }>({
    severity: "error",
    title: "Schemas use no keyword the service's validator reads differently",
    message: (a) => `"${a.keyword}" ${a.effect}`,
    hint: (a) => a.fix,
  }),
  "duplicate-error-code": def<{ code: number; other: string }>({
    severity: "error",
    title: "Error codes are unique",
    message: (a) => `error code ${a.code} is already used by ${a.other}`,
    hint: () => "give each error its own code, different from the built-in codes (see the error catalog in the README)",
  }),
  "ambiguous-inverse": def<{ name: string; target: string; candidates: string }>({
    severity: "error",
    title: "A collection link has one inverse at most",
    message: (a) => `collection link "${a.name}" could be the inverse of ${a.candidates} in ${a.target}`,
    hint: () => 'say which with "x-inverse": "<property of the target>" next to the items',
  }),
  "bad-inverse": def<{ name: string; inverse: string; target: string }>({
    severity: "error",
    title: "x-inverse names a link back to this resource",
    message: (a) => `x-inverse of "${a.name}" names "${a.inverse}", which is not a link from ${a.target} to this resource`,
    hint: () => "name a property of the target resource whose schema is a $ref to this resource",
  }),
  "bad-on-delete": def<{ what: string; fix: string }>({
    severity: "error",
    title: "x-on-delete stands beside the $ref of a link to an instance",
    message: (a) => `"x-on-delete" does nothing on ${a.what}: it is read only beside the "$ref" of a property that links to one instance`,
    hint: (a) => a.fix,
  }),
  "required-clear": def<{ name: string; resource: string; target: string; collection: string }>({
    severity: "error",
    title: "x-on-delete clear is for a link that is not required",
    message: (a) => `"x-on-delete": "clear" on "${a.name}" would leave ${a.resource} without its required property "${a.name}" when the ${a.target} it links to is deleted`,
    hint: (a) =>
      `make "${a.name}" optional (remove it from "required") or nullable (anyOf [{"$ref": …}, {"type": "null"}]: cleared, it holds null), or write "cascade" to delete the ${a.collection} with the ${a.target} they link to`,
  }),
  "version-dates": def<{ version: number; deprecated: string; sunset: string }>({
    severity: "error",
    title: "a version is deprecated before its sunset",
    message: (a) => `version ${a.version} is "deprecated" on ${a.deprecated}, after its "sunset" ${a.sunset}`,
    hint: (a) => `a version is deprecated first and stops being served at its sunset (RFC 9745, RFC 8594): set "deprecated" on or before ${a.sunset}, or move the sunset`,
  }),
  "user-code": def<{ message: string; ts: number; cause: string }>({
    severity: "error",
    title: "Your code compiles against the new generation",
    message: (a) => `this file of yours would no longer compile: ${a.message} (TS${a.ts})${a.cause}`,
    hint: () => "change your code to the new generated types (src/generated/types.ts), or the definitions back; `generate --force` writes anyway",
  }),
  "older-version": def<{ version: number; current: number }>({
    severity: "error",
    title: "versions lists older versions only",
    message: (a) => `"versions" lists ${a.version}, which is not older than the current version ${a.current}`,
    hint: (a) =>
      a.version === a.current
        ? `remove "${a.version}" from "versions": the current version is "version" itself, and it is always served`
        : `to make ${a.version} the current version, set "version": ${a.version} and list ${a.current} in "versions"; otherwise remove "${a.version}"`,
  }),
  "version-keyword": def<{ keyword: string; problem: string; fix: string }>({
    severity: "error",
    title: "A version keyword names a version it can mean something in",
    message: (a) => `"${a.keyword}" ${a.problem}`,
    hint: (a) => a.fix,
  }),
  "rename-taken": def<{ name: string; version: number; resource: string; renamed: string; other: string }>({
    severity: "error",
    title: "Two properties of a version do not share a name",
    message: (a) => `in version ${a.version}, ${a.resource} would have two properties named "${a.name}": "${a.renamed}" (so called there by its "x-renamed") and "${a.other}"`,
    hint: (a) => `give one of them another name in version ${a.version} ("x-renamed"), or serve them in different versions ("x-since", "x-until")`,
  }),
  "required-added": def<{ name: string; since: number; versions: string }>({
    severity: "warning",
    title: "A required property added in a later version has a value for older clients",
    message: (a) => `"${a.name}" is required from version ${a.since} on, but the bodies of version ${a.versions} cannot send it: their creates would fail`,
    hint: (a) => `give "${a.name}" a "default" (what an older client's create stores), or supply it where the older body is converted up (src/versions/v${a.since - 1}.ts)`,
  }),
  "unserved-version": def<{ version: number; served: string; current: number }>({
    severity: "error",
    title: "generate --client-only --version names a version the service serves",
    message: (a) => `--version ${a.version}: the service does not serve version ${a.version} (it serves ${a.served})`,
    hint: (a) => `pass one of ${a.served} (${a.current}, the current version, is the client without --version); to serve version ${a.version} again, list it in "versions" and describe it with "x-since", "x-until" or "x-renamed"`,
  }),
  "breaking-change": def<{ what: string; clients: string; version: number; next: number; current: number }>({
    severity: "error",
    title: "A regeneration does not break a published version",
    message: (a) => `version ${a.version}: ${a.what}, which breaks ${a.clients}`,
    hint: (a) =>
      a.version < a.current
        ? `version ${a.version} is served from the current model by the version keywords: describe how it was with "x-since", "x-until" or "x-renamed" (or convert it in src/versions/v${a.version}.ts), or pass --allow-breaking to publish the break`
        : `ship it as version ${a.next}: set "version": ${a.next}, list ${a.current} in "versions", and describe version ${a.current} with "x-since", "x-until" or "x-renamed"; or pass --allow-breaking to publish the break`,
  }),
  "schema-compile": def<{ what: string; problem: string; fix: string }>({
    severity: "error",
    title: "Every schema compiles as the service compiles it",
    message: (a) => `${a.what} would stop the service at start-up: its validator (ajv) cannot compile it: ${a.problem}`,
    hint: (a) => a.fix,
  }),
  "schema-loop": def<{ problem: string; fix: string }>({
    severity: "error",
    title: "A shared schema never refers back to itself on the same value",
    message: (a) => a.problem,
    hint: (a) => a.fix,
  }),
  "schema-fan-out": def<{ problem: string; fix: string }>({
    severity: "error",
    title: "Validating a value never applies the same shared schemas to it exponentially many times",
    message: (a) => a.problem,
    hint: (a) => a.fix,
  }),
  "required-link-cycle": def<{ problem: string; fix: string }>({
    severity: "error",
    title: "Required links leave room for a first instance",
    message: (a) => a.problem,
    hint: (a) => a.fix,
  }),
  "unknown-keyword": def<{ keyword: string; fix: string }>({
    severity: "error",
    title: "A resource's root has no x- keyword resourcery does not read",
    message: (a) => `"${a.keyword}" is not a keyword resourcery reads at a resource's root: it is ignored, so what it says does not apply`,
    hint: (a) => a.fix,
  }),
  "unknown-extension": def<{ keyword: string; where: string; fix: string }>({
    severity: "warning",
    title: "An x- keyword in a schema is one resourcery reads, or another tool's",
    message: (a) => `resourcery does not read "${a.keyword}" here${a.where}: it is ignored`,
    hint: (a) => a.fix,
  }),
  "unknown-format": def<{ format: string; where: string; fix: string }>({
    severity: "warning",
    title: "A format is one the service's validator or JSON Schema knows",
    message: (a) => `format "${a.format}" is not one the service's validator knows${a.where}: values are not checked against it`,
    hint: (a) => a.fix,
  }),
  "required-default": def<{ name: string; value: string }>({
    severity: "warning",
    title: "A required property has no default",
    message: (a) => `property "${a.name}" is required, so its default ${a.value} never applies: every valid body carries it`,
    hint: (a) => `to have the default apply, make "${a.name}" optional (remove it from "required"); else remove "default"`,
  }),
  "closed-route": def<{ action: string; collection: string; routes: string; count: number; role: string }>({
    severity: "warning",
    title: "An x-access list names at least one role",
    message: (a) =>
      `"${a.action}": [] names no role, and x-access names no admin role: no key may ${a.action} ${a.collection} (${a.routes} answer${a.count === 1 ? "s" : ""} 403 to every key)`,
    hint: (a) => `leave "${a.action}" out of x-access to let any authenticated caller ${a.action} ${a.collection}, or name the roles that may, e.g. "${a.action}": ["${a.role}"]`,
  }),
} as const;

export type Code = keyof typeof codes;
export type ArgsOf<C extends Code> = Parameters<(typeof codes)[C]["message"]>[0];

/** Every code, sorted, for docs and consistency tests. */
export const allCodes = Object.keys(codes).sort() as Code[];
