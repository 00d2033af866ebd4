/**
 * `resourcery generate DIR --out OUT` when nothing changed, answered before oclif loads (oclif
 * alone takes longer than the whole up-to-date check). Only the plain form is recognized —
 * `generate`, at most one folder, `--out OUT` / `--out=OUT` / `-o OUT`, nothing else; any other
 * argument, and any generation that is not up to date, goes through oclif and the full command,
 * which prints the same lines for an up-to-date generation (test/e2e/up-to-date.test.ts compares).
 */
import fs from "node:fs";
import path from "node:path";
import { mark } from "../timing.js";
import { upToDate } from "../write/inputs.js";
import { planLines } from "./plan-text.js";

/** The folder and output of a plain `generate` invocation (arguments after "generate"), or undefined. */
export function plainGenerate(args: readonly string[]): { dir: string; out: string } | undefined {
  let dir: string | undefined;
  let out: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === "--out" || a === "-o") {
      if (out !== undefined || i + 1 >= args.length || args[i + 1]!.startsWith("-")) return undefined;
      out = args[++i];
    } else if (a.startsWith("--out=")) {
      if (out !== undefined) return undefined;
      out = a.slice("--out=".length);
    } else if (a.startsWith("-") || dir !== undefined) {
      return undefined;
    } else {
      dir = a;
    }
  }
  return out ? { dir: dir ?? ".", out } : undefined;
}

/** Prints the plan and returns true when `args` is a plain generate of an up-to-date OUT; else false (nothing printed). */
export function generateIfUpToDate(args: readonly string[]): boolean {
  const plain = plainGenerate(args);
  if (!plain) return false;
  const dir = path.resolve(plain.dir);
  try {
    if (!fs.statSync(dir).isDirectory()) return false;
  } catch {
    return false;
  }
  const same = upToDate(dir, path.resolve(plain.out), "service");
  if (!same) return false;
  mark("up-to-date (fast path)");
  process.stdout.write(planLines(same.steps, false).join("\n") + "\n");
  return true;
}
