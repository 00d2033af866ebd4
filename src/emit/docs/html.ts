/**
 * The static HTML reference: an overview, one page per resource, the actions, and one page per error
 * code (at <code>.html and <code>/index.html, so that <errorDocsUrl>/<code> resolves), with one
 * stylesheet and one search script of its own. No network: every link is relative and every asset is
 * emitted here. All user text goes through templates/docs/*.html.hbs with escaping on; pages are the
 * concatenation of their rendered parts, so no template needs triple-stash.
 */
import type { Model } from "../../model/types.js";
import type { EmittedFile } from "../emitted-file.js";
import { render } from "../shared/templates.js";
import { buildReference, hrefFrom, PAGES, type ErrorPage, type OperationDoc, type Reference, type Target } from "./reference.js";

/** Every file of the HTML reference, paths relative to the docs root. */
export function emitHtmlReference(model: Model): EmittedFile[] {
  const ref = buildReference(model);
  const files: { path: string; contents: string }[] = [
    { path: "index.html", contents: page(ref, "index.html", "Overview", indexBody(ref, "index.html")) },
    { path: "actions.html", contents: page(ref, "actions.html", "Actions", actionsBody(ref, "actions.html")) },
    ...ref.resources.map((r) => {
      const file = `${r.page}.html`;
      return { path: file, contents: page(ref, file, r.title, resourceBody(ref, file)) };
    }),
    ...ref.errors.flatMap((e) =>
      [`${e.page}.html`, `${e.page}/index.html`].map((file) => ({ path: file, contents: page(ref, file, `${e.code} ${e.title}`, errorBody(ref, e, file)) })),
    ),
    { path: "assets/style.css", contents: render("docs/style.css.hbs", {}) },
    { path: "assets/search.js", contents: render("docs/search.js.hbs", {}) },
    { path: "assets/search-index.js", contents: render("docs/search-index.js.hbs", { entries: searchEntries(ref) }) },
  ];
  return files.map((f) => ({ ...f, owner: "generated" as const }));
}

/** The relative prefix from a file to the docs root: "" or "../" per folder. */
function rootOf(file: string): string {
  return "../".repeat(file.split("/").length - 1);
}

/** The href of `to` from `file`; an anchor on the same page is just "#anchor". */
export function hrefOf(file: string, to: Target): string {
  return hrefFrom(file, to, ".html");
}

/**
 * Template data for `file`: every text segment gets the href of its link from that file ("" when it
 * has none), so templates only test `href`.
 */
function resolved(file: string, data: object): object {
  const walk = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(walk);
    if (v === null || typeof v !== "object") return v;
    const o = v as Record<string, unknown>;
    if (typeof o["text"] === "string" && typeof o["code"] === "boolean" && "link" in o) {
      return { ...o, href: o["link"] ? hrefOf(file, o["link"] as Target) : "" };
    }
    return Object.fromEntries(Object.entries(o).map(([k, x]) => [k, walk(x)]));
  };
  return walk(data) as object;
}

/** Renders an .html.hbs template of templates/docs/ for `file`. */
function view(name: string, file: string, data: object): string {
  return render(`docs/${name}.html.hbs`, resolved(file, data));
}

function page(ref: Reference, file: string, title: string, body: string): string {
  const root = rootOf(file);
  const at = (p: string, anchor = "") => hrefOf(file, { page: p, anchor });
  const head = view("layout-head", file, {
    pageTitle: title,
    serviceTitle: ref.title,
    version: ref.version,
    root,
    icon: icon(),
    home: at(PAGES.index),
    overview: [
      { label: "Introduction", href: at(PAGES.index) },
      { label: "Authentication", href: at(PAGES.index, "authentication") },
      { label: "Media types", href: at(PAGES.index, "media-types") },
      { label: "Conventions", href: at(PAGES.index, "conventions") },
    ],
    resources: ref.resources.map((r) => ({ label: r.collection, href: at(r.page), current: `${r.page}.html` === file })),
    actionsHref: at(PAGES.actions),
    actionsCurrent: file === "actions.html",
    errorsHref: at(PAGES.index, "errors"),
  });
  const foot = view("layout-foot", file, { serviceTitle: ref.title, version: ref.version, root });
  return head + body + foot;
}

/** The page icon as a data URL, inline so that no page requests anything for it. */
const icon = () => `data:image/svg+xml,${encodeURIComponent(render("docs/favicon.svg.hbs", {}).trim())}`;

const methodClass = (method: string) => method.toLowerCase();

function indexBody(ref: Reference, file: string): string {
  return view("index", file, {
    title: ref.title,
    description: ref.description,
    baseUrl: ref.baseUrl,
    version: ref.version,
    vendor: ref.vendor,
    errorDocsUrl: ref.errorDocsUrl,
    schemes: ref.auth.schemes,
    authNotes: ref.auth.notes,
    realm: ref.auth.realm,
    challenges: ref.auth.challenges,
    clientSetup: ref.clientSetup,
    negotiation: ref.negotiation,
    mediaTypes: ref.mediaTypes,
    conventions: ref.conventions,
    resources: ref.resources.map((r) => ({
      collection: r.collection,
      href: hrefOf(file, { page: r.page, anchor: "" }),
      description: r.description,
      operations: r.operations.map((o) => ({ method: o.method, methodClass: methodClass(o.method), path: o.path, summary: o.summary, href: hrefOf(file, { page: r.page, anchor: o.anchor }) })),
    })),
    actions: ref.actions.operations.map((o) => ({ method: o.method, methodClass: methodClass(o.method), path: o.path, description: o.description, href: hrefOf(file, { page: PAGES.actions, anchor: o.anchor }) })),
    errors: ref.errors.map((e) => ({ code: e.code, status: e.status, title: e.title, message: e.message, href: hrefOf(file, { page: e.page, anchor: "" }) })),
  });
}

function operation(op: OperationDoc, file: string): string {
  return view("operation", file, {
    ...op,
    methodClass: methodClass(op.method),
    errors: op.errors.map((e) => ({ ...e, href: hrefOf(file, e.target) })),
  });
}

function resourceBody(ref: Reference, file: string): string {
  const r = ref.resources.find((x) => `${x.page}.html` === file)!;
  const intro = view("resource", file, {
    serviceTitle: ref.title,
    home: hrefOf(file, { page: PAGES.index, anchor: "" }),
    clientHref: hrefOf(file, { page: PAGES.index, anchor: "client" }),
    title: r.title,
    collection: r.collection,
    description: r.description,
    facts: r.facts,
    access: r.access,
    fields: r.fields,
    links: r.links.map((l) => ({ ...l, href: hrefOf(file, l.target), fieldHref: `#${l.fieldAnchor}` })),
    clientSetup: r.clientSetup,
  });
  return intro + r.operations.map((op) => operation(op, file)).join("");
}

function actionsBody(ref: Reference, file: string): string {
  const intro = view("actions", file, {
    serviceTitle: ref.title,
    home: hrefOf(file, { page: PAGES.index, anchor: "" }),
    clientHref: hrefOf(file, { page: PAGES.index, anchor: "client" }),
    description: ref.actions.description,
    operations: ref.actions.operations,
    clientSetup: ref.actions.clientSetup,
  });
  return intro + ref.actions.operations.map((op) => operation(op, file)).join("");
}

function errorBody(ref: Reference, e: ErrorPage, file: string): string {
  return view("error", file, {
    ...e,
    serviceTitle: ref.title,
    home: hrefOf(file, { page: PAGES.index, anchor: "" }),
    catalogHref: hrefOf(file, { page: PAGES.index, anchor: "errors" }),
    operations: e.operations.map((o) => ({ label: o.label, href: hrefOf(file, o.target) })),
  });
}

/** The search index: hrefs relative to the docs root; search.js prefixes them with the page's root. */
function searchEntries(ref: Reference): { kind: string; title: string; detail: string; href: string }[] {
  return ref.search.map((s) => ({ kind: s.kind, title: s.title, detail: s.detail, href: hrefOf("index.html", { page: s.page, anchor: s.anchor }).replace(/^#/, "index.html#") }));
}
