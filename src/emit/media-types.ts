/** Emits the media-type registry: every vendor media type of the service, with parse, format and negotiate. */
import type { Model } from "../model/types.js";
import type { EmittedFile } from "./emitted-file.js";
import { doc, jsValue, parsedJsonList, str } from "./shared/escape.js";
import { tsHeader } from "./shared/header.js";
import { printTs } from "./shared/ts.js";

/** src/generated/media-types.ts and src/generated/media-types.json */
export function emitMediaTypes(model: Model): EmittedFile[] {
  const { vendor, version } = model.service;
  const types = model.mediaTypes.map((t) => ({ name: t.name, alias: t.alias, subject: t.subject, kind: t.kind, version: t.version }));
  const contents = printTs(tsHeader("the media-type registry"), [
    `import { negotiate as negotiateAccept } from "./runtime/negotiate.js";\nimport type { MediaTypeSpec } from "./runtime/spec.js";`,
    `/** Vendor token and version of every media type here. */\nexport const vendor = ${str(vendor)};\nexport const version = ${jsValue(version)};`,
    // Declared types, and the entries as JSON: an array literal of thousands of objects costs the compiler
    // seconds (and a union too complex to represent: TS2590), `as const` a tuple type that fills the declarations.
    `/** A media type's subject: a resource, collection or action name, or "error". */\nexport type Subject = ${[...new Set(types.map((t) => t.subject))].map((s) => str(s)).join(" | ") || "never"};`,
    `/** An entry of the registry. */\nexport interface MediaType extends MediaTypeSpec {\n  readonly subject: Subject;\n}`,
    `/** Every vendor media type of the service: per resource, per collection, per action, and errors. */\nexport const mediaTypes: readonly MediaType[] = ${parsedJsonList(types)};`,
    `/**\n * The media type of a subject in either shape.\n * @example ${doc(`formatMediaType(${str(types[0]?.subject ?? "error")}) === ${str(types[0]?.name ?? "")}`)}\n */\nexport function formatMediaType(subject: Subject, shape: "vnd" | "alias" = "vnd"): string {\n  const t = mediaTypes.find((m) => m.subject === subject)!;\n  return shape === "vnd" ? t.name : t.alias;\n}`,
    `/** The registry entry a media type names (either shape, parameters ignored), or undefined. */\nexport function parseMediaType(type: string): MediaType | undefined {\n  const bare = (type.split(";")[0] ?? "").trim().toLowerCase();\n  return mediaTypes.find((m) => m.name === bare || m.alias === bare);\n}`,
    `/** The type to answer a request for \`subject\` with, given its Accept header; undefined means 406. */\nexport function negotiateMediaType(accept: string | undefined, subject: Subject): string | undefined {\n  const t = mediaTypes.find((m) => m.subject === subject)!;\n  const result = negotiateAccept(accept, ["application/json", t.name, t.alias], { vendor, version });\n  return result.ok ? result.type : undefined;\n}`,
  ]);
  return [
    { path: "src/generated/media-types.ts", contents, owner: "generated" },
    { path: "src/generated/media-types.json", contents: JSON.stringify(types, null, 2) + "\n", owner: "generated" },
  ];
}
