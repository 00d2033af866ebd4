/**
 * The static HTML reference: an overview, one page per resource, the actions, and one page per error
 * code at <code>.html, with one stylesheet and one search script of its own; <code>/index.html only
 * redirects to ../<code>.html, so that <errorDocsUrl>/<code> resolves on a static host that serves a
 * folder's index.html, without a second copy of the page. No network: every link is relative and every
 * asset is emitted here. Pages are the concatenation of their rendered parts (templates/docs/*.html.hbs,
 * with escaping on, so no template needs triple-stash). The fragments repeated many times per page (texts,
 * constraint lists, parameter rows, link lists, the side navigation) are built here instead, as `Html`,
 * with every piece of user text through escapeHtml, the templates' own escaping.
 */
import { useSharedSchemas } from "../samples.js";
import type { Model } from "../../model/types.js";
import { keyed, renderAll, type EmittedFile, type LazyFile } from "../emitted-file.js";
import { keyOf } from "../keys.js";
import { escapeHtml, render, trusted, type Html } from "../shared/templates.js";
import { buildReference, hrefFrom, overviewKey, PAGES, relativePath, type ErrorPage, type ErrorRef, type OperationDoc, type ParamDoc, type Reference, type Target, type Text } from "./reference.js";
import { CHANGELOG, docsVersionOf, inFolder, versionNotice, versionSwitch, type DocsVersion, type DocsVersions } from "./versions.js";

/**
 * Up to this many resources the side navigation lists them all on every page. Beyond, it links the
 * overview's full list and lists only the neighbours of the current resource: the navigation of every
 * page would otherwise grow with the service, and the reference with its square.
 */
export const NAV_LIMIT = 100;
/** Resources listed before and after the current one in a shortened navigation. */
export const NAV_NEIGHBOURS = 10;

/** Every file of the HTML reference, paths relative to the docs root. */
export function emitHtmlReference(model: Model): EmittedFile[] {
  return renderAll(htmlReferenceFiles(model));
}

/**
 * The files of the HTML reference, each rendered when asked. With `versions` (a service that serves several,
 * docsVersionsOf), `model` is one version's (the current model, or modelOfVersion's): an older version's are
 * its pages in its folder and its search index; the current version's are its pages where they always are,
 * the error pages, the assets and the changelog.
 */
export function htmlReferenceFiles(model: Model, versions?: DocsVersions): LazyFile[] {
  useSharedSchemas(model.schemas);
  const here = docsVersionOf(model, versions);
  const folder = here?.folder ?? "";
  const ref = inFolder(buildReference(model), folder);
  const site = new Site(ref, folder, versions, here);
  const file = (path: string, render: () => string): LazyFile => ({ path, owner: "generated", render });
  // What every resource page reads beside its resource (incremental generation: emit/keys.ts).
  let shared: string | undefined;
  const sharedKey = () => (shared ??= keyOf("html resource page", ref.title, ref.version, folder, site.index, site.actions, site.searchIndex, versions ?? null, here ?? null, ref.resources.map((r) => [r.page, r.collection])));
  const pages = [
    keyed(
      file(`${site.index}.html`, () => site.page(`${site.index}.html`, "Overview", indexBody(site, `${site.index}.html`))),
      () => keyOf(sharedKey(), "overview", overviewKey(ref)),
    ),
    keyed(
      file(`${site.actions}.html`, () => site.page(`${site.actions}.html`, "Actions", actionsBody(site, `${site.actions}.html`))),
      () => keyOf(sharedKey(), "actions", ref.actions),
    ),
    ...ref.resources.map((r, i) => {
      const path = `${r.page}.html`;
      return keyed(
        file(path, () => site.page(path, r.title, resourceBody(site, i, path), i)),
        () => keyOf(sharedKey(), path, i, r),
      );
    }),
  ];
  if (here && !here.current) return [...pages, file(site.searchIndex, () => render("docs/search-index.js.hbs", { entries: searchEntries(ref) }))];
  return [
    ...pages,
    ...ref.errors.flatMap((e) => {
      const path = `${e.page}.html`;
      const title = `${e.code} ${e.title}`;
      // An error page lists the operations that answer its code: keyed by its view, as a resource page is.
      const redirect = `${e.page}/index.html`;
      return [
        keyed(
          file(path, () => site.page(path, title, errorBody(ref, e, path))),
          () => keyOf(sharedKey(), path, e),
        ),
        keyed(
          file(redirect, () => render("docs/redirect.html.hbs", { title, serviceTitle: ref.title, href: hrefOf(redirect, { page: e.page, anchor: "" }) })),
          () => keyOf("error redirect", redirect, title, ref.title, e.page),
        ),
      ];
    }),
    ...(versions ? [file(`${CHANGELOG}.html`, () => site.page(`${CHANGELOG}.html`, "Changelog", changelogBody(site, versions, `${CHANGELOG}.html`))), file("assets/versions.css", () => render("docs/versions.css.hbs", {}))] : []),
    file("assets/style.css", () => render("docs/style.css.hbs", {})),
    file("assets/search.js", () => render("docs/search.js.hbs", {})),
    file(site.searchIndex, () => render("docs/search-index.js.hbs", { entries: searchEntries(ref) })),
  ];
}

/** The relative prefix from a file to the docs root: "" or "../" per folder. */
function rootOf(file: string): string {
  return "../".repeat(file.split("/").length - 1);
}

/** The href of `to` from `file`; an anchor on the same page is just "#anchor". */
export function hrefOf(file: string, to: Target): string {
  return hrefFrom(file, to, ".html");
}

// ---------------------------------------------------------------------------------------------------
// Fragments built here

/** A text as HTML for `file`: segments escaped, code in <code>, links in <a>. */
function textHtml(file: string, t: Text): string {
  let out = "";
  for (const s of t) {
    const inner = s.code ? `<code>${escapeHtml(s.text)}</code>` : escapeHtml(s.text);
    out += s.link ? `<a href="${escapeHtml(hrefOf(file, s.link))}">${inner}</a>` : inner;
  }
  return out;
}

/** A text for a template; "" when it is empty, so that a template can test it with #if. */
function rich(file: string, t: Text): Html | "" {
  return t.length ? trusted(textHtml(file, t)) : "";
}

/** The constraints of a field or parameter as a list, or "" when it has none. */
function constraintList(file: string, constraints: readonly Text[]): string {
  if (!constraints.length) return "";
  let out = '<ul class="constraints">';
  for (const c of constraints) out += `<li>${textHtml(file, c)}</li>`;
  return `${out}</ul>`;
}

/** The rows of an operation's parameter table, or "" when it has no parameters. */
function paramRows(file: string, params: readonly ParamDoc[]): Html | "" {
  if (!params.length) return "";
  let out = "";
  for (const p of params) {
    out += `    <tr><td><code>${escapeHtml(p.name)}</code></td><td>${p.in}</td><td>${textHtml(file, p.type)}</td><td>${p.required ? "<strong>yes</strong>" : "no"}</td><td>${textHtml(file, p.description)}${constraintList(file, p.constraints)}</td></tr>\n`;
  }
  return trusted(out);
}

/** What the pages of one reference share, each built once: the icon, and per folder the navigation and error lists. */
class Site {
  /** The page icon as a data URL, inline so that no page requests anything for it. */
  private readonly icon = `data:image/svg+xml,${encodeURIComponent(render("docs/favicon.svg.hbs", {}).trim())}`;
  private readonly navs = new Map<string, { items: string[]; current: string[]; all: string; offsets: number[] }>();
  private readonly errorLists = new Map<string, Html>();

  /** The pages of this page set: its overview and its actions (under its folder). */
  readonly index: string;
  readonly actions: string;
  /** Its search index (one per version: each finds its own pages). */
  readonly searchIndex: string;

  constructor(
    readonly ref: Reference,
    readonly folder: string,
    private readonly versions: DocsVersions | undefined,
    private readonly here: DocsVersion | undefined,
  ) {
    this.index = `${folder}${PAGES.index}`;
    this.actions = `${folder}${PAGES.actions}`;
    this.searchIndex = here && !here.current ? `assets/search-index.v${here.version}.js` : "assets/search-index.js";
  }

  /** A whole page: the layout around `body`; `resource` is the index of the page's resource, if it is one. */
  page(file: string, title: string, body: string, resource?: number): string {
    const { ref } = this;
    const root = rootOf(file);
    const at = (p: string, anchor = "") => hrefOf(file, { page: p, anchor });
    const versions = this.versions;
    const page = file.slice(0, -".html".length);
    const head = render("docs/layout-head.html.hbs", {
      pageTitle: title,
      serviceTitle: ref.title,
      version: ref.version,
      root,
      icon: this.icon,
      home: at(this.index),
      overview: [
        { label: "Introduction", href: at(this.index) },
        { label: "Authentication", href: at(this.index, "authentication") },
        { label: "Media types", href: at(this.index, "media-types") },
        { label: "Conventions", href: at(this.index, "conventions") },
      ],
      resources: this.resourceNav(file, resource),
      actionsHref: at(this.actions),
      actionsCurrent: file === `${this.actions}.html`,
      errorsHref: at(this.index, "errors"),
      // (A service of one version has no switch, no changelog and no notice: its pages are as they were.)
      versions: versions ? versionSwitch(versions.all, this.here, page).map((v) => ({ label: v.label, href: at(v.target.page), here: v.here })) : "",
      changelogHref: versions ? at(CHANGELOG) : "",
      changelogCurrent: page === CHANGELOG,
      notice: versions ? rich(file, versionNotice(this.here, versions.all.at(-1)!.version)) : "",
    });
    const foot = render("docs/layout-foot.html.hbs", { serviceTitle: ref.title, version: ref.version, root, searchIndex: this.searchIndex });
    return head + body + foot;
  }

  /**
   * The error list of an operation. Operations of one kind answer the same codes, and pages of one
   * folder link them alike: each distinct list is built once per folder.
   */
  errorList(file: string, errors: readonly ErrorRef[]): Html {
    const folder = file.slice(0, file.lastIndexOf("/") + 1);
    const key = `${folder} ${errors.map((e) => e.code).join(" ")}`;
    let list = this.errorLists.get(key);
    if (!list) {
      let out = "";
      for (const e of errors) out += `  <li><a href="${escapeHtml(hrefOf(file, e.target))}"><code>${e.code}</code> ${escapeHtml(e.title)}</a> <span class="status">${e.status}</span></li>\n`;
      this.errorLists.set(key, (list = trusted(out)));
    }
    return list;
  }

  /** The items of the navigation's resource list, the current resource (if any) marked. */
  private resourceNav(file: string, current: number | undefined): Html {
    const folder = file.slice(0, file.lastIndexOf("/") + 1);
    let nav = this.navs.get(folder);
    if (!nav) {
      const item = (href: string, label: string, mark: string) => `    <li><a href="${escapeHtml(href)}"${mark}>${escapeHtml(label)}</a></li>\n`;
      const links = this.ref.resources.map((r) => [hrefOf(file, { page: r.page, anchor: "" }), r.collection] as const);
      const items = links.map(([href, label]) => item(href, label, ""));
      const offsets = [0];
      for (const x of items) offsets.push(offsets[offsets.length - 1]! + x.length);
      nav = { items, current: links.map(([href, label]) => item(href, label, ' aria-current="page"')), all: items.join(""), offsets };
      this.navs.set(folder, nav);
    }
    const count = nav.items.length;
    if (count <= NAV_LIMIT) {
      if (current === undefined) return trusted(nav.all);
      // The folder's list with the current item swapped in.
      return trusted(nav.all.slice(0, nav.offsets[current]) + nav.current[current]! + nav.all.slice(nav.offsets[current + 1]));
    }
    const all = hrefOf(file, { page: this.index, anchor: "resources" });
    let out = `    <li><a href="${escapeHtml(all)}">All ${count} resources</a></li>\n`;
    if (current !== undefined) {
      for (let i = Math.max(0, current - NAV_NEIGHBOURS); i <= Math.min(count - 1, current + NAV_NEIGHBOURS); i++) out += i === current ? nav.current[i] : nav.items[i];
    }
    return trusted(out);
  }
}

// ---------------------------------------------------------------------------------------------------
// Page bodies

const methodClass = (method: string) => method.toLowerCase();

function indexBody(site: Site, file: string): string {
  const { ref } = site;
  return render("docs/index.html.hbs", {
    title: ref.title,
    description: rich(file, ref.description),
    baseUrl: ref.baseUrl,
    version: ref.version,
    vendor: ref.vendor,
    errorDocsUrl: ref.errorDocsUrl,
    schemes: ref.auth.schemes.map((s) => ({ name: s.name, header: s.header, text: rich(file, s.text) })),
    authNotes: ref.auth.notes.map((n) => rich(file, n)),
    realm: ref.auth.realm,
    challenges: ref.auth.challenges,
    clientSetup: ref.clientSetup,
    apiError: ref.apiError,
    negotiation: ref.negotiation.map((n) => rich(file, n)),
    mediaTypes: ref.mediaTypes,
    conventions: ref.conventions.map((c) => ({ anchor: c.anchor, title: c.title, rules: c.rules, paragraphs: c.paragraphs.map((p) => rich(file, p)), example: c.example })),
    resources: ref.resources.map((r) => ({
      collection: r.collection,
      href: hrefOf(file, { page: r.page, anchor: "" }),
      description: rich(file, r.description),
      operations: r.operations.map((o) => ({ method: o.method, methodClass: methodClass(o.method), path: o.path, summary: o.summary, href: hrefOf(file, { page: r.page, anchor: o.anchor }) })),
    })),
    actions: ref.actions.operations.map((o) => ({ method: o.method, methodClass: methodClass(o.method), path: o.path, description: rich(file, o.description), href: hrefOf(file, { page: site.actions, anchor: o.anchor }) })),
    errors: ref.errors.map((e) => ({ code: e.code, status: e.status, title: e.title, message: rich(file, e.message), href: hrefOf(file, { page: e.page, anchor: "" }) })),
  });
}

function operation(site: Site, op: OperationDoc, file: string): string {
  return render("docs/operation.html.hbs", {
    anchor: op.anchor,
    method: op.method,
    methodClass: methodClass(op.method),
    path: op.path,
    summary: op.summary,
    description: rich(file, op.description),
    access: rich(file, op.access),
    params: paramRows(file, op.params),
    body: op.body && { mediaTypes: trusted(op.body.mediaTypes.map((t) => `<code>${escapeHtml(t)}</code> `).join("")), example: op.body.example },
    curl: op.curl,
    client: op.client,
    status: op.status,
    statusText: op.statusText,
    responseType: op.responseType,
    response: op.response,
    errors: site.errorList(file, op.errors),
  });
}

function resourceBody(site: Site, index: number, file: string): string {
  const { ref } = site;
  const r = ref.resources[index]!;
  const intro = render("docs/resource.html.hbs", {
    serviceTitle: ref.title,
    home: hrefOf(file, { page: site.index, anchor: "" }),
    clientHref: hrefOf(file, { page: site.index, anchor: "client" }),
    title: r.title,
    collection: r.collection,
    description: rich(file, r.description),
    facts: r.facts.map((f) => ({ label: f.label, value: rich(file, f.value) })),
    access: r.access.map((a) => ({ action: a.action, roles: rich(file, a.roles) })),
    fields: r.fields.value.map((f) => ({ name: f.name, anchor: f.anchor, type: rich(file, f.type), required: f.required, description: rich(file, f.description), constraints: trusted(constraintList(file, f.constraints)) })),
    links: r.links.value.map((l) => ({ name: l.name, kind: l.kind, targetName: l.targetName, description: rich(file, l.description), href: hrefOf(file, l.target), fieldHref: `#${l.fieldAnchor}` })),
    clientSetup: r.clientSetup,
  });
  return intro + r.operationDocs.value.map((op) => operation(site, op, file)).join("");
}

function actionsBody(site: Site, file: string): string {
  const { ref } = site;
  const intro = render("docs/actions.html.hbs", {
    serviceTitle: ref.title,
    home: hrefOf(file, { page: site.index, anchor: "" }),
    clientHref: hrefOf(file, { page: site.index, anchor: "client" }),
    description: rich(file, ref.actions.description),
    operations: ref.actions.operations.length > 0,
    clientSetup: ref.actions.clientSetup,
  });
  return intro + ref.actions.operations.map((op) => operation(site, op, file)).join("");
}

function errorBody(ref: Reference, e: ErrorPage, file: string): string {
  // A common code can come from most resources: one line per resource, built here.
  let operations = "";
  for (const line of e.operations) operations += `  <li>${textHtml(file, line)}</li>\n`;
  return render("docs/error.html.hbs", {
    serviceTitle: ref.title,
    home: hrefOf(file, { page: PAGES.index, anchor: "" }),
    catalogHref: hrefOf(file, { page: PAGES.index, anchor: "errors" }),
    code: e.code,
    title: e.title,
    status: e.status,
    statusText: e.statusText,
    key: e.key,
    builtin: e.builtin,
    info: e.info,
    message: rich(file, e.message),
    condition: rich(file, e.condition),
    dev: rich(file, e.dev),
    everyOperation: e.everyOperation,
    operations: operations ? trusted(operations) : "",
    example: e.example,
  });
}

/** The search index: hrefs relative to the docs root; search.js prefixes them with the page's root. */
function searchEntries(ref: Reference): { kind: string; title: string; detail: string; href: string }[] {
  return ref.search.map((s) => ({ kind: s.kind, title: s.title, detail: s.detail, href: hrefOf("index.html", { page: s.page, anchor: s.anchor }).replace(/^#/, "index.html#") }));
}

/** The changelog page: per version, newest first, what it changed, with links to its reference and OpenAPI document. */
function changelogBody(site: Site, versions: DocsVersions, file: string): string {
  const log = versions.changelog;
  return render("docs/changelog.html.hbs", {
    serviceTitle: site.ref.title,
    home: hrefOf(file, { page: site.index, anchor: "" }),
    intro: rich(file, log.intro),
    versions: log.versions.map((v) => ({
      anchor: v.anchor,
      heading: v.heading,
      reference: v.reference ? hrefOf(file, v.reference) : "",
      openapi: v.openapi ? relativePath(file, v.openapi) : "",
      openapiFile: v.openapi ?? "",
      changes: v.changes.map((c) => rich(file, c)),
      empty: rich(file, v.empty),
    })),
  });
}
