/** Emits the generated package's README: how to run it, its routes, media types and error codes. */
import type { Model } from "../model/types.js";
import type { EmittedFile } from "./emitted-file.js";
import { member, shellWord, str } from "./shared/escape.js";
import { render } from "./shared/templates.js";
import { BODY_LIMIT, PAGING } from "./spec.js";

/** README.md (generated). */
export function emitReadme(model: Model): EmittedFile[] {
  const { service } = model;
  const base = service.basePath;
  const routes = model.resources.flatMap((r) => [
    { method: "GET", path: `${base}/${r.collection}`, answer: "200, a page of the collection" },
    { method: "POST", path: `${base}/${r.collection}`, answer: `201, the new ${r.name} (Location: its href)` },
    { method: "GET", path: `${base}/${r.collection}/{id}`, answer: `200, the ${r.name}; 404 when there is none` },
    { method: "POST, PATCH", path: `${base}/${r.collection}/{id}`, answer: "200, partial update (JSON merge patch)" },
    { method: "PUT", path: `${base}/${r.collection}/{id}`, answer: "200, replaces the whole instance" },
    { method: "DELETE", path: `${base}/${r.collection}/{id}`, answer: "204" },
    ...r.fields
      .filter((f) => f.kind === "links")
      .map((f) => ({ method: "GET", path: `${base}/${r.collection}/{id}/${f.name}`, answer: `200, a page of ${f.link!.target}${f.link!.inverse ? ` whose ${f.link!.inverse} is this ${r.name}` : ""}` })),
  ]);
  for (const a of model.actions) routes.push({ method: a.method, path: `${base}/${a.name}`, answer: a.description || "the action's result" });
  const routeRows = routes.map((r) => ({ route: `${r.method} ${r.path}`, answer: r.answer }));
  const roles = [...new Set(model.resources.flatMap((r) => Object.values(r.access).flat()).concat(model.actions.flatMap((a) => a.roles)))].sort();
  const first = model.resources[0];
  const local = `http://127.0.0.1:3000${base}`;
  // Shell lines of a code block: every piece from the definitions is one quoted shell word.
  const curl = first
    ? [
        `curl -s -H "Authorization: Bearer $SECRET" ${shellWord(`${local}/${first.collection}`)}`,
        `curl -s -H "Authorization: Bearer $SECRET" -H "Content-Type: application/json" -d '{...}' ${shellWord(`${local}/${first.collection}`)}`,
        `curl -s -H "Authorization: Bearer $SECRET" -H ${shellWord(`Accept: ${first.mediaType}`)} ${shellWord(`${local}/${first.collection}/<id>?expand=...`)}`,
      ]
    : [];
  const linked = model.resources.find((r) => r.fields.some((f) => f.link?.kind === "instance"));
  const link = linked?.fields.find((f) => f.link?.kind === "instance");
  const clientExamples = first
    ? [
        `const page = await ${member("api", first.collection)}.list({ offset: 0, limit: 10 });`,
        ...(linked && link ? [`const one = await ${member("api", linked.collection)}.get(id, { expand: [${str(link.name)}] });`] : []),
      ]
    : [];
  const data = {
    name: service.name,
    clientExamples,
    title: service.title,
    description: service.description,
    baseUrl: service.baseUrl,
    basePath: base,
    dbFile: `data/${service.name.replace(/^@[^/]+\//, "")}.db`,
    exampleRoles: roles.length ? roles.join(",") : "reader",
    basic: service.auth.schemes.includes("basic"),
    curl,
    routes: routeRows,
    defaultLimit: PAGING.defaultLimit,
    maxLimit: PAGING.maxLimit,
    bodyLimit: BODY_LIMIT,
    mediaTypes: model.mediaTypes,
    errors: model.errors,
  };
  return [{ path: "README.md", contents: render("package/README.md.hbs", data), owner: "generated" }];
}
