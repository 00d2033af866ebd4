/**
 * Serves the package's reference docs (docs/) at /docs, without credentials: the HTML reference,
 * openapi.json, the Markdown pages; and where errorDocsUrl points on this server, a redirect to each
 * error page.
 */
import fs from "node:fs/promises";
import path from "node:path";
import type { FastifyInstance, FastifyReply } from "fastify";

const TYPES: Readonly<Record<string, string>> = {
  ".html": "text/html; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".md": "text/markdown; charset=utf-8",
  ".svg": "image/svg+xml",
};

/**
 * The file under `root` a request path names ("" → index.html, "40400" → 40400.html), or undefined.
 * @example resolveDocPath("/srv/docs", "assets/style.css") === "/srv/docs/assets/style.css"
 */
export async function resolveDocPath(root: string, requested: string): Promise<string | undefined> {
  let rel: string;
  try {
    rel = decodeURIComponent(requested).replace(/^\/+/, "");
  } catch {
    return undefined;
  }
  const candidates = rel === "" || rel.endsWith("/") ? [`${rel}index.html`] : [rel, `${rel}.html`, `${rel}/index.html`];
  for (const candidate of candidates) {
    const file = path.resolve(root, candidate);
    if (file !== root && !file.startsWith(root + path.sep)) return undefined; // never outside docs/
    try {
      if ((await fs.stat(file)).isFile()) return file;
    } catch {
      /* try the next candidate */
    }
  }
  return undefined;
}

async function sendFile(reply: FastifyReply, file: string): Promise<FastifyReply> {
  const type = TYPES[path.extname(file)] ?? "application/octet-stream";
  return reply.header("content-type", type).header("cache-control", "public, max-age=300").send(await fs.readFile(file));
}

/** Registers GET /docs/* (and errorPath/:code when the error pages live on this server). */
export function registerDocs(app: FastifyInstance, root: string, notFound: () => Error, errorPath?: string): void {
  const dir = path.resolve(root);
  const serve = async (requested: string, reply: FastifyReply) => {
    const file = await resolveDocPath(dir, requested);
    if (!file) throw notFound();
    return sendFile(reply, file);
  };
  // Public: the docs need no credentials.
  const open = { config: { access: "public" as const } };
  // "/docs" and "/docs/" reach the same route (trailing slashes are ignored); the pages' relative links need the slash.
  app.get("/docs", open, async (req, reply) => (req.url.split("?")[0] === "/docs" ? reply.redirect("/docs/", 301) : serve("", reply)));
  app.get("/docs/*", open, async (req, reply) => serve((req.params as { "*": string })["*"], reply));
  if (errorPath && errorPath !== "/docs") {
    // Redirected to the page's place under /docs/: served here, its relative links (stylesheet,
    // navigation) would resolve under errorPath instead.
    app.get(`${errorPath}/:code`, open, async (req, reply) => {
      const file = await resolveDocPath(dir, (req.params as { code: string }).code);
      if (!file) throw notFound();
      return reply.redirect(`/docs/${path.relative(dir, file).split(path.sep).map(encodeURIComponent).join("/")}`, 302);
    });
  }
}
