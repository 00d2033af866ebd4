/** Emits the generated package's README: how to run it, its routes, media types and error codes. */
import { issuesTokens } from "./shared/auth.js";
import { useSharedSchemas } from "./samples.js";
import { BODY_LIMIT, DEFAULT_EXPAND_LIMIT, MAX_BODY_DEPTH, PAGING } from "../model/conventions.js";
import type { Model, Resource } from "../model/types.js";
import { exampleBody } from "./contract-samples.js";
import type { EmittedFile } from "./emitted-file.js";
import { member, shellWord, str } from "./shared/escape.js";
import { render } from "./shared/templates.js";
import { serviceRoles } from "./tests.js";
import { deleteCanBeRefused } from "./docs/operations.js";

/** README.md (generated). */
export function emitReadme(model: Model): EmittedFile[] {
  useSharedSchemas(model.schemas);
  const { service } = model;
  const base = service.basePath;
  const routes = model.resources.flatMap((r) => [
    { method: "GET", path: `${base}/${r.collection}`, answer: "200, a page of the collection" },
    { method: "POST", path: `${base}/${r.collection}`, answer: `201, the new ${r.name} (Location: its href)` },
    { method: "GET", path: `${base}/${r.collection}/{id}`, answer: `200, the ${r.name}; 404 when there is none` },
    { method: "POST, PATCH", path: `${base}/${r.collection}/{id}`, answer: "200, partial update (JSON merge patch)" },
    { method: "PUT", path: `${base}/${r.collection}/{id}`, answer: "200, replaces the whole instance" },
    { method: "DELETE", path: `${base}/${r.collection}/{id}`, answer: deleteCanBeRefused(model, r) ? "204; 409 while other instances link to it" : "204" },
    ...r.fields
      .filter((f) => f.kind === "links")
      .flatMap((f) => [
        { method: "GET", path: `${base}/${r.collection}/{id}/${f.name}`, answer: `200, a page of ${f.link!.target}${f.link!.inverse ? ` whose ${f.link!.inverse} is this ${r.name}` : ""}` },
        ...(f.link!.inverse
          ? []
          : [
              { method: "POST", path: `${base}/${r.collection}/{id}/${f.name}`, answer: `201, adds the member the body links to (one of ${f.link!.target}); 200 when it already is one` },
              { method: "DELETE", path: `${base}/${r.collection}/{id}/${f.name}/{memberId}`, answer: "204, removes that member; 404 when it is not one" },
            ]),
      ]),
  ]);
  for (const a of model.actions) routes.push({ method: a.method, path: `${base}/${a.name}`, answer: a.description || "the action's result" });
  const routeRows = routes.map((r) => ({ route: `${r.method} ${r.path}`, answer: r.answer }));
  const roles = serviceRoles(model);
  const first = model.resources[0];
  const { local, setBaseUrl } = localBaseUrl(service.baseUrl, base);
  const curl = tryItLines(model, local);
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
    apiError: model.clientTypes.ApiError,
    title: service.title,
    description: service.description,
    baseUrl: service.baseUrl,
    basePath: base,
    local,
    setBaseUrl,
    dbFile: `data/${service.name.replace(/^@[^/]+\//, "")}.db`,
    exampleRoles: roles.length ? roles.join(",") : "reader",
    basic: service.auth.schemes.includes("basic"),
    tokens: issuesTokens(service.auth),
    externalIssuer: service.auth.oauth2?.issuer,
    oauth1: service.auth.schemes.includes("oauth1"),
    curl,
    routes: routeRows,
    defaultLimit: PAGING.defaultLimit,
    maxLimit: PAGING.maxLimit,
    bodyLimit: BODY_LIMIT,
    bodyDepth: MAX_BODY_DEPTH,
    expandLimit: DEFAULT_EXPAND_LIMIT,
    mediaTypes: model.mediaTypes,
    errors: model.errors,
  };
  return [{ path: "README.md", contents: render("package/README.md.hbs", data), owner: "generated" }];
}

/**
 * The base URL a service started with `npm start` (PORT 3000, HOST 127.0.0.1) answers on, and whether
 * BASE_URL must be set for its hrefs to point at it: the service's own base URL when it is plain HTTP on
 * a loopback host and port 3000 (the hrefs it answers with are then reachable as they are), else
 * http://127.0.0.1:3000 with the base URL's path, to be passed as BASE_URL.
 * @example localBaseUrl("http://localhost:3000/v2", "/v2") // { local: "http://localhost:3000/v2", setBaseUrl: false }
 * @example localBaseUrl("https://api.example.com/v2", "/v2") // { local: "http://127.0.0.1:3000/v2", setBaseUrl: true }
 */
export function localBaseUrl(baseUrl: string, basePath: string): { local: string; setBaseUrl: boolean } {
  const url = new URL(baseUrl);
  const loopback = url.protocol === "http:" && (url.hostname === "localhost" || url.hostname === "127.0.0.1") && url.port === "3000";
  return loopback ? { local: baseUrl.replace(/\/+$/, ""), setBaseUrl: false } : { local: `http://127.0.0.1:3000${basePath}`, setBaseUrl: true };
}

/**
 * The "Try it" lines, runnable as written once SECRET holds a key's secret: list a collection, create an
 * instance of the first resource that needs no link (its example body), read it back by the href the
 * service gave it with its first link expanded, and see the 401 without credentials. Every piece from the
 * definitions is one quoted shell word.
 */
function tryItLines(model: Model, local: string): string[] {
  const auth = `-H "Authorization: Bearer $SECRET"`;
  const needsLink = (res: Resource) => res.fields.some((f) => f.link && f.required);
  const r = model.resources.find((res) => !needsLink(res)) ?? model.resources[0];
  if (!r) return [];
  const collection = `"$BASE"/${shellWord(r.collection)}`;
  const lines = [`BASE=${shellWord(local)}`, `curl -s ${auth} ${collection}`];
  const body = exampleBody(r);
  if (body !== undefined && !needsLink(r)) lines.push(`curl -s ${auth} -H "Content-Type: application/json" -d ${shellWord(JSON.stringify(body))} ${collection}`);
  lines.push(`HREF=$(curl -s ${auth} ${collection} | node -pe 'JSON.parse(require("fs").readFileSync(0)).items[0].meta.href')`);
  const link = r.fields.find((f) => f.link);
  lines.push(`curl -s ${auth} -H ${shellWord(`Accept: ${r.mediaType}`)} "$HREF"${link ? shellWord(`?expand=${link.name}`) : ""}`);
  lines.push(`curl -s -i ${collection}   # 401 with WWW-Authenticate`);
  return lines;
}
