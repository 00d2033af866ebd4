/**
 * `resourcery generate DIR --out OUT`, run without loading oclif (oclif alone takes longer than an
 * up-to-date check, and a tenth of a full generation of 100 resources). Only the plain form is
 * recognized — `generate`, at most one folder, `--out OUT` / `--out=OUT` / `-o OUT`, nothing else;
 * any other argument goes through oclif and the command, which prints through the same functions
 * (test/e2e/up-to-date.test.ts compares the two).
 */
import fs from "node:fs";
import path from "node:path";
import { generate } from "../generate.js";
import { mark } from "../timing.js";
import { reportFailure, reportGenerate } from "./report.js";

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

/**
 * Runs a plain `generate` (see plainGenerate) as the command would, printing the same lines and
 * setting the same exit code; returns false, having done nothing, for any other invocation.
 */
export async function runPlainGenerate(args: readonly string[]): Promise<boolean> {
  const plain = plainGenerate(args);
  if (!plain) return false;
  const dir = path.resolve(plain.dir);
  try {
    if (!fs.statSync(dir).isDirectory()) return false; // the command's usage error
  } catch {
    return false;
  }
  mark("plain form, no oclif");
  try {
    const result = await generate(dir, { out: plain.out });
    process.exitCode = reportGenerate(result, false, (line) => process.stdout.write(`${line}\n`));
  } catch (error) {
    process.exitCode = reportFailure("generate", error);
  }
  return true;
}
