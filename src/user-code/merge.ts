/**
 * What a new generation needs in a file of the user's is added to it, never rewritten (CONTRACT §5): the
 * generated wiring imports one export of each hook, action and version-converter file of the user's
 * (`hooks`, the action's handler, `converters`). A kept file that lacks it (the user renamed or removed the
 * export) would no longer compile; the seed's declaration of it, and the seed's imports the file lacks, are
 * added by AST edits (ts-morph) at the end of the file and after its imports: every line the user wrote
 * stays byte for byte. The common case, a file that has the export, is told by a cheap scan without loading
 * TypeScript.
 */
import fs from "node:fs";
import path from "node:path";
import type { EmittedFile } from "../emit/emitted-file.js";
import type { Plan, Step } from "../write/plan.js";

/** The export the generated wiring imports from a user-owned file, by the file's path; undefined for others. */
export type ExportOf = (file: string) => string | undefined;

/** True when `text` plainly exports `name` (a declaration or an export list that names it). */
function exportsPlainly(text: string, name: string): boolean {
  const n = name.replace(/[$]/g, "\\$");
  return new RegExp(`\\bexport\\s+(?:declare\\s+)?(?:const|let|var|function\\*?|async\\s+function\\*?|class)\\s+${n}\\b`).test(text) || new RegExp(`\\bexport\\s*(?:type\\s*)?\\{[^}]*\\b${n}\\b[^}]*\\}`).test(text);
}

/**
 * `plan` with the kept files of the user's that lack the export the wiring imports (`exportOf`) merged: an
 * `update` step that adds the seed's declaration (and the imports it needs) to the file as the user has it.
 */
export async function mergeNeeded(out: string, plan: Plan, exportOf: ExportOf): Promise<Plan> {
  const lacking: { step: Extract<Step, { kind: "keep" }>; name: string; text: string }[] = [];
  for (const step of plan.steps) {
    if (step.kind !== "keep" || step.file.owner !== "user") continue;
    const name = exportOf(step.file.path);
    if (name === undefined) continue;
    let text: string;
    try {
      text = fs.readFileSync(path.join(out, step.file.path), "utf8");
    } catch {
      continue;
    }
    if (!exportsPlainly(text, name)) lacking.push({ step, name, text });
  }
  if (lacking.length === 0) return plan;
  const { Project } = await import("ts-morph");
  const project = new Project({ useInMemoryFileSystem: true, compilerOptions: { allowJs: false } });
  const merged = new Map<string, { file: EmittedFile; added: string }>();
  for (const { step, name, text } of lacking) {
    const mine = project.createSourceFile(`/user/${step.file.path}`, text, { overwrite: true });
    // The AST says for certain: an export the scan missed (an `export default`, a re-export) is no lack.
    if (mine.getExportedDeclarations().has(name)) continue;
    const seed = project.createSourceFile(`/seed/${step.file.path}`, step.file.contents, { overwrite: true });
    const declaration = seed.getExportedDeclarations().get(name)?.[0];
    const statement = declaration?.getFirstAncestor((a) => a.getParent() === seed) ?? declaration;
    if (statement === undefined) continue;
    const imported = new Set(mine.getImportDeclarations().map((i) => i.getText()));
    const imports = seed.getImportDeclarations().filter((i) => !imported.has(i.getText()) && !mine.getImportDeclarations().some((m) => m.getModuleSpecifierValue() === i.getModuleSpecifierValue() && sameNames(m.getText(), i.getText())));
    const lastImport = mine.getImportDeclarations().at(-1);
    // New imports go after the user's last one (or at the top); the declaration at the end, after a blank line.
    if (imports.length > 0) mine.insertText(lastImport ? lastImport.getEnd() : 0, (lastImport ? "\n" : "") + imports.map((i) => i.getText()).join("\n") + (lastImport ? "" : "\n"));
    const end = mine.getFullText();
    mine.insertText(end.length, `${end.endsWith("\n") ? "" : "\n"}\n${statement.getFullText().replace(/^\s*\n/, "").trimEnd()}\n`);
    merged.set(step.file.path, { file: { path: step.file.path, owner: "user", contents: mine.getFullText() }, added: `added export ${name}${imports.length > 0 ? ` and ${imports.length} import${imports.length > 1 ? "s" : ""}` : ""}` });
  }
  if (merged.size === 0) return plan;
  return {
    ...plan,
    steps: plan.steps.map((s) => {
      const m = s.kind === "keep" ? merged.get(s.file.path) : undefined;
      return m === undefined ? s : { kind: "update", file: m.file, merged: m.added };
    }),
  };
}

/** True when two import declarations import the same names (their clause text, blanks aside). */
function sameNames(a: string, b: string): boolean {
  const clause = (t: string) => t.replace(/\s+/g, "").replace(/from.*$/, "");
  return clause(a) === clause(b);
}
