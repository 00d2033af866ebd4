/** Runs every lint rule over the model. */
import type { Diagnostic } from "../diagnostics/diagnostic.js";
import type { Model } from "../model/types.js";
import { schemaCompile } from "./compile-check.js";
import type { Rule } from "./rule.js";
import { a3BasicNeedsHttps } from "./rules/a3-basic-needs-https.js";
import { a5PreferApiKeys } from "./rules/a5-prefer-api-keys.js";
import { oauth2Unused } from "./rules/oauth2-unused.js";
import { closedRoute } from "./rules/closed-route.js";
import { duplicateErrorCode } from "./rules/duplicate-error-code.js";
import { duplicateNames } from "./rules/duplicate-names.js";
import { e2ActionVerbs } from "./rules/e2-action-verbs.js";
import { e3ActionParams } from "./rules/e3-action-params.js";
import { invalidPattern } from "./rules/invalid-pattern.js";
import { keywordProperties } from "./rules/keyword-properties.js";
import { mediaTypeLength } from "./rules/media-type-length.js";
import { nameCollisions } from "./rules/name-collisions.js";
import { onDelete } from "./rules/on-delete.js";
import { r1PluralNouns } from "./rules/r1-plural-nouns.js";
import { r2NounRoutes } from "./rules/r2-noun-routes.js";
import { r3PathSegments } from "./rules/r3-path-segments.js";
import { serverOwnedProperty } from "./rules/server-owned-property.js";
import { subCollectionCase } from "./rules/sub-collection-case.js";
import { unsafeName } from "./rules/unsafe-name.js";
import { requiredDefault } from "./rules/required-default.js";
import { requiredLinkCycle } from "./rules/required-link-cycle.js";
import { schemaLoop } from "./rules/schema-loop.js";
import { schemaFanOut } from "./rules/schema-fan-out.js";
import { versionKeywords } from "./rules/version-keywords.js";
import { rootKeywordIgnored } from "./rules/root-keyword-ignored.js";
import { unknownFormat } from "./rules/unknown-format.js";
import { unknownKeyword } from "./rules/unknown-keyword.js";
import { unsupportedKeyword } from "./rules/unsupported-keyword.js";
import { v1VendorToken } from "./rules/v1-vendor-token.js";
import { v3VersionSegment } from "./rules/v3-version-segment.js";

/** Every rule, in the order their findings are most useful to read. */
export const rules: readonly Rule[] = [
  r1PluralNouns, r2NounRoutes, r3PathSegments, subCollectionCase, e2ActionVerbs, e3ActionParams, a3BasicNeedsHttps, a5PreferApiKeys, oauth2Unused,
  v1VendorToken, v3VersionSegment, mediaTypeLength, serverOwnedProperty, keywordProperties, duplicateNames, unsafeName,
  nameCollisions, duplicateErrorCode, invalidPattern, unsupportedKeyword, unknownKeyword, unknownFormat, requiredDefault, onDelete, requiredLinkCycle, schemaLoop, schemaFanOut, versionKeywords, rootKeywordIgnored, closedRoute, schemaCompile,
];

/**
 * The findings of every rule on `model`. A schema-compile finding that another rule has made already (at
 * the same keyword, or with the same fix: an OpenAPI `nullable`, a pattern RE2 rejects, reached through a
 * $ref) is left out: that rule's code says what it is.
 */
export function runRules(model: Model, only: readonly Rule[] = rules): Diagnostic[] {
  return withoutRepeats(only.flatMap((rule) => rule.check(model)));
}

/** Every rule but schema-compile, whose findings `generate` has made in its validators worker, from the same model. */
export const rulesButCompile: readonly Rule[] = rules.filter((rule) => rule !== schemaCompile);

/** The findings of the rules, in their order, without the schema-compile findings another rule has made (see runRules). */
export function withoutRepeats(found: readonly Diagnostic[]): Diagnostic[] {
  const others = found.filter((d) => d.code !== "schema-compile" && d.severity === "error");
  const places = new Set(others.map((d) => `${d.file}#${d.pointer}`));
  const fixes = new Set(others.map((d) => d.hint));
  return found.filter((d) => d.code !== "schema-compile" || !(places.has(`${d.file}#${d.pointer}`) || fixes.has(d.hint)));
}
