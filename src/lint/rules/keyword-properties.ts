import { childPointer } from "../../diagnostics/diagnostic.js";
import { report } from "../../diagnostics/report.js";
import { SERVER_OWNED } from "../../model/conventions.js";
import type { Field, Resource } from "../../model/types.js";
import { defineRule } from "../rule.js";

/** required, x-unique and x-owner name declared properties; x-unique a scalar one, x-owner a string. */
export const keywordProperties = defineRule({
  codes: ["unknown-property", "non-scalar-property"],
  description: "required, x-unique and x-owner name properties of the right kind",
  check: (model) => model.resources.flatMap(checkResource),
});

function checkResource(r: Resource) {
  const file = r.origin.file;
  const field = (name: string) => r.fields.find((f) => f.name === name);
  const unknown = (keyword: string, name: string, pointer: string) =>
    report("unknown-property", { file, pointer }, { keyword, name, resource: r.collection });
  const out = [];
  r.required.forEach((name, i) => {
    // Every representation carries the server-owned properties: requiring them states a fact, declared or not.
    if (!field(name) && !(SERVER_OWNED as readonly string[]).includes(name)) out.push(unknown("required", name, childPointer("/required", i)));
  });
  r.unique.forEach((name, i) => {
    const f = field(name);
    const pointer = childPointer("/x-unique", i);
    if (!f) out.push(unknown("x-unique", name, pointer));
    else if (!f.scalar) out.push(report("non-scalar-property", { file, pointer }, { keyword: "x-unique", name, actual: describeKind(f), expected: "a scalar (string, number, integer or boolean)" }));
  });
  if (r.owner !== undefined) {
    const f = field(r.owner);
    if (!f) out.push(unknown("x-owner", r.owner, "/x-owner"));
    else if (f.kind !== "string") out.push(report("non-scalar-property", { file, pointer: "/x-owner" }, { keyword: "x-owner", name: r.owner, actual: describeKind(f), expected: "a string" }));
  }
  return out;
}

/** What a field holds, in words: "an array", "a link", "untyped". */
function describeKind(f: Field): string {
  switch (f.kind) {
    case "link": return "a link";
    case "links": return "a collection link";
    case "any": return "untyped";
    case "null": return "null";
    case "array": case "object": case "integer": return `an ${f.kind}`;
    default: return `a ${f.kind}`;
  }
}
