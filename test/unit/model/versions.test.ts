/**
 * The versions a service serves, seen from its one current model (src/model/versions.ts), on the
 * clean-versions corpus case: version 4 current, 1 to 3 older, with every version keyword.
 */
import path from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { checkProject } from "../../../src/pipeline.js";
import type { Model } from "../../../src/model/types.js";
import { presentIn, servedVersions, versionView, wireName } from "../../../src/model/versions.js";
import { repoRoot } from "../../helpers/cli.js";

function model(): Model {
  const result = checkProject(path.join(repoRoot, "test/fixtures/check/clean-versions"));
  assert.equal(result.diagnostics, [], "the fixture checks clean");
  return result.model!;
}

/** Per resource of the view: its collection, its media type, and each property as `wire` (`*` when required). */
function shape(m: Model, version: number): Record<string, string> {
  return Object.fromEntries(
    versionView(m, version).resources.map((r) => [r.resource.collection, `${r.mediaType} ${r.fields.map((f) => `${f.wire}${f.required ? "*" : ""}`).join(" ")}`]),
  );
}

test("servedVersions: the older versions ascending, then the current one", () => {
  const m = model();
  assert.equal(servedVersions(m.service), [1, 2, 3, 4]);
  assert.equal(m.service.versions.map((v) => [v.number, v.sunset]), [[1, "2027-06-30"], [2, undefined], [3, undefined]]);
  assert.equal(servedVersions({ ...m.service, versions: [] }), [4]);
});

test("each version: its resources (x-since at the root), properties present (x-since, x-until), under their names then (x-renamed), its media types", () => {
  const m = model();
  assert.equal(shape(m, 1), {
    books: "application/vnd.acme.v1.book+json pages* published name*",
  });
  assert.equal(shape(m, 2), {
    books: "application/vnd.acme.v2.book+json format* pages* published heading*",
  });
  assert.equal(shape(m, 3), {
    books: "application/vnd.acme.v3.book+json format* name pages* heading*",
    shelves: "application/vnd.acme.v3.shelf+json books label*",
  });
  assert.equal(shape(m, 4), {
    books: "application/vnd.acme.v4.book+json format* genres label pages* title*",
    shelves: "application/vnd.acme.v4.shelf+json books label*",
  });
});

test("the current version's view is the model: every resource, every field but those an older version was the last to have, the model's media types", () => {
  const m = model();
  const view = versionView(m, 4);
  assert.ok(view.current);
  assert.equal(view.resources.map((r) => r.resource), m.resources);
  for (const r of view.resources) {
    assert.is(r.mediaType, r.resource.mediaType);
    assert.is(r.collectionMediaType, r.resource.collectionMediaType);
    assert.equal(r.fields.map((f) => f.field), r.resource.fields.filter((f) => f.name !== "published"));
  }
  assert.is(versionView(m, 1).sunset, "2027-06-30");
  assert.not.ok(versionView(m, 1).current);
});

test("wireName takes the first rename at or after the version; presentIn reads since and until inclusively", () => {
  const m = model();
  const title = m.resources.find((r) => r.collection === "books")!.fields.find((f) => f.name === "title")!;
  assert.equal([1, 2, 3, 4, 5].map((v) => wireName(title, v)), ["name", "heading", "heading", "title", "title"]);
  assert.equal([1, 2, 3, 4].map((v) => presentIn({ since: 2, until: 3 }, v)), [false, true, true, false]);
  assert.ok(presentIn(undefined, 1));
});
test.run();
