/**
 * Your code against the next generation (CONTRACT §5, "Regenerating carries your code along"): before a
 * regeneration is written, the files of yours under `src/` (outside `src/generated/`) are type-checked
 * against the generated files as they are about to be, held in memory over the folder as it is. An error
 * the new generation causes (one your files did not have against the current generation) stops the write.
 * TypeScript comes from ts-morph, loaded only here: plain emission never loads it.
 */
import fs from "node:fs";
import path from "node:path";
import type { ts as TS } from "@ts-morph/common";

/** One type error the next generation would cause in a file of the user's. */
export interface UserCodeError {
  /** Absolute path of the user's file. */
  readonly file: string;
  /** Character offset of the error in it. */
  readonly offset: number;
  /** TypeScript's message, flattened to one line. */
  readonly message: string;
  /** TypeScript's error number (2339: no such property, …). */
  readonly code: number;
}

/** Where the compiler host shows TypeScript's lib files (no such folder exists: they are served from memory). */
const LIB_FOLDER = "/__typescript_lib__";

/** The folder of generated code inside a package. */
const GENERATED = "src/generated/";

/** Every .ts file of the user's under `out`/src, outside src/generated (paths relative to `out`, forward slashes). */
export function userSourceFiles(out: string): string[] {
  const found: string[] = [];
  const walk = (rel: string) => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(path.join(out, rel), { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const child = `${rel}/${e.name}`;
      if (e.isDirectory() && !e.isSymbolicLink() && `${child}/` !== GENERATED) walk(child);
      else if (e.isFile() && /\.(c|m)?tsx?$/.test(e.name) && !e.name.endsWith(".d.ts")) found.push(child);
    }
  };
  walk("src");
  return found.filter((f) => !f.startsWith(GENERATED)).sort();
}

/** Relative module specifiers ("../generated/types.js") of a TypeScript text: imports, exports, import types. */
function relativeImports(text: string): string[] {
  const out: string[] = [];
  const re = /(?:from\s*|import\s*\(\s*|import\s+)["'](\.{1,2}\/[^"']+)["']/g;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) out.push(m[1]!);
  return out;
}

/** The package path a relative specifier of `from` names, as a .ts file ("src/generated/types.ts"). */
function resolveSpecifier(from: string, specifier: string): string {
  const joined = path.posix.normalize(path.posix.join(path.posix.dirname(from), specifier));
  return joined.replace(/\.(c|m)?js$/, (_m, k: string | undefined) => `.${k ?? ""}ts`);
}

/**
 * The files of the package the user's files depend on, theirs left out: those they import (src/generated/,
 * client/), and what those import in turn. `contentOf` gives a file's text (the new generation's, or the folder's).
 */
export function generatedDependencies(users: ReadonlyMap<string, string>, contentOf: (file: string) => string | undefined): Set<string> {
  const seen = new Set<string>();
  const queue: string[] = [];
  for (const [file, text] of users) for (const s of relativeImports(text)) queue.push(resolveSpecifier(file, s));
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (users.has(file) || file.startsWith("../") || seen.has(file)) continue;
    seen.add(file);
    const text = contentOf(file);
    if (text !== undefined) for (const s of relativeImports(text)) queue.push(resolveSpecifier(file, s));
  }
  return seen;
}

/** The key two errors are compared by: the same error at the same place. */
const keyOf = (e: UserCodeError) => `${e.file}\n${e.offset}\n${e.code}\n${e.message}`;

/**
 * The user's code of one package, type-checked: first against the generated files as they are in `out`
 * (made when it opens, while the caller goes on), then against the next generation (`errorsWith`): only
 * the errors the next generation causes are its, those the user's files have now are left out (as are those
 * of modules the user has not installed). Files neither generation changes (the lib, node_modules, the
 * user's) are parsed once, and the second program reuses the first's structure.
 */
export class UserCodeChecker {
  private readonly parsed = new Map<string, TS.SourceFile | undefined>();
  private current: TS.Program | undefined;
  private currentRoots: readonly string[] = [];
  private currentErrors: ReadonlySet<string> | undefined;

  private constructor(
    private readonly ts: typeof TS,
    private readonly out: string,
    private readonly options: TS.CompilerOptions,
    /** TypeScript's lib .d.ts files by their path under LIB_FOLDER: ts-morph's TypeScript carries them as text, not as files. */
    private readonly libs: ReadonlyMap<string, string>,
    /** Writes the code cache of TypeScript (code-cache.ts) once the check has run, when there was none. */
    readonly saveCodeCache: () => void,
  ) {}

  /** Loads TypeScript and reads the user's files `roots` (relative to `out`) with the generated files there (a program, not yet checked). */
  static async open(out: string, roots: readonly string[]): Promise<UserCodeChecker> {
    const t0 = performance.now();
    const { common, save } = (await import("./code-cache.js")).loadTsMorphCommon();
    const { ts, getLibFiles } = common;
    const t1 = performance.now();
    const checker = new UserCodeChecker(ts, out, compilerOptions(ts, out), new Map(getLibFiles().map((f) => [path.join(LIB_FOLDER, f.fileName), f.text])), save);
    checker.currentRoots = roots.map((f) => path.join(out, f));
    checker.current = checker.program(checker.currentRoots, new Map());
    if (process.env.RESOURCERY_TIMING) console.error(`user-code worker: ts loaded ${(t1 - t0).toFixed(0)} ms, program ${(performance.now() - t1).toFixed(0)} ms`);
    return checker;
  }

  /**
   * The errors the next generation causes in the user's files (`users`: path relative to `out` → text, new
   * seeds included): `next` maps each generated file that changes to its new text (null: deleted).
   */
  errorsWith(users: ReadonlyMap<string, string>, next: ReadonlyMap<string, string | null>): UserCodeError[] {
    const roots = [...users.keys()].map((f) => path.join(this.out, f));
    const overlay = new Map<string, string | null>([...next].map(([f, text]) => [path.join(this.out, f), text]));
    const t0 = performance.now();
    const program = this.program(roots, overlay, this.current);
    const t1 = performance.now();
    const errors = this.errorsOf(program, roots);
    if (process.env.RESOURCERY_TIMING) console.error(`user-code worker: next program ${(t1 - t0).toFixed(0)} ms, checked ${(performance.now() - t1).toFixed(0)} ms`);
    if (errors.length === 0) return [];
    // Only now the errors the user's files have against the current generation: most regenerations cause none.
    this.currentErrors ??= new Set(this.errorsOf(this.current!, this.currentRoots).map(keyOf));
    return errors.filter((e) => !this.currentErrors!.has(keyOf(e)));
  }

  private program(roots: readonly string[], overlay: ReadonlyMap<string, string | null>, old?: TS.Program): TS.Program {
    const { ts, parsed } = this;
    const { libs } = this;
    const host = ts.createCompilerHost(this.options, true);
    const fileExists = host.fileExists.bind(host);
    const readFile = host.readFile.bind(host);
    const getSourceFile = host.getSourceFile.bind(host);
    host.getDefaultLibLocation = () => LIB_FOLDER;
    host.getDefaultLibFileName = (options) => path.join(LIB_FOLDER, ts.getDefaultLibFileName(options));
    host.fileExists = (file) => (libs.has(file) ? true : overlay.has(path.resolve(file)) ? overlay.get(path.resolve(file)) !== null : fileExists(file));
    host.readFile = (file) => (libs.has(file) ? libs.get(file) : overlay.has(path.resolve(file)) ? (overlay.get(path.resolve(file)) ?? undefined) : readFile(file));
    host.getSourceFile = (file, language, onError, create) => {
      const resolved = path.resolve(file);
      const lib = libs.get(file);
      if (lib !== undefined) {
        if (!parsed.has(file)) parsed.set(file, ts.createSourceFile(file, lib, language, false));
        return parsed.get(file);
      }
      if (overlay.has(resolved)) {
        const text = overlay.get(resolved);
        return text === null || text === undefined ? undefined : ts.createSourceFile(file, text, language, true);
      }
      if (parsed.has(resolved)) return parsed.get(resolved);
      const sf = getSourceFile(file, language, onError, create);
      parsed.set(resolved, sf);
      return sf;
    };
    return ts.createProgram({ rootNames: roots, options: this.options, host, ...(old ? { oldProgram: old } : {}) });
  }

  private errorsOf(program: TS.Program, roots: readonly string[]): UserCodeError[] {
    const { ts } = this;
    const out: UserCodeError[] = [];
    for (const root of roots) {
      const sf = program.getSourceFile(root);
      if (sf === undefined) continue;
      for (const d of [...program.getSyntacticDiagnostics(sf), ...program.getSemanticDiagnostics(sf)]) {
        if (d.category !== ts.DiagnosticCategory.Error || d.file === undefined || d.start === undefined) continue;
        out.push({ file: path.resolve(d.file.fileName), offset: d.start, message: ts.flattenDiagnosticMessageText(d.messageText, " "), code: d.code });
      }
    }
    return out;
  }
}

/** The package's compiler options (its tsconfig.json), for checking only: nothing emitted, libraries unchecked. */
function compilerOptions(ts: typeof TS, out: string): TS.CompilerOptions {
  const file = path.join(out, "tsconfig.json");
  const read = ts.readConfigFile(file, ts.sys.readFile);
  const parsed = read.error ? undefined : ts.parseJsonConfigFileContent(read.config, ts.sys, out);
  const options = parsed?.options ?? { strict: true, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, target: ts.ScriptTarget.ES2022 };
  return {
    ...options,
    // Without a lib of its own, the target's lib without the DOM (a generated service runs on Node): a fifth of
    // the parsing. A DOM name the user's code uses is then an error against both generations alike, so none.
    ...(options.lib === undefined ? { lib: [ts.getDefaultLibFileName(options).replace(/\.full\.d\.ts$/, ".d.ts").replace(/^lib\.d\.ts$/, "lib.es5.d.ts")] } : {}),
    noEmit: true,
    skipLibCheck: true,
    incremental: false,
    composite: false,
    declaration: false,
    declarationMap: false,
    sourceMap: false,
    tsBuildInfoFile: undefined,
  };
}
