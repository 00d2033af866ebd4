import { createRequire } from "node:module";
import { childPointer, type Diagnostic, type Target } from "../../diagnostics/diagnostic.js";
import { report } from "../../diagnostics/report.js";
import { defineRule } from "../rule.js";
import { visitSchemas } from "../schema-sites.js";
import { SaidOnce } from "../said-once.js";
import { closest } from "../suggest.js";

const require = createRequire(import.meta.url);
const { fullFormats } = require("ajv-formats/dist/formats") as typeof import("ajv-formats/dist/formats.js");

/** The formats JSON Schema 2020-12 defines (Validation, section 7.3). */
const JSON_SCHEMA_FORMATS = [
  "date-time", "date", "time", "duration", "email", "idn-email", "hostname", "idn-hostname", "ipv4", "ipv6",
  "uri", "uri-reference", "iri", "iri-reference", "uuid", "uri-template", "json-pointer", "relative-json-pointer", "regex",
];

/** What the service checks (ajv-formats, as the runtime's validator adds it) and what JSON Schema names. */
export const KNOWN_FORMATS: readonly string[] = [...new Set([...Object.keys(fullFormats), ...JSON_SCHEMA_FORMATS])];

/**
 * A `format` the service's validator does not know is ignored by it (ajv only logs it at start-up), so
 * a misspelt `"emial"` checks nothing. A warning, not an error: in JSON Schema 2020-12 `format` is an
 * annotation that tools may leave unchecked, and a format of one's own (`"phone"`) documents a value
 * in openapi.json; the service still starts and validates everything else.
 */
export const unknownFormat = defineRule({
  codes: ["unknown-format"],
  description: "every format is one the service's validator or JSON Schema knows",
  check: (model) => {
    const out: Diagnostic[] = [];
    const reported = new Set<string>();
    // A format of the API's own ("unix-time" on 224 of Stripe's properties) is said once, where it is first
    // written, with the number of other places; a near miss of a known one is said wherever it is.
    const own = new SaidOnce<{ where: Target; fix: string; viaRef: boolean }>();
    visitSchemas(model, (schema, at, viaRef) => {
      const format = schema.format;
      if (typeof format !== "string" || KNOWN_FORMATS.includes(format) || (viaRef && reported.has(format))) return;
      const near = closest(format, KNOWN_FORMATS);
      const known = `the known formats are ${KNOWN_FORMATS.join(", ")}`;
      const fix = near === undefined ? `correct it, or remove "format": ${known}` : `did you mean "${near}"? ${known}`;
      const where = viaRef ? at : { file: at.file, pointer: childPointer(at.pointer, "format") };
      reported.add(format);
      if (near !== undefined) {
        out.push(report("unknown-format", where, { format, where: viaRef ? " (reached through a $ref)" : "", fix }));
        return;
      }
      own.add(format, { where, fix, viaRef });
    });
    for (const [format, { where, fix, viaRef }, more] of own.entries()) {
      const also = more === 0 ? "" : ` (and in ${more} other place${more === 1 ? "" : "s"})`;
      out.push(report("unknown-format", where, { format, where: `${viaRef ? " (reached through a $ref)" : ""}${also}`, fix }));
    }
    return out;
  },
});
