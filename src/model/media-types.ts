/**
 * Vendor media types, built and parsed in one place for lint, emit and the runtime:
 * application/vnd.<vendor>.v<N>.<subject>+json and application/<vendor>.v<N>.<subject>.json (V1).
 */
import type { MediaType } from "./types.js";

/** A vendor token that fits a media-type subtype and parses back unambiguously. */
export const VENDOR_PATTERN = /^[a-z][a-z0-9-]*$/;

/** The two forms of one vendor media type. @example vendorMediaType("acme", 1, "account", "instance").name === "application/vnd.acme.v1.account+json" */
export function vendorMediaType(vendor: string, version: number, subject: string, kind: MediaType["kind"]): MediaType {
  return {
    name: `application/vnd.${vendor}.v${version}.${subject}+json`,
    alias: `application/${vendor}.v${version}.${subject}.json`,
    subject,
    kind,
    version,
  };
}

/** The subject token of a resource, collection or action name in a media type. @example mediaSubject("userAccounts") === "user-accounts" */
export function mediaSubject(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, "$1-$2")
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .join("-")
    .toLowerCase();
}

/** A parsed vendor media type. */
export interface ParsedVendorType {
  readonly vendor: string;
  readonly version: number;
  readonly subject: string;
}

/**
 * Parses either vendor form (parameters are ignored); undefined for anything else.
 * @example parseVendorMediaType("application/acme.v2.book.json") → { vendor: "acme", version: 2, subject: "book" }
 */
export function parseVendorMediaType(type: string): ParsedVendorType | undefined {
  const bare = (type.split(";")[0] ?? "").trim().toLowerCase();
  const m =
    /^application\/vnd\.([a-z][a-z0-9-]*)\.v(\d+)\.([a-z][a-z0-9-]*)\+json$/i.exec(bare) ??
    /^application\/([a-z][a-z0-9-]*)\.v(\d+)\.([a-z][a-z0-9-]*)\.json$/i.exec(bare);
  if (!m) return undefined;
  return { vendor: m[1]!, version: Number(m[2]), subject: m[3]! };
}

/** A valid vendor token close to `vendor`, to suggest as a fix. */
export function vendorFix(vendor: string): string {
  const fixed = vendor.toLowerCase().replace(/^vnd\./, "").replace(/[^a-z0-9-]+/g, "-").replace(/^[^a-z]+/, "").replace(/-+$/, "");
  return fixed || "acme";
}
