import type { Diagnostic } from "../../diagnostics/diagnostic.js";
import { report } from "../../diagnostics/report.js";
import { mediaSubject, vendorMediaType } from "../../model/media-types.js";
import { defineRule } from "../rule.js";

/** RFC 6838, 4.2: type and subtype names are at most 127 characters. */
export const MAX_SUBTYPE = 127;

/** The subtype of a vendor media type: what follows "application/" in its longest (vnd.) form. */
function subtypeOf(vendor: string, version: number, subject: string): string {
  return vendorMediaType(vendor, version, subject, "instance").name.slice("application/".length);
}

/**
 * Every vendor media type fits RFC 6838: its subtype (vnd.<vendor>.v<N>.<subject>+json) has at most 127
 * characters, or clients, proxies and media-type parsers may refuse it. Reported at the name that makes
 * it long: the vendor when even the error type is too long, else the collection or action.
 */
export const mediaTypeLength = defineRule({
  codes: ["media-type-too-long"],
  description: "vendor media types fit in the 127 characters RFC 6838 allows a subtype",
  check: ({ service, resources, actions }) => {
    const { vendor, version } = service;
    const room = MAX_SUBTYPE - subtypeOf(vendor, version, "").length;
    const tooLong = (subject: string) => subject.length > room;
    if (tooLong("error")) {
      const subtype = subtypeOf(vendor, version, "error");
      return [report("media-type-too-long", { file: service.origin.file, pointer: "/vendor" }, { what: `vendor "${vendor}"`, subtype, length: subtype.length, fix: `shorten the vendor to at most ${vendor.length - (subtype.length - MAX_SUBTYPE)} characters` })];
    }
    const out: Diagnostic[] = [];
    for (const r of resources) {
      const subject = [mediaSubject(r.collection), mediaSubject(r.name)].find(tooLong);
      if (subject === undefined) continue;
      const subtype = subtypeOf(vendor, version, subject);
      out.push(report("media-type-too-long", { file: r.origin.file, pointer: "/x-collection" }, { what: `collection ${JSON.stringify(r.collection)}`, subtype, length: subtype.length, fix: fixOf(room) }));
    }
    for (const a of actions) {
      const subject = mediaSubject(a.name);
      if (!tooLong(subject)) continue;
      const subtype = subtypeOf(vendor, version, subject);
      out.push(report("media-type-too-long", { ...a.origin, kind: "key" }, { what: `action ${JSON.stringify(a.name)}`, subtype, length: subtype.length, fix: fixOf(room) }));
    }
    return out;
  },
});

function fixOf(room: number): string {
  return `shorten the name: in the media type it is written in lower case with a hyphen between words, and may take ${room} characters`;
}
