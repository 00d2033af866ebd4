/**
 * A service made from definitions written by the test, as its user would make it: check, generate, build with
 * tsc, a key made by its keys CLI, started on a free port. Each e2e test that serves its own definitions uses
 * this, so each states only its definitions and its requests.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { repoRoot, runCli } from "./cli.js";
import { freePort, linkModules, run, start, type Started } from "./package.js";

/** An answer of the served package: its status, headers and parsed JSON body (undefined when empty). */
export interface Reply {
  readonly status: number;
  readonly headers: Headers;
  readonly body: any;
}

export interface Served {
  /** The definitions folder, the package folder, the keys file the service reads. */
  readonly defs: string;
  readonly out: string;
  readonly keysFile: string;
  /** The secret of the key made at start (its roles: `roles`). */
  readonly secret: string;
  /** The service's base URL (`http://127.0.0.1:<port>/v1`). */
  readonly base: string;
  /** A request with the key made at start to `url` under the base URL (or to `url` itself when absolute); a body is sent as JSON (a merge patch for PATCH). */
  call(method: string, url: string, body?: unknown, headers?: Record<string, string>): Promise<Reply>;
  readonly server: Started;
  /** Stops the service and removes every file the helper made. */
  close(): Promise<void>;
}

/** service.json's settings for a test service (override any with `service`). */
export function serviceJson(name: string, service: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name,
    title: name,
    vendor: name.replace(/[^a-z]/g, "") || "test",
    version: 1,
    baseUrl: "http://localhost:3000/v1",
    errorDocsUrl: "http://localhost:3000/docs/errors",
    resources: ["resources/*.json"],
    auth: { schemes: ["apiKey"] },
    ...service,
  };
}

/** Writes `files` (path under the definitions folder → JSON value) into a new folder; answers it and its parent. */
export function writeDefinitions(prefix: string, files: Readonly<Record<string, unknown>>): { tmp: string; defs: string } {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), `resourcery-${prefix}-`));
  const defs = path.join(tmp, "defs");
  for (const [file, value] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(defs, file)), { recursive: true });
    fs.writeFileSync(path.join(defs, file), JSON.stringify(value, null, 2));
  }
  return { tmp, defs };
}

/**
 * Checks, generates, builds and starts the service of `files`; throws with the tool's output at the first
 * step that fails. `roles` are the roles of the key every call sends; `basePath` the path of BASE_URL (/v1).
 */
export async function serve(prefix: string, files: Readonly<Record<string, unknown>>, options: { roles?: readonly string[]; basePath?: string; env?: NodeJS.ProcessEnv } = {}): Promise<Served> {
  const { tmp, defs } = writeDefinitions(prefix, files);
  const out = path.join(tmp, "service");
  const step = (what: string, r: { code: number; output?: string; stdout?: string; stderr?: string }) => {
    if (r.code !== 0) throw new Error(`${what} exited ${r.code}:\n${r.output ?? `${r.stdout ?? ""}${r.stderr ?? ""}`}`);
  };
  step("check", runCli(["check", defs]));
  step("generate", runCli(["generate", defs, "--out", out]));
  linkModules(out);
  step("tsc", run(process.execPath, [path.join(repoRoot, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.json"], out));
  const keysFile = path.join(tmp, "keys.json");
  const key = run("npm", ["run", "--silent", "keys", "--", "create", "--roles", (options.roles ?? ["admin"]).join(",")], out, { KEYS_FILE: keysFile });
  step("keys create", key);
  const secret = (JSON.parse(key.output.trim()) as { secret: string }).secret;
  const port = await freePort();
  const base = `http://127.0.0.1:${port}${options.basePath ?? "/v1"}`;
  const server = await start(out, { PORT: String(port), BASE_URL: base, KEYS_FILE: keysFile, DATABASE_FILE: path.join(tmp, "data.db"), LOG_LEVEL: "warn", ...options.env }, `${base}/`);
  return {
    defs,
    out,
    keysFile,
    secret,
    base,
    server,
    async call(method, url, body, headers = {}) {
      const sent: Record<string, string> = { authorization: `Bearer ${secret}`, ...headers };
      if (body !== undefined && sent["content-type"] === undefined) sent["content-type"] = method === "PATCH" ? "application/merge-patch+json" : "application/json";
      const res = await fetch(/^https?:/.test(url) ? url : `${base}${url}`, { method, headers: sent, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
      const text = await res.text();
      return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
    },
    async close() {
      await server.stop();
      fs.rmSync(tmp, { recursive: true, force: true });
    },
  };
}
