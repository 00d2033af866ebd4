/**
 * `generate`: check → emit the package in memory → plan against OUT → write it all, or nothing. OUT
 * is checked first (write/out-folder.ts) and locked for the whole write (write/lock.ts); a disk that
 * refuses (full, read-only, no permission) is an OutError naming OUT, with OUT as it was.
 */
import fs from "node:fs";
import path from "node:path";
import { hasErrors, type Diagnostic } from "./diagnostics/diagnostic.js";
import { report } from "./diagnostics/report.js";
import type { CheckOptions } from "./load/limits.js";
import type { CheckResult } from "./pipeline.js";
import { isStaged, type EmittedFile, type StagedFile } from "./emit/emitted-file.js";
import type { Orphans } from "./emit/types.js";
import { resourceTypeNames, singularize, typeIdentifier } from "./model/names.js";
import type { Model } from "./model/types.js";
import { servedVersions } from "./model/versions.js";
import { mark } from "./timing.js";
import { generatorFingerprint, generatorId, inputsOf, relativeSources, sourceStats, upToDate, type Target } from "./write/inputs.js";
import { outErrorOf } from "./write/out-error.js";
import { checkOutFolder, realOut } from "./write/out-folder.js";
import type { Plan } from "./write/plan.js";
import { identitiesOf, renamesOf } from "./user-code/identities.js";

export { generatorId } from "./write/inputs.js";

/** `allowPaths` and `limits`: what the check may read (see checkProject). */
export interface GenerateOptions extends CheckOptions {
  readonly out: string;
  readonly force?: boolean;
  readonly dryRun?: boolean;
  /** Only the typed client, as a standalone package. */
  readonly clientOnly?: boolean;
  /** With clientOnly: the client of this version (an older one the service serves; the current one by default). */
  readonly version?: number;
  /** How long to wait for another run's lock on OUT before giving up (ms; write/lock.ts has the default). */
  readonly lockWaitMs?: number;
  /** Write even when the new definitions break a version OUT already served (the breaking-change gate). */
  readonly allowBreaking?: boolean;
}

export interface GenerateResult {
  readonly check: CheckResult;
  /** Absent when the definitions have errors (nothing was emitted). */
  readonly plan?: Plan;
  /** True when files were written. */
  readonly written: boolean;
}

/** The export src/generated/handlers.ts imports from each user-owned file: `hooks`, an action's handler, an older version's `converters`. */
function wiringExportOf(model: Model, handlerName: (action: Model["actions"][number]) => string): (file: string) => string | undefined {
  const wanted = new Map<string, string>([
    ...model.resources.map((r) => [`src/hooks/${r.collection}.ts`, "hooks"] as const),
    ...model.actions.map((a) => [`src/actions/${a.name}.ts`, handlerName(a)] as const),
    ...servedVersions(model.service)
      .slice(0, -1)
      .map((v) => [`src/versions/v${v}.ts`, "converters"] as const),
  ]);
  return (file) => wanted.get(file);
}

/**
 * The type names the kept user files of removed resources and actions import, unless the model still defines
 * them; the hook files of renamed collections (`moved`) are no orphans: they move, their names renamed.
 */
function orphanTypes(plan: Plan, out: string, model: Model, moved: ReadonlySet<string>): Orphans {
  const defined = new Set([
    ...model.resources.flatMap((r) => resourceTypeNames(r.name)),
    ...model.actions.flatMap((a) => [`${a.typeName}Params`, `${a.typeName}Result`]),
  ]);
  const types: { name: string; file: string }[] = [];
  for (const step of plan.steps) {
    if (step.kind !== "orphan" || moved.has(step.path)) continue;
    const hook = /^src\/hooks\/([^/]+)\.ts$/.exec(step.path);
    const action = /^src\/actions\/([^/]+)\.ts$/.exec(step.path);
    if (hook) {
      // The resource's type was named by its title or its collection's singular: the file says which.
      const type = hookType(path.join(out, step.path)) ?? typeIdentifier(singularize(hook[1]!));
      types.push({ name: type, file: step.path }, { name: `${type}Input`, file: step.path });
    } else if (action) {
      const type = typeIdentifier(action[1]!);
      types.push({ name: `${type}Params`, file: step.path }, { name: `${type}Result`, file: step.path });
    }
  }
  return { types: types.filter((t) => !defined.has(t.name)) };
}

/**
 * The type a kept hook file uses as its seed wrote it: `ResourceHooks<types.TInput, types.T>`, or (seeds of
 * earlier versions) `import type { T, TInput } from "../generated/types.js"`, if it still does.
 */
function hookType(file: string): string | undefined {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8").slice(0, 65_536);
  } catch {
    return undefined;
  }
  return (
    /ResourceHooks<\s*types\.([A-Za-z_$][\w$]*)Input\s*,\s*types\.\1\s*>/.exec(text)?.[1] ??
    /import\s+type\s*\{\s*([A-Za-z_$][\w$]*)\s*,\s*\1Input\s*\}\s*from\s*["']\.\.\/generated\/types\.js["']/.exec(text)?.[1]
  );
}

/**
 * Runs `write` holding the lock of `out` (none for a dry run, which writes nothing). A disk error
 * becomes an OutError naming OUT; the lock is released whatever happens.
 */
async function writing<T>(out: string, options: Pick<GenerateOptions, "dryRun" | "lockWaitMs">, write: () => Promise<T>): Promise<T> {
  if (options.dryRun) return write();
  const [{ lockOut }, { JOURNAL }] = await Promise.all([import("./write/lock.js"), import("./write/commit.js")]);
  let lock: Awaited<ReturnType<typeof lockOut>> | undefined;
  try {
    lock = await lockOut(out, options.lockWaitMs);
    return await write();
  } catch (error) {
    throw outErrorOf(error, out, fs.existsSync(path.join(out, JOURNAL))) ?? error;
  } finally {
    lock?.release();
  }
}

/** Writes the reference docs of the definitions in `dir` into `out` (all or nothing; stale pages removed). */
export async function generateDocs(dir: string, options: Pick<GenerateOptions, "out" | "dryRun" | "force" | "lockWaitMs" | "allowPaths" | "limits">): Promise<GenerateResult> {
  const out = realOut(options.out);
  checkOutFolder(dir, out, options.force ?? false);
  const { checkProject } = await import("./pipeline.js");
  const check = checkProject(dir, options);
  if (hasErrors(check.diagnostics) || !check.model) return { check, written: false };
  const model = check.model;
  const [{ emitDocs }, { planWrite }, { commitPlan, recover }, { readManifest }] = await Promise.all([
    import("./emit/index.js"),
    import("./write/plan.js"),
    import("./write/commit.js"),
    import("./write/manifest.js"),
  ]);
  return writing(out, options, async () => {
    if (fs.existsSync(out) && !options.dryRun) recover(out);
    // Docs are generated output only: an edited page is overwritten rather than refused.
    const plan = planWrite(out, emitDocs(model), readManifest(out), true);
    if (options.dryRun) return { check, plan, written: false };
    commitPlan(out, plan, { generator: generatorId() });
    return { check, plan, written: true };
  });
}

/** The findings the validators worker sends; should it fail first, the rule is run here instead. */
async function schemaCompileFindings(model: Model, compiled: Promise<Diagnostic[]>): Promise<Diagnostic[]> {
  try {
    const found = await compiled;
    mark("schema-compile (worker)");
    return found;
  } catch {
    const { schemaCompile } = await import("./lint/compile-check.js");
    return schemaCompile.check(model);
  }
}

/** The `unserved-version` error of `--client-only --version N` when the service does not serve N, at service.json's `versions`. */
function unservedVersion(model: Model, version: number): Diagnostic | undefined {
  const { service } = model;
  const served = servedVersions(service);
  if (served.includes(version)) return undefined;
  const pointer = service.versions.length > 0 ? "/versions" : "/version";
  return report("unserved-version", { file: service.origin.file, pointer, kind: "key" }, { version, served: served.join(", "), current: service.version });
}

/** Generates the service package of the definitions in `dir` into `options.out`. */
export async function generate(dir: string, options: GenerateOptions): Promise<GenerateResult> {
  mark("command started");
  const out = realOut(options.out);
  checkOutFolder(dir, out, options.force ?? false);
  const target: Target = !options.clientOnly ? "service" : options.version === undefined ? "client" : `client-v${options.version}`;
  // Nothing changed since the last generation: answered before anything heavy is loaded.
  const same = options.force ? undefined : upToDate(dir, out, target);
  mark("up-to-date check");
  if (same) return { check: { model: undefined, diagnostics: [], sources: new Map() }, plan: same, written: false };

  // The docs worker loads its modules on the second core while this thread checks the definitions.
  if (!options.clientOnly) (await import("./emit/in-worker.js")).prestart("docs");
  // A regeneration of a package with code of the user's: its worker reads that code meanwhile (--force writes whatever it finds).
  // A regeneration: what the last generation wrote, as its manifest says (read again under the lock, before anything is planned).
  const regenerating = !options.clientOnly && fs.existsSync(path.join(out, ".resourcery/manifest.json"));
  const manifests = regenerating ? await import("./write/manifest.js") : undefined;
  const earlier = manifests?.readManifest(out);
  const userCheck = regenerating && !options.force ? await (await import("./user-code/index.js")).UserCodeCheck.start(out, earlier) : undefined;
  // Incremental generation: the files whose key is still the one the last generation recorded are not rendered
  // again, and what an earlier generation computed from the same parts of the model is taken from its memo
  // (--force renders and computes everything). The memo records the generator that wrote it (its code and
  // templates): the keys are taken only after a generation of the same.
  const { Memo, printedDocumentKey, useMemo } = await import("./emit/memo.js");
  const memo = regenerating && !options.force ? Memo.read(out, generatorFingerprint()) : new Memo();
  const known = manifests && memo.matched ? manifests.knownKeys(out, earlier) : undefined;
  useMemo(memo);
  // The docs worker reads the memo and the docs files it may take parts of while this thread checks the definitions.
  if (known !== undefined) (await import("./emit/in-worker.js")).prepare("docs", { memo: { out, generator: generatorFingerprint() }, known: [...known.keys()].filter((p) => p.startsWith("docs/")).map((p) => p.slice("docs/".length)) });
  // Heavy modules load only when there is something to check and generate: first what builds the model and
  // starts the docs worker on it (the docs take longest), then the rest, after the check.
  const [{ checkProject }, { startDocs, startValidators }] = await Promise.all([import("./pipeline.js"), import("./emit/started.js")]);
  mark("modules loaded");
  const rest = Promise.all([import("./emit/index.js"), import("./write/plan.js"), import("./write/commit.js"), import("./write/manifest.js"), import("./write/stage.js"), import("./versions/gate.js")]);
  rest.catch(() => undefined); // awaited after the check; not an unhandled rejection when the definitions have errors
  // From the moment the model is built, the docs are rendered in their worker while this thread lints (the
  // lint does not change the model), and the validators of a big service are compiled in another.
  // The validators worker of a big service also runs the schema-compile rule (ajv compiling every schema,
  // seconds on Stripe's), which the check then leaves to it, and is finished with its findings.
  let started: { validators: ReturnType<typeof startValidators>; docs: ReturnType<typeof startDocs> } | undefined;
  // What the check reads is kept, to hash into the manifest's inputs (the inputs the model is built from) without reading it again.
  const { recordReads } = await import("./load/read-file.js");
  const readByCheck = recordReads();
  const unfinished = checkProject(dir, options, options.clientOnly ? undefined : (built) => {
    mark("model built");
    started = { docs: startDocs(built, known, known !== undefined ? { out, generator: generatorFingerprint() } : undefined), validators: startValidators(built, true, known) };
    return started.validators.compiled !== undefined;
  });
  const cancel = () => {
    started?.validators.cancel();
    started?.docs.cancel();
    userCheck?.cancel();
  };
  if (unfinished.finish) mark("checked but schema-compile");
  const check = unfinished.finish ? unfinished.finish(await schemaCompileFindings(unfinished.model!, started!.validators.compiled!)) : unfinished;
  recordReads(false); // (every definition file is read by now)
  mark("checked");
  if (hasErrors(check.diagnostics) || !check.model) {
    cancel();
    return { check, written: false };
  }
  // `--client-only --version N`: the client of the model of version N, which the service must serve.
  const unserved = options.clientOnly && options.version !== undefined ? unservedVersion(check.model, options.version) : undefined;
  if (unserved) return { check: { ...check, diagnostics: [...check.diagnostics, unserved] }, written: false };
  // A standalone client is of one version: the current one has no property x-until took out of it either.
  const model = options.clientOnly ? (await import("./model/version-model.js")).modelOfVersion(check.model, options.version ?? check.model.service.version) : check.model;
  const [{ emitService, emitClientOnly }, { planWrite, planUnchanged, StaleKnownFile }, { commitPlan, recover }, { hashOfFile, readManifest }, { FreshStage }, { gate }] = await rest.catch((error: unknown) => {
    cancel();
    throw error;
  });
  mark("emit modules loaded");
  try {
    return await writing(out, options, async () => {
      mark("locked");
      if (fs.existsSync(out) && !options.dryRun) recover(out);
      const previous = readManifest(out);
      const sources = relativeSources(dir, model.sources);
      const read = inputsOf(dir, sources, target, readByCheck);
      const inputs = read?.hash;
      const unchanged = options.force || inputs === undefined ? undefined : planUnchanged(out, previous, inputs);
      if (unchanged) return { check, plan: unchanged, written: false };
      // The breaking-change gate: the versions OUT served stay as their clients know them (--force writes anyway).
      const gated = options.clientOnly ? undefined : gate(model, dir, out, (options.allowBreaking ?? false) || (options.force ?? false));
      const contractFile = gated?.file;
      // A first generation writes each file into its staging folder as soon as it is emitted.
      const stage = !options.clientOnly && !options.dryRun && !fs.existsSync(out) ? new FreshStage(out) : undefined;
      try {
        const emitted = options.clientOnly ? await emitClientOnly(model) : stage ? await emitService(model, undefined, stage, started) : await emitService(model, undefined, undefined, started, known);
        let files: typeof emitted = !contractFile ? emitted : stage ? [...(emitted as StagedFile[]), stage.write(contractFile.path, contractFile.owner, contractFile.contents)] : [...(emitted as EmittedFile[]), contractFile];
        mark("emitted");
        // A file left unrendered that another run wrote between this one's start and its lock: every file rendered after all.
        const planned = async (orphans?: Orphans): Promise<Plan> => {
          try {
            return planWrite(out, files, previous, options.force ?? false);
          } catch (error) {
            if (!(error instanceof StaleKnownFile)) throw error;
            files = [...(await emitService(model, orphans)), ...(contractFile ? [contractFile] : [])];
            return planWrite(out, files, previous, options.force ?? false);
          }
        };
        let plan = await planned();
        // A collection renamed in the same schema file: the user's hooks move with it (CONTRACT §5).
        const identities = options.clientOnly ? undefined : identitiesOf(model, dir);
        const renames = identities === undefined ? [] : renamesOf(previous?.resources, identities);
        const orphans = orphanTypes(plan, out, model, new Set(renames.map((r) => `src/hooks/${r.from.collection}.ts`)));
        if (orphans.types.length > 0 && !options.clientOnly) {
          // Hook and action files of removed resources and actions are kept: their type names stay defined.
          files = await emitService(model, orphans, undefined, started, known);
          if (contractFile) files = [...files, contractFile];
          plan = await planned(orphans);
        }
        if (renames.length > 0) plan = await (await import("./user-code/rename.js")).carryRenames(out, plan, renames);
        // What the generated wiring imports from the user's files, added where a kept one lacks it.
        if (!options.clientOnly && previous !== undefined) plan = await (await import("./user-code/merge.js")).mergeNeeded(out, plan, wiringExportOf(model, (await import("./emit/handlers.js")).handlerName));
        mark("planned");
        // The user's code against the new generation: a file of theirs that would no longer compile stops the write (--force writes anyway).
        const user = userCheck && previous !== undefined ? await userCheck.findings(plan, gated?.changes ?? []) : undefined;
        if (user?.checked) mark("user code checked");
        const refusals = [...(gated?.breaks ?? []), ...(user?.diagnostics ?? [])];
        if (refusals.length > 0) {
          const sources = user && user.sources.size > 0 ? new Map([...check.sources, ...user.sources]) : check.sources;
          return { check: { ...check, diagnostics: [...check.diagnostics, ...refusals], sources }, written: false };
        }
        if (plan.conflicts.length > 0 || options.dryRun) return { check, plan, written: false };
        commitPlan(out, plan, { generator: generatorId(), ...(inputs ? { inputs } : {}), sources, clean: check.diagnostics.length === 0, ...(identities ? { resources: identities } : {}) }, stage, read ? sourceStats(dir, read.files) : {});
        if (!options.clientOnly) {
          // The OpenAPI documents as this generation printed them: the next one takes parts of them only from the very bytes
          // its memo's entries were made with (emit/memo.ts printedDocumentKey).
          for (const step of plan.steps) {
            if (step.kind !== "create" && step.kind !== "update" && step.kind !== "unchanged") continue;
            const printed = printedDocumentKey(step.file.path);
            if (printed !== undefined) memo.set(printed, isStaged(step.file) ? step.file.hash : hashOfFile(step.file));
          }
          memo.save(out, generatorFingerprint());
        }
        mark("committed");
        return { check, plan, written: true };
      } finally {
        stage?.discard(); // renamed to OUT when committed; anything else leaves OUT as it was
      }
    });
  } finally {
    cancel(); // done by now, unless something failed before the emitters took them
    useMemo(new Memo()); // this generation's memo is not the next one's
  }
}
