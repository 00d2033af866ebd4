/**
 * What a regeneration checks of the user's code before it writes (CONTRACT §5): whether the user's files
 * still compile against the new generation. This module is light: TypeScript (ts-morph) is loaded in a
 * worker thread (worker.ts), started as soon as generate knows it regenerates a package with code of the
 * user's in it, so that it reads that code while the definitions are checked and emitted; it is asked only
 * when a file the user's code depends on changes, and stopped otherwise.
 */
import fs from "node:fs";
import path from "node:path";
import { Worker } from "node:worker_threads";
import type { Diagnostic } from "../diagnostics/diagnostic.js";
import type { SourceText } from "../diagnostics/locate.js";
import { report } from "../diagnostics/report.js";
import type { ContractChange } from "../versions/classify.js";
import { hashOf, type Manifest } from "../write/manifest.js";
import type { Plan } from "../write/plan.js";
import type { UserCodeReply, UserCodeRequest } from "./worker.js";

/** The user's files that would no longer compile, as diagnostics, and their texts (to place them). */
export interface UserCodeFindings {
  readonly diagnostics: readonly Diagnostic[];
  readonly sources: ReadonlyMap<string, SourceText>;
  /** True when the check ran (a file the user's files depend on changes); false when it was skipped. */
  readonly checked: boolean;
}

const NONE: UserCodeFindings = { diagnostics: [], sources: new Map(), checked: false };

/** Where the user's code lives in a package, and what of it is not the user's. */
const SOURCE = "src";
const TS_FILE = /\.(c|m)?tsx?$/;

// From dist/ the worker is worker.js; when src/ runs through tsx (tests, bin/dev.js), worker.ts.
const fromSource = import.meta.url.endsWith(".ts");
const workerFile = new URL(fromSource ? "./worker.ts" : "./worker.js", import.meta.url);

/** The user-code check of one regeneration, its worker started. */
export class UserCodeCheck {
  private worker: Worker | undefined;

  private constructor(
    private readonly out: string,
    /** The user's files still as the last generation seeded them (path → the seed's hash). */
    private readonly seeded: ReadonlyMap<string, string>,
    /** The user's files when the check started. */
    private readonly files: ReadonlySet<string>,
  ) {}

  /**
   * Starts the check's worker on `out` when it holds code the user wrote (a .ts file under src/ outside
   * src/generated/ that is not a seed as the last generation wrote it); undefined when it holds no code of
   * the user's at all. Seeds left as they were compile against the generation that seeds them (its own
   * tests build them): a package of untouched seeds starts no worker, and is checked only should a seed
   * the new generation writes differ from the one left in place (findings).
   */
  static async start(out: string, previous: Manifest | undefined): Promise<UserCodeCheck | undefined> {
    const { userSourceFiles } = await import("./type-check.js");
    // Not the user's: what the last generation wrote as its own outside src/generated/ (the package's src/index.ts).
    const files = userSourceFiles(out).filter((f) => previous?.files[f]?.owner !== "generated");
    if (files.length === 0) return undefined;
    const seeded = new Map<string, string>();
    for (const rel of files) {
      const entry = previous?.files[rel];
      if (entry?.owner !== "user" || entry.deleted) continue;
      try {
        if (hashOf(fs.readFileSync(path.join(out, rel))) === entry.hash) seeded.set(rel, entry.hash);
      } catch {
        // gone meanwhile: not a seed left in place
      }
    }
    const check = new UserCodeCheck(out, seeded, new Set(files));
    const written = files.filter((f) => !seeded.has(f));
    if (written.length > 0) check.startWorker(written);
    return check;
  }

  /** The worker, opening the checker on `roots` (the user's files to check, relative to `out`) against the current generation. */
  private startWorker(roots: readonly string[]): Worker {
    const workerData = { out: this.out, roots };
    let worker: Worker;
    if (!fromSource) worker = new Worker(workerFile, { workerData });
    else {
      // A worker inherits --import tsx but not the loader hooks it registers: it registers them itself first.
      const tsx = import.meta.resolve("tsx/esm/api");
      const code = `import(${JSON.stringify(tsx)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(workerFile.href)}); });`;
      worker = new Worker(code, { eval: true, workerData });
    }
    worker.unref();
    worker.on("error", () => undefined); // reported by findings()
    return (this.worker = worker);
  }

  /** Stops the worker (the check is not needed, or generate stops). */
  cancel(): void {
    if (this.worker) void this.worker.terminate();
  }

  /**
   * The errors the generation `plan` would write causes in the user's files, when a file they depend on
   * changes (else none, and the worker is stopped): one `user-code` diagnostic per error at the user's
   * file, line and column, with the schema change behind it when `changes` (the wire contract's) has one.
   */
  async findings(plan: Plan, changes: readonly ContractChange[]): Promise<UserCodeFindings> {
    const { generatedDependencies, userSourceFiles } = await import("./type-check.js");
    const { out } = this;
    const next = new Map<string, string | null>();
    const users = new Map<string, string>();
    // A seed left as it was, which the new generation seeds alike, compiles against it: not checked.
    const reseeded = new Set<string>();
    for (const step of plan.steps) if (step.kind === "keep" && this.seeded.get(step.file.path) === hashOf(step.file.contents)) reseeded.add(step.file.path);
    for (const rel of userSourceFiles(out)) if (this.files.has(rel) && !reseeded.has(rel)) users.set(rel, fs.readFileSync(path.join(out, rel), "utf8"));
    for (const step of plan.steps) {
      if (step.kind === "delete" && TS_FILE.test(step.path)) {
        next.set(step.path, null);
        users.delete(step.path); // a renamed collection's hooks, moved
      }
      if ((step.kind !== "create" && step.kind !== "update") || !("contents" in step.file) || !TS_FILE.test(step.file.path)) continue;
      if (step.file.owner === "generated") next.set(step.file.path, step.file.contents);
      else if (step.file.path.startsWith(`${SOURCE}/`)) {
        // A moved, renamed or merged file of the user's: checked as it will be. A seed the new generation adds
        // (a new resource's hooks) compiles against it: not checked, but there for the files that import it.
        if (step.kind === "update" || ("movedFrom" in step && step.movedFrom !== undefined) || ("renamed" in step && step.renamed !== undefined)) users.set(step.file.path, step.file.contents);
        next.set(step.file.path, step.file.contents);
      }
    }
    const contentOf = (rel: string): string | undefined => {
      if (next.has(rel)) return next.get(rel) ?? undefined;
      try {
        return fs.readFileSync(path.join(out, rel), "utf8");
      } catch {
        return undefined;
      }
    };
    // A generated file whose new text differs from the one on disk only in its comments (a description edited)
    // changes no type: not a change the user's code can feel.
    const changesTypes = (rel: string): boolean => {
      if (!next.has(rel)) return false;
      const now = next.get(rel);
      if (now === null || now === undefined || !GENERATED_PREFIXES.some((prefix) => rel.startsWith(prefix))) return true;
      try {
        return withoutComments(fs.readFileSync(path.join(out, rel), "utf8")) !== withoutComments(now);
      } catch {
        return true;
      }
    };
    if (users.size === 0 || ![...generatedDependencies(users, contentOf)].some(changesTypes)) {
      this.cancel();
      return NONE;
    }
    // Only seeds left in place, of which the new generation writes another: checked now, against the current generation first.
    this.worker ??= this.startWorker([...users.keys()].filter((f) => fs.existsSync(path.join(out, f))));
    const reply = await this.ask({ users, next });
    if ("failure" in reply) throw new Error(`the check of your code against the new generation failed: ${reply.failure}`);
    const sources = new Map<string, SourceText>();
    const diagnostics = reply.errors.map((e) => {
      if (!sources.has(e.file)) sources.set(e.file, { text: users.get(path.relative(out, e.file).split(path.sep).join("/")) ?? fs.readFileSync(e.file, "utf8"), tree: undefined });
      return report("user-code", { file: e.file, pointer: "", offset: e.offset }, { message: e.message, ts: e.code, cause: causeOf(e.message, changes) });
    });
    return { diagnostics, sources, checked: true };
  }

  private ask(request: UserCodeRequest): Promise<UserCodeReply> {
    const worker = this.worker!;
    worker.ref();
    return new Promise<UserCodeReply>((resolve, reject) => {
      worker.once("message", (reply: UserCodeReply) => {
        resolve(reply);
        void worker.terminate();
      });
      worker.once("error", reject);
      worker.once("exit", (code) => reject(new Error(`the user-code worker exited with code ${code} before it answered`)));
      worker.postMessage(request);
    });
  }
}

/** Where the generated TypeScript is (its comments written by resourcery alone: emit/shared/escape.ts docComment). */
const GENERATED_PREFIXES = ["src/generated/", "client/"] as const;

/**
 * A generated module's text without its comment lines: each line that starts (after indentation) with `//`,
 * and each `/** … *\/` block that starts a line and ends one, as resourcery writes its doc comments. Anything
 * else, a string that looks like a comment included, is kept: two texts that differ outside such lines are
 * never taken for the same.
 */
export function withoutComments(text: string): string {
  const lines = text.split("\n");
  const kept: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trimStart();
    if (line.startsWith("//")) continue;
    if (line.startsWith("/**")) {
      let end = i;
      while (end < lines.length && !lines[end]!.trimEnd().endsWith("*/")) end++;
      if (end < lines.length && (end === i ? line.trimEnd().length > 4 : true) && !lines.slice(i, end + 1).join("\n").slice(3, -2).includes("*/")) {
        i = end;
        continue;
      }
    }
    kept.push(lines[i]!);
  }
  return kept.join("\n");
}

/**
 * The schema change a TypeScript message is about: a change of the wire contract whose property or
 * collection the message names ('pages' in "Property 'pages' does not exist on type 'BookInput'"); "" when none fits.
 */
function causeOf(message: string, changes: readonly ContractChange[]): string {
  const named = new Set([...message.matchAll(/'([^']+)'|"([^"]+)"/g)].map((m) => m[1] ?? m[2]!));
  const change = changes.find((c) => named.has(c.subject.slice(c.subject.lastIndexOf(".") + 1)));
  return change === undefined ? "" : `, because in the definitions ${change.subject}: ${change.what} (${change.origin.file}${change.origin.pointer === "" ? "" : `#${change.origin.pointer}`})`;
}
