/**
 * TypeScript for the user-code check, loaded through a V8 code cache: @ts-morph/common's typescript.js (9 MB)
 * and ts-morph-common.js are compiled from cached code when this machine has compiled them before, which
 * takes most of their load and much of the first program's lazy compilation off a regeneration's critical
 * path (the check waits for this worker). The cache is a machine-local file per user (XDG_CACHE_HOME or
 * ~/.cache, then resourcery/, a folder only its owner may write: code read from a folder others could write
 * would run as the user), made once per TypeScript build, Node version and architecture, after a check has run
 * (so that it holds the checker's functions too). V8 refuses a cache that does not match the source or its own
 * version and flags; the module is then compiled as usual and the cache made again. Never needed for
 * correctness: a missing, refused or unwritable cache only costs the time it saves.
 */
import fs from "node:fs";
import Module, { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import vm from "node:vm";

type TsMorphCommon = typeof import("@ts-morph/common");

const require = createRequire(import.meta.url);

/** The CommonJS files cached, in load order: typescript.js first (ts-morph-common.js requires it). */
const FILES = ["@ts-morph/common/dist/typescript.js", "@ts-morph/common/dist/ts-morph-common.js"] as const;

/** The folder of the cache, or undefined when there is no home to put it in (os.homedir throws without HOME and a passwd entry). */
function cacheFolder(): string | undefined {
  const xdg = process.env.XDG_CACHE_HOME;
  if (xdg && path.isAbsolute(xdg)) return path.join(xdg, "resourcery", "v8-code");
  try {
    const home = os.homedir();
    return home ? path.join(home, ".cache", "resourcery", "v8-code") : undefined;
  } catch {
    return undefined;
  }
}

/** One module compiled with a cache: what `save` writes when the cache was missing or refused. */
interface Loaded {
  readonly script: vm.Script;
  readonly cacheFile: string | undefined;
  readonly stale: boolean;
}

/** The cache of `file` when it may be trusted: a regular file of this user's, in a folder only this user writes. */
function readCache(cacheFile: string): Buffer | undefined {
  try {
    const dir = fs.lstatSync(path.dirname(cacheFile));
    const stat = fs.lstatSync(cacheFile);
    const uid = process.getuid?.();
    const own = (s: fs.Stats) => uid === undefined || s.uid === uid;
    if (!dir.isDirectory() || !own(dir) || (dir.mode & 0o022) !== 0 || !stat.isFile() || !own(stat)) return undefined;
    return fs.readFileSync(cacheFile);
  } catch {
    return undefined;
  }
}

/** Compiles and runs the CommonJS module `file` as Node's loader would (registered in require.cache), from `cache` when V8 takes it. */
function loadCommonJs(file: string, cacheFile: string | undefined): Loaded {
  const cached = cacheFile === undefined ? undefined : readCache(cacheFile);
  const source = fs.readFileSync(file, "utf8");
  const script = new vm.Script(Module.wrap(source), { filename: file, ...(cached ? { cachedData: cached } : {}) });
  const mod = new Module(file);
  mod.filename = file;
  mod.paths = (Module as unknown as { _nodeModulePaths(dir: string): string[] })._nodeModulePaths(path.dirname(file));
  require.cache[file] = mod;
  try {
    const wrapper = script.runInThisContext() as (exports: unknown, require: NodeJS.Require, module: Module, filename: string, dirname: string) => void;
    wrapper.call(mod.exports, mod.exports, createRequire(file), mod, file, path.dirname(file));
  } catch (error) {
    delete require.cache[file];
    throw error;
  }
  mod.loaded = true;
  return { script, cacheFile, stale: cached === undefined || script.cachedDataRejected === true };
}

/** @ts-morph/common as loaded: `fromCache` when V8 took every cached module; `save()` as loadTsMorphCommon says. */
export interface LoadedTypeScript {
  readonly common: TsMorphCommon;
  readonly fromCache: boolean;
  save(): void;
}

/**
 * @ts-morph/common (TypeScript and ts-morph's helpers), loaded through the code cache when it can be; `save()`
 * writes the cache of what has been compiled so far (call it once the check has run) when there was none.
 */
export function loadTsMorphCommon(): LoadedTypeScript {
  const files = FILES.map((f) => require.resolve(f));
  // Loaded already (ts-morph itself, in this thread): that module, nothing to cache.
  if (files.some((f) => require.cache[f] !== undefined)) return { common: require("@ts-morph/common") as TsMorphCommon, fromCache: false, save: () => undefined };
  const folder = cacheFolder();
  const cacheFileOf = (file: string): string | undefined => {
    if (folder === undefined) return undefined;
    const stat = fs.statSync(file);
    return path.join(folder, `${path.basename(file, ".js")}-${stat.size}-${Math.trunc(stat.mtimeMs)}-${process.version}-${process.arch}.bin`);
  };
  let loaded: Loaded[];
  try {
    loaded = files.map((f) => loadCommonJs(f, cacheFileOf(f)));
  } catch {
    // Whatever went wrong, Node's own loader then.
    for (const f of files) delete require.cache[f];
    return { common: require("@ts-morph/common") as TsMorphCommon, fromCache: false, save: () => undefined };
  }
  return {
    common: require.cache[files[1]!]!.exports as TsMorphCommon,
    fromCache: loaded.every((l) => !l.stale),
    save() {
      for (const { script, cacheFile, stale } of loaded) {
        if (!stale || cacheFile === undefined) continue;
        try {
          fs.mkdirSync(path.dirname(cacheFile), { recursive: true, mode: 0o700 });
          const tmp = `${cacheFile}.${process.pid}.tmp`;
          fs.writeFileSync(tmp, script.createCachedData(), { mode: 0o600 });
          fs.renameSync(tmp, cacheFile);
        } catch {
          // Only a cache: the next check compiles as this one did.
        }
      }
    },
  };
}
