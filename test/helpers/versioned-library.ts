/**
 * A library served in two versions at once (CONTRACT §7), for the tests of versioning in process and over
 * HTTP: version 3 current, version 2 served until its sunset.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/**
 * Version 3 current; version 2 served until 2027-06-30: book.title and author.fullName were `name`,
 * book.format is new (with a default), book.shelfMark retired after 2, author.favourites was `liked`,
 * reviews came with version 3.
 */
export const VERSIONED_DEFS: Record<string, unknown> = {
  "service.json": {
    name: "library-service",
    title: "Library",
    vendor: "library",
    version: 3,
    versions: { "2": { sunset: "2027-06-30", deprecated: "2026-11-01" } },
    baseUrl: "http://localhost:3000/v3",
    errorDocsUrl: "http://localhost:3000/docs/errors",
    resources: ["author.json", "book.json", "review.json"],
  },
  "author.json": {
    title: "Author",
    type: "object",
    "x-collection": "authors",
    required: ["fullName"],
    properties: {
      fullName: { type: "string", "x-renamed": { "2": "name" } },
      books: { type: "array", items: { $ref: "book.json" }, "x-inverse": "author" },
      favourites: { type: "array", items: { $ref: "author.json" }, "x-renamed": { "2": "liked" } },
    },
  },
  "book.json": {
    title: "Book",
    type: "object",
    "x-collection": "books",
    "x-unique": ["isbn"],
    required: ["title", "author", "format"],
    properties: {
      title: { type: "string", minLength: 1, "x-renamed": { "2": "name" } },
      isbn: { type: "string" },
      format: { type: "string", enum: ["paper", "ebook"], default: "paper", "x-since": 3 },
      shelfMark: { type: "string", "x-until": 2 },
      author: { $ref: "author.json" },
    },
  },
  "review.json": {
    title: "Review",
    type: "object",
    "x-collection": "reviews",
    "x-since": 3,
    required: ["text"],
    properties: { text: { type: "string" } },
  },
};

/** The definitions written into a temporary folder. */
export function writeDefs(defs: Record<string, unknown>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "resourcery-versions-"));
  for (const [file, value] of Object.entries(defs)) fs.writeFileSync(path.join(dir, file), JSON.stringify(value, null, 2));
  return dir;
}

