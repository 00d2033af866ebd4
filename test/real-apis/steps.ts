/**
 * The steps the real-API runner (run.ts) and its test take with one converted API, each as a user would:
 * `resourcery check` and `generate` as whole processes under a heap limit and a timeout, classified as
 * accepted, rejected (with diagnostics) or crashed; `tsc` on the generated package; starting it; and the
 * API's own examples sent over HTTP (POST when they fit the documented body, then GET back).
 */
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { runProcess, type MemoryProbe, type ProcessResult } from "../../bench/generation.js";
import { freePort, linkModules } from "../helpers/package.js";
import type { Conversion } from "./convert.js";

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
/** The CLI of resourcery in `dir` (default this checkout, built): another build can be measured the same way. */
export function cliIn(dir: string = root): string {
  return path.join(dir, "bin", "run.js");
}
const tsc = path.join(root, "node_modules", "typescript", "bin", "tsc");

/** Each process's limits: the heap of its node and the wall-clock time before its process group is killed. */
export interface Limits {
  readonly heapMb: number;
  readonly timeoutMs: number;
}
export const DEFAULT_LIMITS: Limits = { heapMb: 4096, timeoutMs: 300_000 };

/** One line of `--json` output. */
export interface Diagnostic {
  readonly file: string;
  readonly line: number;
  readonly column: number;
  readonly pointer: string;
  readonly rule: string;
  readonly severity: string;
  readonly message: string;
}

/** What `check` or `generate` did: accepted (exit 0), rejected (exit 1 with error diagnostics) or crashed. */
export interface CliOutcome {
  readonly outcome: "accepted" | "rejected" | "crashed";
  readonly ms: number;
  readonly rssMb: number | undefined;
  readonly diagnostics: readonly Diagnostic[];
  /** Why it counts as a crash: a timeout, out of memory, a stack trace, an exit without diagnostics. */
  readonly crash?: string;
}

// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-9;]*[A-Za-z]/g;
const STACK_LINE = /^\s+at .+(:\d+:\d+\)?|\(native\))$/m;

function firstLine(text: string): string | undefined {
  return text.replace(ANSI, "").split("\n").map((l) => l.trim()).find((l) => l.length > 0);
}

function mb(kb: number | undefined): number | undefined {
  return kb === undefined ? undefined : Math.round(kb / 1024);
}

/** The diagnostics of `check --json` (an array) or `generate --json` ({ diagnostics }), or undefined. */
function diagnosticsOf(stdout: string): Diagnostic[] | undefined {
  try {
    const parsed = JSON.parse(stdout) as unknown;
    if (Array.isArray(parsed)) return parsed as Diagnostic[];
    if (parsed && typeof parsed === "object" && Array.isArray((parsed as { diagnostics?: unknown }).diagnostics)) return (parsed as { diagnostics: Diagnostic[] }).diagnostics;
  } catch {
    /* not JSON: a crash, below */
  }
  return undefined;
}

/** Classifies a finished resourcery process. */
export function classify(r: ProcessResult, limits: Limits): CliOutcome {
  const base = { ms: Math.round(r.ms), rssMb: mb(r.rssKb) };
  const diagnostics = diagnosticsOf(r.stdout) ?? [];
  if (r.timedOut) return { ...base, outcome: "crashed", diagnostics, crash: `timed out after ${limits.timeoutMs / 1000} s` };
  const text = `${r.stderr}\n${r.stdout}`;
  if (/heap out of memory|Allocation failed|Reached heap limit/.test(text)) {
    return { ...base, outcome: "crashed", diagnostics, crash: `out of memory at a ${limits.heapMb} MB heap after ${Math.round(r.ms / 1000)} s` };
  }
  if (STACK_LINE.test(r.stderr) || STACK_LINE.test(r.stdout)) {
    const at = r.stderr.replace(ANSI, "").split("\n").find((l) => /error/i.test(l)) ?? firstLine(r.stderr) ?? "";
    return { ...base, outcome: "crashed", diagnostics, crash: `stack trace (exit ${r.code}): ${at.trim().slice(0, 200)}` };
  }
  if (r.code === 0 && diagnosticsOf(r.stdout) !== undefined) return { ...base, outcome: "accepted", diagnostics };
  if (r.code === 1 && diagnostics.some((d) => d.severity === "error")) return { ...base, outcome: "rejected", diagnostics };
  const said = firstLine(r.stderr) ?? firstLine(r.stdout) ?? "no output";
  return { ...base, outcome: "crashed", diagnostics, crash: `exit ${r.code ?? "by a signal"} without diagnostics: ${said.slice(0, 200)}` };
}

/** `resourcery check DIR --json`, or `generate DIR --out OUT --json`, as a whole process. */
export async function runResourcery(command: "check" | "generate", defs: string, out: string | undefined, limits: Limits, memory: MemoryProbe, cli = cliIn()): Promise<CliOutcome> {
  const args = [`--max-old-space-size=${limits.heapMb}`, cli, command, defs, ...(out ? ["--out", out] : []), "--json"];
  return classify(await runProcess(args, root, memory, { timeoutMs: limits.timeoutMs }), limits);
}

/** What `tsc -p tsconfig.json` made of a generated package. */
export interface BuildOutcome {
  readonly ok: boolean;
  readonly ms: number;
  readonly rssMb: number | undefined;
  /** TypeScript error codes and how often each occurred. */
  readonly codes: ReadonlyMap<string, number>;
  readonly first?: string;
}

/** Builds a generated package with resourcery's TypeScript, its node_modules linked to resourcery's. */
export async function build(out: string, limits: Limits, memory: MemoryProbe): Promise<BuildOutcome> {
  linkModules(out);
  const r = await runProcess([`--max-old-space-size=${limits.heapMb}`, tsc, "-p", "tsconfig.json", "--pretty", "false"], out, memory, { timeoutMs: limits.timeoutMs * 2 });
  const codes = new Map<string, number>();
  let first: string | undefined;
  for (const m of r.stdout.matchAll(/^(.*?)\(\d+,\d+\): error (TS\d+): (.*)$/gm)) {
    codes.set(m[2]!, (codes.get(m[2]!) ?? 0) + 1);
    first ??= `${m[1]}: ${m[2]} ${m[3]!.slice(0, 160)}`;
  }
  const ok = r.code === 0 && !r.timedOut;
  if (!ok && !first) first = r.timedOut ? `timed out after ${(limits.timeoutMs * 2) / 1000} s` : (firstLine(r.stderr) ?? firstLine(r.stdout) ?? `exit ${r.code}`);
  return { ok, ms: Math.round(r.ms), rssMb: mb(r.rssKb), codes, ...(first ? { first } : {}) };
}

/** A started generated service. */
export interface Service {
  readonly base: string;
  readonly secret: string;
  /** From spawning node to the first HTTP answer. */
  readonly firstAnswerMs: number;
  readonly log: () => string;
  stop(): Promise<void>;
}

/** Creates an API key and starts the built package; rejects with the service's output when it does not answer. */
export async function startService(out: string, work: string, firstCollection: string, timeoutMs = 120_000): Promise<Service> {
  const env = { ...process.env, KEYS_FILE: path.join(work, "keys.json"), DATABASE_FILE: path.join(work, "data", "service.db"), LOG_LEVEL: "warn", NO_COLOR: "1" };
  fs.rmSync(path.join(work, "data"), { recursive: true, force: true });
  fs.rmSync(env.KEYS_FILE, { force: true });
  const keys = await new Promise<{ code: number | null; out: string }>((resolve) => {
    const child = spawn(process.execPath, ["dist/src/generated/runtime/keys-cli.js", "create", "--roles", "admin"], { cwd: out, env, stdio: ["ignore", "pipe", "pipe"] });
    let text = "";
    child.stdout.on("data", (d) => (text += d));
    child.stderr.on("data", (d) => (text += d));
    child.on("close", (code) => resolve({ code, out: text }));
  });
  if (keys.code !== 0) throw new Error(`npm run keys failed: ${firstLine(keys.out) ?? `exit ${keys.code}`}`);
  const secret = (JSON.parse(keys.out.trim().split("\n").pop()!) as { secret: string }).secret;
  const port = await freePort();
  const base = `http://127.0.0.1:${port}/v1`;
  const started = process.hrtime.bigint();
  const child: ChildProcess = spawn(process.execPath, ["dist/src/main.js"], { cwd: out, env: { ...env, PORT: String(port), HOST: "127.0.0.1", BASE_URL: base }, stdio: ["ignore", "pipe", "pipe"] });
  let log = "";
  child.stdout!.on("data", (d) => (log += d));
  child.stderr!.on("data", (d) => (log += d));
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once("exit", () => resolve());
      child.kill("SIGTERM");
      setTimeout(() => child.kill("SIGKILL"), 10_000).unref();
    });
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`exited with ${child.exitCode}: ${startError(log)}`);
    try {
      await fetch(`${base}/${firstCollection}`, { headers: { authorization: `Bearer ${secret}` } });
      break;
    } catch {
      if (Date.now() > deadline) {
        await stop();
        throw new Error(`no answer after ${timeoutMs / 1000} s: ${startError(log)}`);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  const firstAnswerMs = Math.round(Number(process.hrtime.bigint() - started) / 1e6);
  return { base, secret, firstAnswerMs, log: () => log, stop };
}

/** The line of a dying service's output that says why (an Error line), else its first line. */
function startError(log: string): string {
  const lines = log.replace(ANSI, "").split("\n").map((l) => l.trim());
  return (lines.find((l) => /^(\w*Error|Error)\b|"msg":".*error/i.test(l)) ?? lines.find((l) => l.length > 0) ?? "no output").slice(0, 240);
}

/** How the API's own examples fared over HTTP. */
export interface RoundTrip {
  /** Resources that have at least one example. */
  readonly resources: number;
  readonly examples: number;
  /** Examples valid against the API's own (converted) schema. */
  readonly validOwn: number;
  /** Examples whose body (server-owned names removed) the service's documented create body accepts: POSTed. */
  readonly fitBody: number;
  readonly created: number;
  /** Created and read back with every sent property equal (defaults filled in, writeOnly left out; see readsBack). */
  readonly readBack: number;
  /** The first few failures, for the README. */
  readonly failures: readonly string[];
}

/** The names the server owns: left out of a POST body, as a client does (CONTRACT.md §2). */
const SERVER_OWNED = ["id", "meta", "createdAt", "modifiedAt"];

function isObject(x: unknown): x is JsonObject {
  return typeof x === "object" && x !== null && !Array.isArray(x);
}

/** JSON with object keys sorted, so that equal values print equal. */
function canonical(x: Json | undefined): string {
  if (Array.isArray(x)) return `[${x.map(canonical).join(",")}]`;
  if (isObject(x)) return `{${Object.keys(x).sort().map((k) => `${JSON.stringify(k)}:${canonical(x[k])}`).join(",")}}`;
  return JSON.stringify(x) ?? "undefined";
}

/** Whether what was read back holds what was sent: equal values, or for a link the same href. */
function same(sent: Json | undefined, got: Json | undefined): boolean {
  if (isObject(sent) && isObject(sent.meta) && typeof sent.meta.href === "string") return isObject(got) && isObject(got.meta) && got.meta.href === sent.meta.href;
  return canonical(sent) === canonical(got);
}

/**
 * Whether a sent value reads back: `same`, or, for a list of links the service represents as a link to a
 * sub-collection (CONTRACT §6), that sub-collection's items are the links sent, in any order.
 */
async function readsBack(sent: Json | undefined, got: Json | undefined, headers: Record<string, string>): Promise<boolean> {
  if (same(sent, got)) return true;
  if (!Array.isArray(sent) || !isObject(got) || !isObject(got.meta) || typeof got.meta.href !== "string") return false;
  const res = await fetch(`${got.meta.href}?limit=100`, { headers });
  const page = res.status === 200 ? ((await res.json()) as JsonObject) : undefined;
  if (!page || !Array.isArray(page.items)) return false;
  const hrefs = (list: Json[]) => list.map((x) => (isObject(x) && isObject(x.meta) ? String(x.meta.href) : canonical(x))).sort().join("\n");
  return hrefs(sent) === hrefs(page.items);
}

const SCHEMA_BASE = "https://real-apis.invalid/";

function newAjv(options: { useDefaults?: boolean } = {}): Ajv2020 {
  const ajv = new Ajv2020({ strict: false, validateSchema: false, allErrors: false, logger: false, unicodeRegExp: true, ...options });
  addFormats(ajv);
  return ajv;
}

/** A validator for a project's schema file, or undefined when ajv cannot compile it. */
function ownValidator(ajv: Ajv2020, file: string) {
  try {
    return ajv.compile({ $ref: `${SCHEMA_BASE}${file}` });
  } catch {
    return undefined;
  }
}

/**
 * Sends each resource's examples (at most `perResource` each): an example valid for the documented create
 * body (without the server-owned names and the properties the API's schema marks readOnly) is POSTed, and the instance GET back must hold every sent property.
 */
export async function roundTrip(service: Service, out: string, conversion: Conversion, examples: ReadonlyMap<string, Json[]>, perResource: number): Promise<RoundTrip> {
  const own = newAjv();
  const filler = newAjv({ useDefaults: true });
  for (const [file, json] of conversion.files) {
    if (!file.startsWith("schemas/")) continue;
    own.addSchema(json as object, `${SCHEMA_BASE}${file}`);
    filler.addSchema(json as object, `${SCHEMA_BASE}${file}`);
  }
  const docAjv = newAjv();
  const doc = JSON.parse(fs.readFileSync(path.join(out, "docs", "openapi.json"), "utf8")) as JsonObject;
  docAjv.addSchema(doc as object, `${SCHEMA_BASE}openapi.json`);
  const withRefsToDoc = (schema: Json): Json => JSON.parse(JSON.stringify(schema).replace(/"\$ref":"#\//g, `"$ref":"${SCHEMA_BASE}openapi.json#/`)) as Json;

  let resources = 0, count = 0, validOwn = 0, fitBody = 0, created = 0, readBack = 0;
  const failures: string[] = [];
  const fail = (text: string) => failures.length < 8 && failures.push(text);
  const headers = { authorization: `Bearer ${service.secret}`, "content-type": "application/json", accept: "application/json" };
  for (const r of conversion.summary.resources) {
    const list = (examples.get(r.schema) ?? []).slice(0, perResource);
    if (list.length === 0) continue;
    resources++;
    const validate = ownValidator(own, r.file);
    // What the API's own schema marks readOnly is the server's to set: a client leaves it out of a create body.
    const written = conversion.files.get(r.file);
    const declared = isObject(written) && isObject(written.properties) ? written.properties : {};
    const readOnly = new Set(Object.entries(declared).filter(([, p]) => isObject(p) && p.readOnly === true).map(([k]) => k));
    // And what it marks writeOnly is never represented: it is not read back.
    const writeOnly = new Set(Object.entries(declared).filter(([, p]) => isObject(p) && p.writeOnly === true).map(([k]) => k));
    const withDefaults = ownValidator(filler, r.file);
    const paths = isObject(doc.paths) ? doc.paths : {};
    const post = isObject(paths[`/${r.collection}`]) ? (paths[`/${r.collection}`] as JsonObject).post : undefined;
    const bodySchema = isObject(post) ? createBodySchema(doc, post) : undefined;
    let fits: ((x: unknown) => boolean) | undefined;
    try {
      if (bodySchema === undefined) fail(`${r.collection}: no POST with an application/json body in docs/openapi.json`);
      else fits = docAjv.compile(withRefsToDoc(bodySchema) as object);
    } catch (e) {
      fail(`${r.collection}: the documented create body does not compile in ajv: ${(e as Error).message.slice(0, 120)}`);
    }
    for (const example of list) {
      count++;
      if (validate?.(example)) validOwn++;
      if (!isObject(example)) continue;
      const body = Object.fromEntries(Object.entries(example).filter(([k]) => !SERVER_OWNED.includes(k) && !readOnly.has(k)));
      if (!fits || !fits(body)) {
        const errors = (fits as { errors?: { instancePath: string; message?: string; params?: Record<string, unknown> }[] } | undefined)?.errors;
        if (validate?.(example) && errors?.[0]) {
          const e = errors[0];
          const which = e.params?.additionalProperty ?? e.params?.missingProperty;
          fail(`${r.collection}: a valid example does not fit the create body: ${e.instancePath || "/"} ${e.message}${which !== undefined ? ` (${String(which)})` : ""}`);
        }
        continue;
      }
      fitBody++;
      const posted = await fetch(`${service.base}/${r.collection}`, { method: "POST", headers, body: JSON.stringify(body) });
      const answer = (await posted.json().catch(() => undefined)) as JsonObject | undefined;
      if (posted.status !== 201) {
        fail(`${r.collection}: POST ${posted.status} ${answer?.code ?? ""} ${answer?.property ?? ""}: ${String(answer?.message ?? "").slice(0, 100)} ${String(answer?.dev ?? "").slice(0, 120)}`);
        continue;
      }
      created++;
      const location = posted.headers.get("location");
      const got = location ? await fetch(location, { headers }) : undefined;
      const instance = got && got.status === 200 ? ((await got.json()) as JsonObject) : undefined;
      // What the service stores is the body with the schema's defaults filled in, as the API's own schema fills them.
      const expected = structuredClone(body);
      withDefaults?.(expected);
      let differing: string | undefined = instance ? undefined : "(no instance)";
      for (const k of instance ? Object.keys(expected).filter((k) => !writeOnly.has(k)) : []) {
        if (!(await readsBack(expected[k], instance![k], headers))) {
          differing = k;
          break;
        }
      }
      if (differing === undefined) readBack++;
      else fail(`${r.collection}: read back differs at ${differing}${got ? ` (GET ${got.status})` : ""}`);
    }
  }
  return { resources, examples: count, validOwn, fitBody, created, readBack, failures };
}

/** The JSON schema of a POST's requestBody (through a components.requestBodies ref), with refs into the doc. */
function createBodySchema(doc: JsonObject, post: JsonObject): Json | undefined {
  let body = post.requestBody;
  if (isObject(body) && typeof body.$ref === "string") {
    const name = decodeURIComponent(body.$ref.split("/").pop()!);
    body = isObject(doc.components) && isObject(doc.components.requestBodies) ? doc.components.requestBodies[name] : undefined;
  }
  if (!isObject(body) || !isObject(body.content)) return undefined;
  const json = body.content["application/json"];
  return isObject(json) ? json.schema : undefined;
}
