/** A resource named by its title keeps that name where generate reads it back: the kept hook file of a removed resource. */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { generate } from "../../../src/generate.js";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "resourcery-names-"));
test.after(() => fs.rmSync(tmp, { recursive: true, force: true }));

const defs = path.join(tmp, "defs");
const out = path.join(tmp, "service");
const writeJson = (file: string, value: unknown) => {
  fs.mkdirSync(path.dirname(path.join(defs, file)), { recursive: true });
  fs.writeFileSync(path.join(defs, file), JSON.stringify(value, null, 2));
};
const service = (resources: string[]) =>
  writeJson("service.json", { name: "shelf-service", vendor: "acme", version: 1, baseUrl: "https://api.example.com/v1", errorDocsUrl: "https://docs.example.com/errors", resources });
const resource = (file: string, collection: string, title?: string) =>
  writeJson(file, { ...(title ? { title } : {}), type: "object", "x-collection": collection, properties: { name: { type: "string" } } });
const types = () => fs.readFileSync(path.join(out, "src/generated/types.ts"), "utf8");

test("the kept hook file of a removed resource still finds the type its title named", async () => {
  service(["shelf.json", "holding.json"]);
  resource("shelf.json", "shelves");
  resource("holding.json", "holdings", "Library book");
  assert.ok((await generate(defs, { out })).written);
  assert.match(fs.readFileSync(path.join(out, "src/hooks/holdings.ts"), "utf8"), "ResourceHooks<types.LibraryBookInput, types.LibraryBook>");
  assert.match(fs.readFileSync(path.join(out, "src/hooks/shelves.ts"), "utf8"), "ResourceHooks<types.ShelfInput, types.Shelf>");

  // Renamed, keeping its title: the model still defines LibraryBook, so the orphan declares nothing.
  service(["shelf.json", "holding.json"]);
  resource("holding.json", "loans", "Library book");
  // Renaming and removing collections break what the package served: past the breaking-change gate.
  assert.ok((await generate(defs, { out, allowBreaking: true })).written);
  assert.not.match(types(), "export type LibraryBook =");

  // Removed: src/hooks/holdings.ts and src/hooks/loans.ts are kept, and the types they import stay defined.
  service(["shelf.json"]);
  assert.ok((await generate(defs, { out, allowBreaking: true })).written);
  assert.match(types(), "export type LibraryBook = Record<string, unknown>;");
  assert.match(types(), "export type LibraryBookInput = Record<string, unknown>;");
  assert.not.match(types(), "Holding");
  assert.not.match(types(), "Loan");
});

test("a kept hook file in the form of earlier seeds (named imports) still finds its type", async () => {
  service(["shelf.json", "note.json"]);
  resource("shelf.json", "shelves");
  resource("note.json", "notes", "Margin note");
  assert.ok((await generate(defs, { out })).written);
  const earlier = `import type { ResourceHooks } from "../generated/errors.js";\nimport type { MarginNote, MarginNoteInput } from "../generated/types.js";\n\nexport const hooks: ResourceHooks<MarginNoteInput, MarginNote> = {};\n`;
  fs.writeFileSync(path.join(out, "src/hooks/notes.ts"), earlier);
  service(["shelf.json"]);
  assert.ok((await generate(defs, { out, allowBreaking: true })).written);
  assert.match(types(), "export type MarginNote = Record<string, unknown>;");
  assert.match(types(), "export type MarginNoteInput = Record<string, unknown>;");
});

test.run();
