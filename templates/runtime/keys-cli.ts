/**
 * `npm run keys -- <command>`: manages the service's API keys in KEYS_FILE (default data/keys.json), or in the
 * PostgreSQL database when DATABASE_URL names one (as the server does).
 *   create [--roles r1,r2]   prints {"id","secret","roles"} as one line of JSON; the secret is shown only here
 *   list                     prints one line of JSON {"id","roles"} per key
 *   revoke ID                removes the key; a server running with the same file stops accepting it within a second
 */
import fs from "node:fs";
import { pathToFileURL } from "node:url";
import { DEFAULT_KEYS_FILE, KeyRing } from "./keys.js";

const USAGE = [
  "usage: npm run keys -- create [--roles r1,r2]",
  "       npm run keys -- list",
  "       npm run keys -- revoke ID",
  `Keys are kept in $KEYS_FILE (default ${DEFAULT_KEYS_FILE}); the HMAC secret in $KEYS_HMAC_SECRET or <KEYS_FILE>.hmac.`,
  "With DATABASE_URL (postgres://…) they are kept in that database, as the server reads them there.",
];

class UsageError extends Error {}

/** Parses `create`'s options: `--roles a,b` or `--roles=a,b`, given at most once. */
function parseRoles(args: readonly string[]): string[] {
  let roles: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    let value: string | undefined;
    if (arg === "--roles") {
      value = args[++i];
      if (value === undefined) throw new UsageError("--roles needs a value, e.g. --roles reader,writer");
    } else if (arg.startsWith("--roles=")) {
      value = arg.slice("--roles=".length);
    } else {
      throw new UsageError(`create: unexpected argument ${JSON.stringify(arg)}`);
    }
    if (roles !== undefined) throw new UsageError("--roles given twice");
    roles = value;
  }
  const list = (roles ?? "").split(",").map((r) => r.trim());
  return list.length === 1 && list[0] === "" ? [] : list;
}

/** Runs the keys command line (`argv` without node and script); returns the exit code: 0 ok, 1 failure, 2 usage. */
export function main(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  out: (line: string) => void,
  err: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
): number | Promise<number> {
  if (env.DATABASE_URL) return mainInDatabase(argv, env, out, err);
  const [command, ...args] = argv;
  const file = env.KEYS_FILE ? env.KEYS_FILE : DEFAULT_KEYS_FILE;
  try {
    switch (command) {
      case "help":
      case "--help":
      case "-h":
        for (const line of USAGE) out(line);
        return 0;
      case "create": {
        const roles = parseRoles(args);
        const bad = roles.find((r) => !/^[^\s,\u0000-\u001f\u007f]+$/u.test(r));
        if (bad !== undefined) throw new UsageError(`--roles: ${JSON.stringify(bad)} is not a role name (empty, or has spaces)`);
        const key = KeyRing.open(file, { env }).create(roles);
        out(JSON.stringify({ id: key.id, secret: key.secret, roles: key.roles }));
        return 0;
      }
      case "list": {
        if (args.length > 0) throw new UsageError(`list: unexpected argument ${JSON.stringify(args[0])}`);
        for (const key of KeyRing.open(file, { env }).list()) out(JSON.stringify({ id: key.id, roles: key.roles }));
        return 0;
      }
      case "revoke": {
        if (args.length !== 1 || args[0] === "") throw new UsageError("revoke needs exactly one key id");
        const id = args[0]!;
        if (!KeyRing.open(file, { env }).revoke(id)) {
          err(`keys: no key with id ${JSON.stringify(id)} in ${file}`);
          return 1;
        }
        out(JSON.stringify({ revoked: id }));
        return 0;
      }
      default:
        throw new UsageError(command === undefined ? "a command is needed" : `unknown command ${JSON.stringify(command)}`);
    }
  } catch (error) {
    if (error instanceof UsageError) {
      err(`keys: ${error.message}`);
      for (const line of USAGE) err(line);
      return 2;
    }
    err(`keys: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
}

/** main for keys in the PostgreSQL database of DATABASE_URL: the same commands and answers. */
async function mainInDatabase(argv: readonly string[], env: NodeJS.ProcessEnv, out: (line: string) => void, err: (line: string) => void): Promise<number> {
  const [command, ...args] = argv;
  let ring: KeyRing | undefined;
  const open = async () => (ring = await KeyRing.openDatabase(env.DATABASE_URL!, { env }));
  try {
    switch (command) {
      case "help":
      case "--help":
      case "-h":
        for (const line of USAGE) out(line);
        return 0;
      case "create": {
        const roles = parseRoles(args);
        const bad = roles.find((r) => !/^[^\s,\u0000-\u001f\u007f]+$/u.test(r));
        if (bad !== undefined) throw new UsageError(`--roles: ${JSON.stringify(bad)} is not a role name (empty, or has spaces)`);
        const key = await (await open()).createKey(roles);
        out(JSON.stringify({ id: key.id, secret: key.secret, roles: key.roles }));
        return 0;
      }
      case "list": {
        if (args.length > 0) throw new UsageError(`list: unexpected argument ${JSON.stringify(args[0])}`);
        for (const key of (await open()).list()) out(JSON.stringify({ id: key.id, roles: key.roles }));
        return 0;
      }
      case "revoke": {
        if (args.length !== 1 || args[0] === "") throw new UsageError("revoke needs exactly one key id");
        const id = args[0]!;
        if (!(await (await open()).revokeKey(id))) {
          err(`keys: no key with id ${JSON.stringify(id)} in the database`);
          return 1;
        }
        out(JSON.stringify({ revoked: id }));
        return 0;
      }
      default:
        throw new UsageError(command === undefined ? "a command is needed" : `unknown command ${JSON.stringify(command)}`);
    }
  } catch (error) {
    if (error instanceof UsageError) {
      err(`keys: ${error.message}`);
      for (const line of USAGE) err(line);
      return 2;
    }
    err(`keys: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  } finally {
    await (ring as KeyRing | undefined)?.close();
  }
}

/** True when this module is the program node was started with (symlinks resolved, as import.meta.url is). */
function isMain(): boolean {
  const script = process.argv[1];
  if (script === undefined) return false;
  try {
    return import.meta.url === pathToFileURL(fs.realpathSync(script)).href;
  } catch {
    return import.meta.url === pathToFileURL(script).href;
  }
}

if (isMain()) {
  void Promise.resolve(main(process.argv.slice(2), process.env, (line) => process.stdout.write(`${line}\n`))).then((code) => {
    process.exitCode = code;
  });
}
