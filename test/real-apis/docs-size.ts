/**
 * `npm run docs-size -- <openapi.json> [<source schema bytes>]` (in test/real-apis): where the bytes of a
 * generated docs/openapi.json go, measured minified as run.ts measures it (`docsBytes`): the root, each kind of
 * component (schemas by representation, responses by kind and by media type), and the operations of each
 * method with their members. Given the source's minified schema bytes (results.json `schemaBytes`), each line
 * also says its share of them, the ratio issue 17 bounds.
 */
import fs from "node:fs";
import { fileURLToPath } from "node:url";

type Json = Record<string, unknown>;

/** One line of the breakdown: a part of the document and its minified bytes. */
export interface SizeLine {
  readonly part: string;
  readonly bytes: number;
}

const sizeOf = (v: unknown): number => Buffer.byteLength(JSON.stringify(v));
const objectOf = (v: unknown): Json => (v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Json) : {});

/** The breakdown of an OpenAPI document (the parts overlap: a part's lines below it are its pieces). */
export function docsSize(doc: Json): SizeLine[] {
  const lines: SizeLine[] = [{ part: "total", bytes: sizeOf(doc) }];
  const sums = new Map<string, number>();
  const add = (part: string, bytes: number) => sums.set(part, (sums.get(part) ?? 0) + bytes);
  const flush = () => {
    for (const [part, bytes] of sums) lines.push({ part, bytes });
    sums.clear();
  };
  for (const [k, v] of Object.entries(doc)) if (k !== "components" && k !== "paths") lines.push({ part: k, bytes: sizeOf(v) });
  for (const [kind, members] of Object.entries(objectOf(doc.components))) {
    lines.push({ part: `components.${kind} (${Object.keys(objectOf(members)).length})`, bytes: sizeOf(members) });
    for (const [name, value] of Object.entries(objectOf(members))) {
      // Names as openapi.ts makes them: <Resource>, <Resource>Partial, …; Error<status>_<codes>, …Head.
      if (kind === "schemas") add(`  schemas ${/(Partial|Input|Patch|Page|Result)\d*$/.exec(name)?.[1] ?? "full or shared"}`, sizeOf(value));
      if (kind === "responses") {
        add(`  responses ${/Head\d*$/.test(name) ? "of HEAD" : name.startsWith("Error") || name.startsWith("ServiceErrors") ? "errors" : "success"}`, sizeOf(value));
        for (const [type, media] of Object.entries(objectOf(objectOf(value).content))) {
          add(`  responses' media ${type === "application/json" ? "application/json" : type.endsWith("+json") ? "vendor" : "alias"}`, sizeOf({ [type]: media }));
        }
      }
    }
    flush();
  }
  lines.push({ part: `paths (${Object.keys(objectOf(doc.paths)).length})`, bytes: sizeOf(doc.paths) });
  for (const item of Object.values(objectOf(doc.paths))) {
    for (const [method, op] of Object.entries(objectOf(item))) {
      if (method === "parameters") {
        add("  path-item parameters", sizeOf(op));
        continue;
      }
      add(`  ${method}`, sizeOf(op));
      for (const [k, v] of Object.entries(objectOf(op))) add(`    ${method}.${k}`, sizeOf(v));
    }
  }
  flush();
  return lines;
}

/** The breakdown as text: bytes, share of the document and, given the source's schema bytes, the ratio to them. */
export function formatDocsSize(lines: readonly SizeLine[], schemaBytes?: number): string {
  const total = lines[0]?.bytes ?? 0;
  return lines
    .map((l) => `${l.part.padEnd(36)} ${String(l.bytes).padStart(10)} ${((100 * l.bytes) / (total || 1)).toFixed(1).padStart(5)}%${schemaBytes ? ` ${(l.bytes / schemaBytes).toFixed(2).padStart(6)}×` : ""}`)
    .join("\n");
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [file, schemaBytes] = process.argv.slice(2);
  if (!file || (schemaBytes !== undefined && !/^\d+$/.test(schemaBytes))) {
    console.error("usage: npm run docs-size -- <openapi.json> [<source schema bytes, minified>]");
    process.exit(2);
  }
  console.log(formatDocsSize(docsSize(JSON.parse(fs.readFileSync(file, "utf8")) as Json), schemaBytes === undefined ? undefined : Number(schemaBytes)));
}
