/**
 * A renamed collection carries the user's code along (CONTRACT §5): a resource whose schema file is the
 * same as in the last generation but whose x-collection changed is a rename, not a removal and an addition.
 * Its hook file moves to the new name, and the generated type names of the resource (`Book`, `BookInput`,
 * …) are renamed wherever the user's files use them, with ts-morph's rename (the language service finds
 * every reference, through the generated modules' re-exports); every other line stays as the user wrote it.
 */
import fs from "node:fs";
import path from "node:path";
import type { EmittedFile } from "../emit/emitted-file.js";
import { resourceTypeNames } from "../model/names.js";
import type { Plan, Step } from "../write/plan.js";
import type { Rename } from "./identities.js";
import { userSourceFiles } from "./type-check.js";

/** The hook file of a collection. */
const hookFile = (collection: string) => `src/hooks/${collection}.ts`;

/**
 * `plan` with the renames carried out in the user's files: each renamed collection's hook file moved to the
 * new name (instead of a fresh seed there and the old one orphaned), and the resource's type names renamed
 * in every file of the user's that uses them (update steps of the user's files). `out` is the package.
 */
export async function carryRenames(out: string, plan: Plan, renames: readonly Rename[]): Promise<Plan> {
  if (renames.length === 0) return plan;
  const { Project } = await import("ts-morph");
  const project = new Project({ tsConfigFilePath: path.join(out, "tsconfig.json"), skipAddingFilesFromTsConfig: true, skipFileDependencyResolution: true });
  const users = userSourceFiles(out);
  for (const rel of users) project.addSourceFileAtPath(path.join(out, rel));
  // The generated modules the user's files reach the type names through, as the current generation wrote them.
  for (const rel of ["src/generated/types.ts", "src/generated/errors.ts", "src/generated/handlers.ts", "client/types.ts"]) {
    if (fs.existsSync(path.join(out, rel))) project.addSourceFileAtPath(path.join(out, rel));
  }
  const declarations = project.getSourceFile(path.join(out, "client/types.ts"));
  const renamedNames = new Map<string, string[]>();
  for (const r of renames) {
    const olds = resourceTypeNames(r.from.name);
    const news = resourceTypeNames(r.to.name);
    olds.forEach((old, i) => {
      const next = news[i]!;
      if (old === next || declarations === undefined) return;
      const declaration = declarations.getTypeAlias(old) ?? declarations.getInterface(old);
      if (declaration === undefined) return;
      // Which of the user's files use it, before the rename changes them.
      for (const ref of declaration.getNameNode().findReferencesAsNodes()) {
        const rel = path.relative(out, ref.getSourceFile().getFilePath()).split(path.sep).join("/");
        if (!users.includes(rel)) continue;
        const list = renamedNames.get(rel) ?? [];
        if (!list.includes(`${old} → ${next}`)) list.push(`${old} → ${next}`);
        renamedNames.set(rel, list);
      }
      declaration.rename(next);
    });
  }
  const textOf = (rel: string) => project.getSourceFile(path.join(out, rel))?.getFullText();
  const moves = new Map(renames.filter((r) => r.from.collection !== r.to.collection).map((r) => [hookFile(r.from.collection), hookFile(r.to.collection)]));
  const movedTo = new Set(moves.values());
  const steps: Step[] = [];
  for (const step of plan.steps) {
    // The new collection's seed is replaced by the user's moved file; a file the user has there already stays.
    if (step.kind === "create" && step.file.owner === "user" && movedTo.has(step.file.path)) {
      const from = [...moves].find(([, to]) => to === step.file.path)![0];
      if (fs.existsSync(path.join(out, from))) {
        const names = renamedNames.get(from);
        const file: EmittedFile = { path: step.file.path, owner: "user", contents: textOf(from) ?? fs.readFileSync(path.join(out, from), "utf8") };
        steps.push({ kind: "create", file, movedFrom: from, ...(names ? { renamed: names.join(", ") } : {}) });
        continue;
      }
    }
    if (step.kind === "keep" && step.file.owner === "user" && renamedNames.has(step.file.path)) {
      const contents = textOf(step.file.path);
      if (contents !== undefined) {
        steps.push({ kind: "update", file: { path: step.file.path, owner: "user", contents }, renamed: renamedNames.get(step.file.path)!.join(", ") });
        continue;
      }
    }
    steps.push(step);
  }
  // The old hook file of each move is deleted (an orphan step until now; it may come before the create it moves to).
  const moved = new Set(steps.flatMap((s) => (s.kind === "create" && "movedFrom" in s && s.movedFrom !== undefined ? [s.movedFrom] : [])));
  const final = steps.map((s) => (s.kind === "orphan" && moved.has(s.path) ? ({ kind: "delete", path: s.path, movedTo: moves.get(s.path)! } as const) : s));
  return { ...plan, steps: final };
}
