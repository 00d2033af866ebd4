/**
 * `npm run migrate`: brings the service's database (DATABASE_URL's PostgreSQL database, else the SQLite file of
 * DATABASE_FILE) in line with the definitions the package was generated from, as the server does when it
 * starts (migration.ts), and checks every required property of every collection while it is at it.
 *   --dry-run   prints the SQL it would run, each statement after a comment saying why; changes nothing
 * Exit codes: 0 done (or nothing to do), 1 refused or failed (the message says why; nothing changed), 2 usage.
 */
import { isMain } from "./cli-main.js";
import { MigrationRefused, printSteps, type MigrationStep } from "./migration.js";
import { settingsFrom } from "./server.js";
import type { ServiceSpec } from "./spec.js";

const USAGE = [
  "usage: npm run migrate [-- --dry-run]",
  "Brings the database in line with the definitions, as the server does when it starts; --dry-run prints the SQL instead.",
  "The database: DATABASE_URL (postgres://…) when set, else the SQLite file DATABASE_FILE (default data/<service>.db).",
];

/**
 * Runs the migrate command line (`argv` without node and script) for `spec`; resolves with the exit code.
 * @example await main(["--dry-run"], process.env, spec, console.log) === 0
 */
export async function main(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  spec: ServiceSpec,
  out: (line: string) => void,
  err: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
): Promise<number> {
  const dryRun = argv.includes("--dry-run");
  const unknown = argv.filter((a) => a !== "--dry-run");
  if (argv.includes("--help") || argv.includes("-h")) {
    for (const line of USAGE) out(line);
    return 0;
  }
  if (unknown.length > 0) {
    err(`migrate: unexpected argument ${JSON.stringify(unknown[0])}`);
    for (const line of USAGE) err(line);
    return 2;
  }
  let where = "";
  try {
    const settings = settingsFrom(env, spec);
    let steps: MigrationStep[];
    if (settings.databaseUrl !== undefined) {
      where = "the PostgreSQL database of DATABASE_URL";
      steps = await (await import("./pg-store.js")).migratePg(spec, settings.databaseUrl, { dryRun, thorough: true });
    } else {
      where = `the SQLite file ${settings.databaseFile}`;
      steps = (await import("./sqlite-store.js")).migrateSqlite(spec, settings.databaseFile, { dryRun, thorough: true });
    }
    if (steps.length === 0) out(`-- ${where} is in line with the definitions: nothing to do`);
    else {
      out(`-- ${dryRun ? "would run on" : "ran on"} ${where} (${steps.length} statement${steps.length === 1 ? "" : "s"})`);
      for (const line of printSteps(steps)) out(line);
    }
    return 0;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    err(error instanceof MigrationRefused ? `migrate: refused on ${where}: ${message}` : `migrate: ${where ? `${where}: ` : ""}${message}`);
    return 1;
  }
}

if (isMain(import.meta.url)) {
  // The spec of the package this runtime was generated into (src/generated/spec.ts), found beside it.
  const { spec } = (await import(new URL("../spec.js", import.meta.url).href)) as { spec: ServiceSpec };
  process.exitCode = await main(process.argv.slice(2), process.env, spec, (line) => process.stdout.write(`${line}\n`));
}
