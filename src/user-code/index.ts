/**
 * What a regeneration checks of the user's code before it writes (CONTRACT §5): whether the user's files
 * still compile against the new generation. This module is light; TypeScript (ts-morph) is loaded by
 * type-check.ts only when a generated file the user's files depend on changes.
 */
import fs from "node:fs";
import path from "node:path";
import type { Diagnostic } from "../diagnostics/diagnostic.js";
import type { SourceText } from "../diagnostics/locate.js";
import { report } from "../diagnostics/report.js";
import type { Plan } from "../write/plan.js";
import type { ContractChange } from "../versions/classify.js";

/** The user's files that would no longer compile, as diagnostics, and their texts (to place them). */
export interface UserCodeFindings {
  readonly diagnostics: readonly Diagnostic[];
  readonly sources: ReadonlyMap<string, SourceText>;
  /** True when the check ran (a generated file the user's files depend on changes); false when it was skipped. */
  readonly checked: boolean;
}

const NONE: UserCodeFindings = { diagnostics: [], sources: new Map(), checked: false };

/**
 * Type-checks the user's files of `out` against the generation `plan` would write, when a generated file
 * they depend on changes; each error it would cause is one `user-code` diagnostic at the user's file, line
 * and column, with the schema change behind it when `changes` (the wire contract's) has one that fits.
 */
export async function userCodeFindings(out: string, plan: Plan, changes: readonly ContractChange[]): Promise<UserCodeFindings> {
  const { generatedDependencies, typeErrors, userSourceFiles } = await import("./type-check.js");
  const next = new Map<string, string | null>();
  const users = new Map<string, string>();
  for (const rel of userSourceFiles(out)) users.set(rel, fs.readFileSync(path.join(out, rel), "utf8"));
  for (const step of plan.steps) {
    if (step.kind === "delete" && /\.(c|m)?tsx?$/.test(step.path)) next.set(step.path, null);
    if ((step.kind !== "create" && step.kind !== "update") || !("contents" in step.file) || !/\.(c|m)?tsx?$/.test(step.file.path)) continue;
    if (step.file.owner === "generated") next.set(step.file.path, step.file.contents);
    else if (step.file.path.startsWith("src/")) {
      // A seed the new generation adds (a new resource's hooks): the user's from now on, checked with the rest.
      users.set(step.file.path, step.file.contents);
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
  const dependencies = generatedDependencies(users, contentOf);
  if (![...dependencies].some((f) => next.has(f))) return NONE;
  const errors = await typeErrors(out, users, next);
  const sources = new Map<string, SourceText>();
  const diagnostics = errors.map((e) => {
    if (!sources.has(e.file)) sources.set(e.file, { text: users.get(path.relative(out, e.file).split(path.sep).join("/")) ?? fs.readFileSync(e.file, "utf8"), tree: undefined });
    return report("user-code", { file: e.file, pointer: "", offset: e.offset }, { message: e.message, ts: e.code, cause: causeOf(e.message, changes) });
  });
  return { diagnostics, sources, checked: true };
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
