/** Emits the media-type registry: every vendor media type of the service, with parse, format and negotiate. */
import type { Model } from "../model/types.js";
import type { EmittedFile } from "./emitted-file.js";
import { doc, jsValue, str } from "./shared/escape.js";
import { tsHeader } from "./shared/header.js";
import { constObject, printTs } from "./shared/ts.js";

/** src/generated/media-types.ts and src/generated/media-types.json */
export function emitMediaTypes(model: Model): EmittedFile[] {
  const { vendor, version } = model.service;
  const types = model.mediaTypes.map((t) => ({ name: t.name, alias: t.alias, subject: t.subject, kind: t.kind, version: t.version }));
  const contents = printTs(tsHeader("the media-type registry"), [
    `import { negotiate as negotiateAccept } from "./runtime/negotiate.js";\nimport type { MediaTypeSpec } from "./runtime/spec.js";`,
    `/** Vendor token and version of every media type here. */\nexport const vendor = ${str(vendor)};\nexport const version = ${jsValue(version)};`,
    // Declared types rather than `as const`: the literal type of thousands of entries costs the compiler
    // seconds and fills the declaration file; Subject lists the subjects once.
    `/** A media type's subject: a resource, collection or action name, or "error". */\nexport type Subject = ${[...new Set(types.map((t) => t.subject))].map((s) => str(s)).join(" | ") || "never"};`,
    `/** An entry of the registry. */\nexport interface MediaType extends MediaTypeSpec {\n  readonly subject: Subject;\n}`,
    constObject({
      name: "mediaTypes",
      type: "readonly MediaType[]",
      docs: "Every vendor media type of the service: per resource, per collection, per action, and errors.",
      open: "[",
      close: "]",
      entries: types.map((t) => ({ text: jsValue(t) })),
    }),
    `/**\n * The media type of a subject in either shape.\n * @example ${doc(`formatMediaType(${str(types[0]?.subject ?? "error")}) === ${str(types[0]?.name ?? "")}`)}\n */\nexport function formatMediaType(subject: Subject, shape: "vnd" | "alias" = "vnd"): string {\n  const t = mediaTypes.find((m) => m.subject === subject)!;\n  return shape === "vnd" ? t.name : t.alias;\n}`,
    `/** The registry entry a media type names (either shape, parameters ignored), or undefined. */\nexport function parseMediaType(type: string): MediaType | undefined {\n  const bare = (type.split(";")[0] ?? "").trim().toLowerCase();\n  return mediaTypes.find((m) => m.name === bare || m.alias === bare);\n}`,
    `/** The type to answer a request for \`subject\` with, given its Accept header; undefined means 406. */\nexport function negotiateMediaType(accept: string | undefined, subject: Subject): string | undefined {\n  const t = mediaTypes.find((m) => m.subject === subject)!;\n  const result = negotiateAccept(accept, ["application/json", t.name, t.alias], { vendor, version });\n  return result.ok ? result.type : undefined;\n}`,
  ]);
  return [
    { path: "src/generated/media-types.ts", contents, owner: "generated" },
    { path: "src/generated/media-types.json", contents: JSON.stringify(types, null, 2) + "\n", owner: "generated" },
  ];
}
