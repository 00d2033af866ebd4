/** Hrefs: an id goes into the path exactly as encodeURIComponent writes it, and idFromHref reads it back. */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { hrefOf, idFromHref } from "../../../templates/runtime/links.js";

const base = "https://api.example.com/v1";

test("hrefOf writes the id as encodeURIComponent does, whether or not it needs encoding", () => {
  const ids = ["42", "0199a1b2-7c3d-7e4f-8a5b-6c7d8e9f0a1b", "a_b.c~d-e", "", "a b", "a/b", "ü", "%41", "a?b#c", "(x)!*'", "\u{1F600}"];
  for (const id of ids) {
    assert.is(hrefOf(base, "books", id), `${base}/books/${encodeURIComponent(id)}`, JSON.stringify(id));
    if (id !== "") assert.is(idFromHref(hrefOf(base, "books", id), base, "books"), id, JSON.stringify(id));
  }
  assert.is(hrefOf(base, "books"), `${base}/books`);
});

test.run();
