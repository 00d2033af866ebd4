/**
 * What the outputs say about links staying whole, on the directory example (a directory's deletion cascades
 * to its accounts, a group's directory refuses it, an account's groups are a stored list): what deleting does
 * in openapi.json and the HTML and Markdown reference, the member routes of a stored list there and in the
 * generated README, the typed client's add/remove, and the runtime spec's onDelete.
 */
import path from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { emitClient } from "../../../src/emit/client.js";
import { emitHtmlReference } from "../../../src/emit/docs/html.js";
import { emitMarkdownReference } from "../../../src/emit/docs/markdown.js";
import { openApiOf } from "../../../src/emit/docs/openapi.js";
import { deleteCanBeRefused, deleteEffects } from "../../../src/emit/docs/operations.js";
import { emitReadme } from "../../../src/emit/readme.js";
import { specOf } from "../../../src/emit/spec.js";
import type { Model } from "../../../src/model/types.js";
import { checkProject } from "../../../src/pipeline.js";
import { repoRoot } from "../../helpers/cli.js";

type Json = Record<string, any>;

const { model } = checkProject(path.join(repoRoot, "examples", "directory"));
const m = model as Model;
const doc = openApiOf(m) as Json;
const resource = (c: string) => m.resources.find((r) => r.collection === c)!;

test("openapi: DELETE says what deleting does to what links to it, and lists 409 stillLinked where a link refuses", () => {
  const directories = doc.paths["/directories/{id}"].delete;
  assert.match(directories.description, "The accounts whose `directory` links to it are deleted with it");
  assert.match(directories.description, "While a group links to it through `directory`, the delete is refused: 409 with `property` `groups.directory`.");
  const conflict = doc.components.responses[directories.responses["409"].$ref.split("/").pop()];
  assert.equal(conflict["x-error-codes"], [40901]);
  const groups = doc.paths["/groups/{id}"].delete;
  assert.match(groups.description, "It is dropped from the `groups` of every account that lists it.");
  assert.is(groups.responses["409"], undefined, "nothing refuses the delete of a group");
  assert.is(doc.paths["/folders/{id}"].delete.description.startsWith("Deletes the folder."), true);
});

test("what can refuse a delete: a link without x-on-delete, also one reached through a cascade", () => {
  assert.ok(deleteCanBeRefused(m, resource("directories")));
  assert.not.ok(deleteCanBeRefused(m, resource("groups")));
  assert.not.ok(deleteCanBeRefused(m, resource("accounts")));
  assert.equal(deleteEffects(m, resource("folders")), []);
});

test("openapi: the members of a stored list: POST adds (201 with Location, 200), DELETE …/{memberId} removes; the inverse stays read-only", () => {
  const add = doc.paths["/accounts/{id}/groups"].post;
  assert.is(add.operationId, "addGroupsToAccount");
  assert.equal(Object.keys(add.responses).filter((s) => s.startsWith("2")), ["200", "201"]);
  const created = doc.components.responses[add.responses["201"].$ref.split("/").pop()];
  assert.ok(created.headers.Location);
  assert.equal(Object.keys(created.content), ["application/json", "application/vnd.acme.v1.group+json", "application/acme.v1.group.json"]);
  const body = doc.components.requestBodies[add.requestBody.$ref.split("/").pop()];
  assert.equal(body.content["application/json"].schema, { $ref: "#/components/schemas/LinkInput" });
  const remove = doc.paths["/accounts/{id}/groups/{memberId}"];
  assert.equal(remove.parameters, [{ $ref: "#/components/parameters/id" }, { $ref: "#/components/parameters/memberId" }]);
  assert.equal(Object.keys(remove).sort(), ["delete", "parameters"]);
  assert.is(remove.delete.operationId, "removeGroupsFromAccount");
  assert.ok(remove.delete.responses["204"]);
  assert.equal(Object.keys(doc.paths["/directories/{id}/accounts"]).sort(), ["get", "head", "parameters"], "an inverse collection: no member routes");
  assert.is(doc.paths["/directories/{id}/accounts/{memberId}"], undefined);
});

test("HTML and Markdown reference: the member routes with their client calls, and each link's delete rule", () => {
  const html = emitHtmlReference(m).find((f) => f.path === "resources/accounts.html")!.contents;
  assert.match(html, "/accounts/{id}/groups/{memberId}");
  assert.match(html, "api.accounts.groups.add(");
  assert.match(html, "api.accounts.groups.remove(");
  assert.match(html, "Deleting the directory deletes this account too");
  const groups = emitMarkdownReference(m).find((f) => f.path === "resources/groups.md")!.contents;
  assert.match(groups, "While it links here, deleting the directory is refused (409, `property` `groups.directory`).");
  const index = emitMarkdownReference(m).find((f) => f.path === "index.md")!.contents;
  assert.match(index, "Links stay whole");
  assert.ok(emitHtmlReference(m).some((f) => f.path === "40901.html"), "the error page of stillLinked");
});

test("README routes, the client's add and remove, and the runtime spec's onDelete", () => {
  const readme = emitReadme(m)[0]!.contents;
  assert.match(readme, "| `POST /v1/accounts/{id}/groups` |");
  assert.match(readme, "| `DELETE /v1/accounts/{id}/groups/{memberId}` |");
  assert.match(readme, "| `DELETE /v1/directories/{id}` | 204; 409 while other instances link to it |");
  const client = emitClient(m).find((f) => f.path === "client/index.ts")!.contents;
  assert.match(client, "    add(id: string, member: string | { readonly meta: { readonly href: string } }, options?: runtime.CallOptions): Promise<types.Group>;");
  assert.match(client, "    remove(id: string, memberId: string, options?: runtime.CallOptions): Promise<void>;");
  assert.match(client, '"groups": ["groups", "application/vnd.acme.v1.groups+json", "application/vnd.acme.v1.group+json"]');
  assert.match(client, '"accounts": ["accounts", "application/vnd.acme.v1.accounts+json"]');
  const spec = specOf(m) as Json;
  const account = spec.resources.find((r: Json) => r.collection === "accounts");
  assert.equal(account.fields.find((f: Json) => f.name === "directory").link, { kind: "instance", target: "directories", onDelete: "cascade" });
});

test.run();
