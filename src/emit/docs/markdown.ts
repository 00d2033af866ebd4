/**
 * The Markdown twin of the HTML reference (GitHub-flavoured): index.md, resources/<collection>.md,
 * actions.md and <code>.md, with the same content and links between the .md files. Markdown templates
 * do not escape, so every piece of user text is escaped here: Markdown punctuation is backslash-escaped
 * (no raw HTML gets through), code spans and fences are sized to their content, and table cells escape |.
 */
import { useSharedSchemas } from "../samples.js";
import type { Model } from "../../model/types.js";
import { keyed, renderAll, type EmittedFile, type LazyFile } from "../emitted-file.js";
import { keyOf } from "../keys.js";
import { codeBlock, codeSpan, escapeMd } from "../shared/escape.js";
import { render } from "../shared/templates.js";
import { buildReference, hrefFrom, overviewKey, PAGES, relativePath, type ErrorPage, type OperationDoc, type Reference, type Target, type Text } from "./reference.js";
import { CHANGELOG, docsVersionOf, inFolder, versionNotice, type DocsVersions } from "./versions.js";

/** Every file of the Markdown reference, paths relative to the docs root. */
export function emitMarkdownReference(model: Model): EmittedFile[] {
  return renderAll(markdownReferenceFiles(model));
}

/**
 * The files of the Markdown reference, each rendered when asked. With `versions`, `model` is one version's,
 * as for htmlReferenceFiles: an older version's pages are in its folder, the error pages and the changelog
 * are the current version's.
 */
export function markdownReferenceFiles(model: Model, versions?: DocsVersions): LazyFile[] {
  useSharedSchemas(model.schemas);
  const here = docsVersionOf(model, versions);
  const folder = here?.folder ?? "";
  const ref = inFolder(buildReference(model), folder);
  const pages: Pages = { index: `${folder}${PAGES.index}`, actions: `${folder}${PAGES.actions}`, notice: versions ? versionNotice(here, versions.all.at(-1)!.version) : [] };
  const file = (path: string, render: () => string): LazyFile => ({ path, owner: "generated", render });
  // What every resource page reads beside its resource (incremental generation: emit/keys.ts).
  let shared: string | undefined;
  const sharedKey = () => (shared ??= keyOf("markdown resource page", ref.title, pages, ref.resources.map((r) => r.page)));
  const own = [
    keyed(file(`${pages.index}.md`, () => indexPage(ref, pages, `${pages.index}.md`)), () => keyOf(sharedKey(), "overview", overviewKey(ref))),
    keyed(file(`${pages.actions}.md`, () => actionsPage(ref, pages, `${pages.actions}.md`)), () => keyOf(sharedKey(), "actions", ref.actions)),
    ...ref.resources.map((r) => keyed(file(`${r.page}.md`, () => resourcePage(ref, pages, r.page)), () => keyOf(sharedKey(), r.page, r))),
  ];
  if (here && !here.current) return own;
  return [
    ...own,
    ...ref.errors.map((e) => keyed(file(`${e.page}.md`, () => errorPage(ref, e, `${e.page}.md`)), () => keyOf(sharedKey(), e.page, e))),
    ...(versions ? [file(`${CHANGELOG}.md`, () => changelogPage(ref, versions, `${CHANGELOG}.md`))] : []),
  ];
}

/** The overview and actions pages of the page set, and the notice its pages start with (an older version's). */
interface Pages {
  readonly index: string;
  readonly actions: string;
  readonly notice: Text;
}

// ---------------------------------------------------------------------------------------------------
// Escaping: the escaping layer's (shared/escape.ts)

export { codeBlock, codeSpan, escapeMd } from "../shared/escape.js";

/** The relative link from `file` to a target (anchors on the same page as "#anchor"). */
export function mdHref(file: string, to: Target): string {
  return hrefFrom(file, to, ".md");
}

/** Inline Markdown of a text; in a table cell, | is escaped inside code spans too. */
function inline(file: string, t: Text, cell = false): string {
  return t
    .map((s) => {
      let out = s.code ? codeSpan(s.text) : escapeMd(s.text);
      if (cell && s.code) out = out.replace(/\|/g, "\\|");
      return s.link ? `[${out}](${mdHref(file, s.link)})` : out;
    })
    .join("");
}

const cell = (file: string, t: Text) => inline(file, t, true) || " ";
const link = (file: string, label: string, to: Target) => `[${label}](${mdHref(file, to)})`;
const json = (s: string) => codeBlock(s, "json");

// ---------------------------------------------------------------------------------------------------
// Pages

function indexPage(ref: Reference, pages: Pages, file: string): string {
  return noticed(pages, file, render("docs/index.md.hbs", {
    title: escapeMd(ref.title),
    description: inline(file, ref.description),
    baseUrl: codeSpan(ref.baseUrl),
    version: ref.version,
    vendor: codeSpan(ref.vendor),
    errorPages: codeSpan(`${ref.errorDocsUrl}/<code>`),
    schemes: ref.auth.schemes.map((s) => ({ name: s.name, header: codeSpan(s.header).replace(/\|/g, "\\|"), text: cell(file, s.text) })),
    authNotes: ref.auth.notes.map((n) => inline(file, n)),
    realm: codeSpan(ref.auth.realm),
    challenges: codeBlock(ref.auth.challenges.map((c) => `WWW-Authenticate: ${c}`).join("\n"), "http"),
    clientSetup: codeBlock(ref.clientSetup, "ts"),
    apiError: ref.apiError,
    negotiation: ref.negotiation.map((n) => inline(file, n)),
    mediaTypes: ref.mediaTypes.map((m) => ({ subject: escapeMd(m.subject), kind: m.kind, name: codeSpan(m.name), alias: codeSpan(m.alias) })),
    conventions: ref.conventions.map((c) => ({ anchor: c.anchor, title: escapeMd(c.title), rules: escapeMd(c.rules), paragraphs: c.paragraphs.map((p) => inline(file, p)), example: c.example ? json(c.example) : "" })),
    resources: ref.resources.map((r) => ({
      link: link(file, codeSpan(`/${r.collection}`), { page: r.page, anchor: "" }),
      description: cell(file, r.description),
      operations: r.operations.map((o) => link(file, o.method, { page: r.page, anchor: o.anchor })).join(" "),
    })),
    actions: ref.actions.operations.map((o) => ({ link: link(file, codeSpan(`${o.method} ${o.path}`), { page: pages.actions, anchor: o.anchor }), description: cell(file, o.description) })),
    errors: ref.errors.map((e) => ({ link: link(file, codeSpan(String(e.code)), { page: e.page, anchor: "" }), status: e.status, title: escapeMd(e.title), message: cell(file, e.message) })),
  }));
}

function operation(op: OperationDoc, file: string): string {
  return render("docs/operation.md.hbs", {
    anchor: op.anchor,
    heading: codeSpan(`${op.method} ${op.path}`),
    summary: escapeMd(op.summary),
    description: inline(file, op.description),
    access: inline(file, op.access),
    params: op.params.map((p) => ({
      name: codeSpan(p.name),
      in: p.in,
      type: cell(file, p.type),
      required: p.required ? "**yes**" : "no",
      description: [cell(file, p.description).trim(), p.constraints.map((c) => cell(file, c)).join("; ")].filter(Boolean).join(" — ") || " ",
    })),
    body: op.body ? { mediaTypes: op.body.mediaTypes.map(codeSpan).join(", "), example: json(op.body.example) } : undefined,
    curl: codeBlock(op.curl, "sh"),
    client: codeBlock(op.client, "ts"),
    status: `${op.status} ${op.statusText}`.trim(),
    responseType: op.responseType ? codeSpan(op.responseType) : "",
    response: op.response === undefined ? "" : json(op.response),
    errors: op.errors.map((e) => `${link(file, codeSpan(String(e.code)), e.target)} ${escapeMd(e.title)} (${e.status})`).join(" · "),
  });
}

function resourcePage(ref: Reference, pages: Pages, page: string): string {
  const file = `${page}.md`;
  const r = ref.resources.find((x) => x.page === page)!;
  return noticed(
    pages,
    file,
    render("docs/resource.md.hbs", {
      home: link(file, escapeMd(ref.title), { page: pages.index, anchor: "" }),
      title: escapeMd(r.title),
      collection: codeSpan(`/${r.collection}`),
      description: inline(file, r.description),
      facts: r.facts.map((f) => ({ label: escapeMd(f.label), value: cell(file, f.value) })),
      access: r.access.map((a) => ({ action: a.action, roles: cell(file, a.roles) })),
      fields: r.fields.value.map((f) => ({
        anchor: f.anchor,
        name: codeSpan(f.name).replace(/\|/g, "\\|"),
        type: cell(file, f.type),
        required: f.required ? "**yes**" : "no",
        description: cell(file, f.description),
        constraints: f.constraints.map((c) => cell(file, c)).join("; ") || " ",
      })),
      links: r.links.value.map((l) => ({
        name: link(file, codeSpan(l.name), { page, anchor: l.fieldAnchor }),
        target: link(file, escapeMd(l.targetName), l.target),
        kind: l.kind,
        description: inline(file, l.description),
      })),
      clientLink: link(file, "the typed client", { page: pages.index, anchor: "client" }),
      clientSetup: codeBlock(r.clientSetup, "ts"),
    }) + r.operationDocs.value.map((op) => operation(op, file)).join("")
  );
}

function actionsPage(ref: Reference, pages: Pages, file: string): string {
  return noticed(
    pages,
    file,
    render("docs/actions.md.hbs", {
      home: link(file, escapeMd(ref.title), { page: pages.index, anchor: "" }),
      description: inline(file, ref.actions.description),
      operations: ref.actions.operations.length > 0,
      clientLink: link(file, "the typed client", { page: pages.index, anchor: "client" }),
      clientSetup: codeBlock(ref.actions.clientSetup, "ts"),
    }) + ref.actions.operations.map((op) => operation(op, file)).join("")
  );
}

function errorPage(ref: Reference, e: ErrorPage, file: string): string {
  return render("docs/error.md.hbs", {
    home: link(file, escapeMd(ref.title), { page: PAGES.index, anchor: "" }),
    catalog: link(file, "Error codes", { page: PAGES.index, anchor: "errors" }),
    code: e.code,
    title: escapeMd(e.title),
    message: inline(file, e.message),
    status: `${e.status} ${e.statusText}`.trim(),
    key: codeSpan(e.key),
    origin: e.builtin ? "built in" : "specific to this service",
    info: codeSpan(e.info),
    condition: inline(file, e.condition),
    everyOperation: e.everyOperation,
    operations: e.operations.map((line) => inline(file, line)),
    dev: inline(file, e.dev),
    example: json(e.example),
  });
}

/**
 * The notice of an older version's page, as a quote before it ("" otherwise). (Markdown has no layout to hold
 * a version switch: the notice links the changelog, which links every version's reference.)
 */
function noticed(pages: Pages, file: string, page: string): string {
  if (!pages.notice.length) return page;
  const end = page.indexOf("\n") + 1;
  return `${page.slice(0, end)}> ${inline(file, pages.notice)}\n\n${page.slice(end)}`;
}

/** changelog.md: the HTML changelog's content. */
function changelogPage(ref: Reference, versions: DocsVersions, file: string): string {
  const log = versions.changelog;
  const lines = [`${link(file, escapeMd(ref.title), { page: PAGES.index, anchor: "" })} › Changelog`, "", "# Changelog", "", inline(file, log.intro), ""];
  for (const v of log.versions) {
    lines.push(`## ${escapeMd(v.heading)}`, "");
    if (v.reference) lines.push(`${link(file, "Reference", v.reference)} · [${codeSpan(v.openapi!)}](${relativePath(file, v.openapi!)})`, "");
    if (v.changes.length) lines.push(...v.changes.map((c) => `- ${inline(file, c)}`), "");
    else lines.push(inline(file, v.empty), "");
  }
  return `<!-- Generated by resourcery from the definitions of this service. Do not edit: regenerate. -->\n${lines.join("\n")}`;
}
