import { childPointer, type Diagnostic, type Target } from "../../diagnostics/diagnostic.js";
import { report } from "../../diagnostics/report.js";
import { defineRule } from "../rule.js";
import { visitSchemas } from "../schema-sites.js";
import { SaidOnce } from "../said-once.js";
import { closest } from "../suggest.js";

/**
 * The `x-` keywords resourcery reads (CONTRACT §2, §6, §7, §11), by where they are written: at a
 * resource's root, and in the schemas below it (a property, a link's items). `x-since` is both.
 */
export const ROOT_KEYWORDS = ["x-collection", "x-unique", "x-access", "x-owner", "x-id", "x-since"] as const;
export const SCHEMA_KEYWORDS = ["x-inverse", "x-on-delete", "x-since", "x-until", "x-renamed", "x-max-bytes"] as const;

const ROOT_PLACE = "a resource's root";
const SCHEMA_PLACE = "a property";

/** Written like an extension keyword: `x-…`, in any case, or `x_…`. */
const looksLikeExtension = (key: string) => /^x[-_]/i.test(key);

/**
 * An `x-` keyword resourcery does not know is ignored by every output, so what it meant silently does
 * not happen: a misspelt `x-access` at a resource's root leaves every action open to any caller. So a
 * near miss of one of resourcery's keywords at a root (a typo, another case, `x_`, or a property's keyword
 * written there) is an error (`unknown-keyword`). Any other `x-` keyword is how another tool's annotations
 * are written, at a root as below it (Stripe's `x-resourceId` and `x-expandableFields` on every schema,
 * `"x-widget": "textarea"` for a form builder): JSON Schema allows them and resourcery keeps them, so
 * that is a warning (`unknown-extension`), with "did you mean" below the root for a near miss.
 */
export const unknownKeyword = defineRule({
  codes: ["unknown-keyword", "unknown-extension"],
  description: "every x- keyword is one resourcery reads, in the place it reads it",
  check: (model) => {
    const out: Diagnostic[] = [];
    const roots = new Set(model.resources.map((r) => `${r.origin.file}#${r.origin.pointer}`));
    const reported = new Set<string>();
    // Another tool's annotation is said once, where it is first written, with the number of other places
    // (Stripe writes x-expansionResources and x-stripeBypassValidation on a thousand schemas): a near miss of
    // one of resourcery's keywords is said wherever it is.
    const annotations = new SaidOnce<{ where: Target; fix: string; viaRef: boolean }>();
    visitSchemas(model, (schema, at, viaRef) => {
      const atRoot = !viaRef && roots.has(`${at.file}#${at.pointer}`);
      for (const keyword of Object.keys(schema)) {
        if (!looksLikeExtension(keyword) || (viaRef && reported.has(keyword))) continue;
        const fix = fixFor(keyword, atRoot);
        if (fix === undefined) continue;
        const where = viaRef ? at : { file: at.file, pointer: childPointer(at.pointer, keyword), kind: "key" as const };
        reported.add(keyword);
        if (atRoot && isNearMiss(keyword)) out.push(report("unknown-keyword", where, { keyword, fix }));
        else if (isNearMiss(keyword)) out.push(report("unknown-extension", where, { keyword, where: viaRef ? " (reached through a $ref)" : "", fix }));
        else annotations.add(keyword, { where, fix, viaRef });
      }
    });
    for (const [keyword, { where, fix, viaRef }, more] of annotations.entries()) {
      const also = more === 0 ? "" : ` (nor in the ${more} other place${more === 1 ? "" : "s"} it is written)`;
      out.push(report("unknown-extension", where, { keyword, where: `${viaRef ? " (reached through a $ref)" : ""}${also}`, fix }));
    }
    return out;
  },
});

/** fixFor's answers by place and keyword: real APIs write the same few annotations on thousands of schemas. */
const fixes = [new Map<string, string | undefined>(), new Map<string, string | undefined>()];

/** The hint for `keyword` where it is written, or undefined when resourcery reads it there. */
export function fixFor(keyword: string, atRoot: boolean): string | undefined {
  const known = fixes[atRoot ? 1 : 0]!;
  if (known.has(keyword)) return known.get(keyword);
  const fix = fixOf(keyword, atRoot);
  known.set(keyword, fix);
  return fix;
}

function fixOf(keyword: string, atRoot: boolean): string | undefined {
  const [here, there] = atRoot ? [ROOT_KEYWORDS, SCHEMA_KEYWORDS] : [SCHEMA_KEYWORDS, ROOT_KEYWORDS];
  const [herePlace, therePlace] = atRoot ? [ROOT_PLACE, SCHEMA_PLACE] : [SCHEMA_PLACE, ROOT_PLACE];
  if ((here as readonly string[]).includes(keyword)) return undefined;
  const list = `resourcery reads ${here.join(", ")} at ${herePlace}`;
  if ((there as readonly string[]).includes(keyword)) return `"${keyword}" is read at ${therePlace} only: move it there`;
  const near = closest(keyword, here);
  if (near !== undefined) return `did you mean "${near}"? ${list}`;
  const elsewhere = closest(keyword, there);
  if (elsewhere !== undefined) return `did you mean "${elsewhere}"? it is read at ${therePlace} only; ${list}`;
  return `${list}; if "${keyword}" is an annotation for another tool, leave it: resourcery ignores it`;
}

const nearMisses = new Map<string, boolean>();

/** True for a root keyword that reads as one of resourcery's own, mistyped or misplaced: not another tool's. */
function isNearMiss(keyword: string): boolean {
  let near = nearMisses.get(keyword);
  if (near === undefined) {
    const all = [...ROOT_KEYWORDS, ...SCHEMA_KEYWORDS];
    nearMisses.set(keyword, (near = (all as readonly string[]).includes(keyword) || closest(keyword, all) !== undefined));
  }
  return near;
}
