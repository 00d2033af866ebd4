/** Hrefs: an id goes into the path exactly as encodeURIComponent writes it, and idFromHref reads it back; only hrefs under the base URL name an instance. */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { hrefOf, idFromHref, matchHref } from "../../../templates/runtime/links.js";

const base = "https://api.example.com/v1";

test("hrefOf writes the id as encodeURIComponent does, whether or not it needs encoding", () => {
  const ids = ["42", "0199a1b2-7c3d-7e4f-8a5b-6c7d8e9f0a1b", "a_b.c~d-e", "", "a b", "a/b", "ü", "%41", "a?b#c", "(x)!*'", "\u{1F600}"];
  for (const id of ids) {
    assert.is(hrefOf(base, "books", id), `${base}/books/${encodeURIComponent(id)}`, JSON.stringify(id));
    if (id !== "") assert.is(idFromHref(hrefOf(base, "books", id), base, "books"), id, JSON.stringify(id));
  }
  assert.is(hrefOf(base, "books"), `${base}/books`);
});

test("matchHref: an absolute href under the base URL, or a reference resolved against it, names an instance; a trailing slash is ignored", () => {
  const table: Record<string, string> = {
    "https://api.example.com/v1/books/42": "42",
    "HTTPS://API.EXAMPLE.COM:443/v1/books/42": "42",
    "https://api.example.com/v1/books/42/": "42",
    "/v1/books/42": "42",
    "books/42": "42",
    "./books/a%20b": "a b",
  };
  for (const [href, id] of Object.entries(table)) assert.equal(matchHref(href, base, "books"), { id }, href);
});

test("matchHref: another host, scheme or port, another base path or collection, a query, a fragment, credentials: no id, and why", () => {
  const table: Record<string, RegExp> = {
    "http://api.example.com/v1/books/42": /^is on another host: links name instances of this service, under https:\/\/api\.example\.com\/v1$/,
    "https://api.example.com:8443/v1/books/42": /another host/,
    "https://elsewhere.example/v1/books/42": /another host/,
    "//elsewhere.example/v1/books/42": /another host/,
    "https://api.example.com/v2/books/42": /^is not under this service's base URL https:\/\/api\.example\.com\/v1$/,
    "../v2/books/42": /not under this service's base URL/,
    "https://api.example.com/v1/authors/42": /^is not the href of an instance of books \(https:\/\/api\.example\.com\/v1\/books\/<id>\)$/,
    "https://api.example.com/v1/books": /not the href of an instance of books/,
    "https://api.example.com/v1/books/42/reviews": /not the href of an instance of books/,
    "https://api.example.com/v1/books/42?x=1": /query or a fragment/,
    "https://api.example.com/v1/books/42?": /query or a fragment/,
    "https://api.example.com/v1/books/42#top": /query or a fragment/,
    "https://me:pw@api.example.com/v1/books/42": /credentials/,
    "https://api.example.com/v1/books/%E0%A4%A": /percent-encoded/,
    "http://[::1": /not a URL/,
  };
  for (const [href, why] of Object.entries(table)) {
    const m = matchHref(href, base, "books");
    assert.is(m.id, undefined, href);
    assert.match(m.problem ?? "", why, href);
  }
  assert.equal(matchHref(42, base, "books"), { problem: "is not a string" });
  assert.is(idFromHref("https://elsewhere.example/v1/books/42", base, "books"), undefined);
});

test("matchHref: a base URL at the root of its host", () => {
  assert.equal(matchHref("http://localhost:3000/books/1", "http://localhost:3000", "books"), { id: "1" });
  assert.equal(matchHref("/books/1", "http://localhost:3000", "books"), { id: "1" });
  assert.match(matchHref("http://localhost:3001/books/1", "http://localhost:3000", "books").problem!, /another host/);
});

test.run();
