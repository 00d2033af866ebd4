/**
 * `npm run keys -- <command>`: manages the service's API keys in KEYS_FILE (default data/keys.json), or in the
 * PostgreSQL database when DATABASE_URL names one (as the server does).
 *   create [--roles r1,r2] [--oauth1]   prints {"id","secret","roles"} as one line of JSON; the secret is shown only
 *                            here; with --oauth1 also "oauth1Secret", the key's OAuth 1.0a signing (consumer) secret
 *   list                     prints one line of JSON {"id","roles"} per key
 *   revoke ID                removes the key; a server running with the same file stops accepting it within a second
 *   rotate-signing-key       a new key signs the service's own OAuth 2.0 access tokens from now on; the previous
 *                            one still verifies the tokens it signed until they expire
 */
import { isMain } from "./cli-main.js";
import { DEFAULT_KEYS_FILE, KeyRing, type Key, type NewKey } from "./keys.js";
import { SigningKeys } from "./signing-keys.js";

const USAGE = [
  "usage: npm run keys -- create [--roles r1,r2] [--oauth1]",
  "       npm run keys -- list",
  "       npm run keys -- revoke ID",
  "       npm run keys -- rotate-signing-key",
  `Keys are kept in $KEYS_FILE (default ${DEFAULT_KEYS_FILE}); the HMAC secret in $KEYS_HMAC_SECRET or <KEYS_FILE>.hmac.`,
  "With DATABASE_URL (postgres://…) they are kept in that database, as the server reads them there.",
];

class UsageError extends Error {}

/** Parses `create`'s options: `--roles a,b` or `--roles=a,b`, given at most once, and `--oauth1`. */
function parseCreate(args: readonly string[]): { roles: string[]; oauth1: boolean } {
  let roles: string | undefined;
  let oauth1 = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    let value: string | undefined;
    if (arg === "--oauth1") {
      oauth1 = true;
      continue;
    } else if (arg === "--roles") {
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
  return { roles: list.length === 1 && list[0] === "" ? [] : list, oauth1 };
}

/** One command of the command line, parsed and checked. */
type Command =
  | { readonly kind: "help" }
  | { readonly kind: "create"; readonly roles: string[]; readonly oauth1: boolean }
  | { readonly kind: "list" }
  | { readonly kind: "revoke"; readonly id: string }
  | { readonly kind: "rotate" };

/** Parses `argv` (without node and script); throws UsageError. */
function parseCommand(argv: readonly string[]): Command {
  const [command, ...args] = argv;
  switch (command) {
    case "help":
    case "--help":
    case "-h":
      return { kind: "help" };
    case "create": {
      const { roles, oauth1 } = parseCreate(args);
      const bad = roles.find((r) => !/^[^\s,\u0000-\u001f\u007f]+$/u.test(r));
      if (bad !== undefined) throw new UsageError(`--roles: ${JSON.stringify(bad)} is not a role name (empty, or has spaces)`);
      return { kind: "create", roles, oauth1 };
    }
    case "rotate-signing-key":
      if (args.length > 0) throw new UsageError(`rotate-signing-key: unexpected argument ${JSON.stringify(args[0])}`);
      return { kind: "rotate" };
    case "list":
      if (args.length > 0) throw new UsageError(`list: unexpected argument ${JSON.stringify(args[0])}`);
      return { kind: "list" };
    case "revoke":
      if (args.length !== 1 || args[0] === "") throw new UsageError("revoke needs exactly one key id");
      return { kind: "revoke", id: args[0]! };
    default:
      throw new UsageError(command === undefined ? "a command is needed" : `unknown command ${JSON.stringify(command)}`);
  }
}

/** What a command did, to be printed: a new key, the keys, a revocation (found or not). */
type Outcome = { readonly made: NewKey } | { readonly keys: readonly Key[] } | { readonly revoked: string; readonly found: boolean } | { readonly rotated: string } | { readonly help: true };

/** Prints an outcome; the exit code. `where` names the keys' place in the message of a revocation that found nothing. */
function report(outcome: Outcome, where: string, out: (line: string) => void, err: (line: string) => void): number {
  if ("help" in outcome) for (const line of USAGE) out(line);
  else if ("made" in outcome) out(JSON.stringify({ id: outcome.made.id, secret: outcome.made.secret, roles: outcome.made.roles, ...(outcome.made.oauth1Secret === undefined ? {} : { oauth1Secret: outcome.made.oauth1Secret }) }));
  else if ("rotated" in outcome) out(JSON.stringify({ signingKey: outcome.rotated }));
  else if ("keys" in outcome) for (const key of outcome.keys) out(JSON.stringify({ id: key.id, roles: key.roles }));
  else if (!outcome.found) {
    err(`keys: no key with id ${JSON.stringify(outcome.revoked)} in ${where}`);
    return 1;
  } else out(JSON.stringify({ revoked: outcome.revoked }));
  return 0;
}

/** The exit code of a failure: 2 and the usage for a usage error, else 1 and its message. */
function failed(error: unknown, err: (line: string) => void): number {
  if (error instanceof UsageError) {
    err(`keys: ${error.message}`);
    for (const line of USAGE) err(line);
    return 2;
  }
  err(`keys: ${error instanceof Error ? error.message : String(error)}`);
  return 1;
}

/** Runs the keys command line (`argv` without node and script); returns the exit code: 0 ok, 1 failure, 2 usage. */
export function main(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  out: (line: string) => void,
  err: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
): number | Promise<number> {
  if (env.DATABASE_URL) return mainInDatabase(argv, env, out, err);
  const file = env.KEYS_FILE ? env.KEYS_FILE : DEFAULT_KEYS_FILE;
  try {
    const command = parseCommand(argv);
    if (command.kind === "rotate") return rotate(SigningKeys.file(file), out, err);
    const ring = () => KeyRing.open(file, { env });
    const outcome: Outcome =
      command.kind === "help" ? { help: true } : command.kind === "create" ? { made: ring().create(command.roles, { oauth1: command.oauth1 }) } : command.kind === "list" ? { keys: ring().list() } : { revoked: command.id, found: ring().revoke(command.id) };
    return report(outcome, file, out, err);
  } catch (error) {
    return failed(error, err);
  }
}

/** Rotates the signing key of the service's own access tokens; prints the new key's id. */
async function rotate(keys: SigningKeys, out: (line: string) => void, err: (line: string) => void): Promise<number> {
  try {
    return report({ rotated: await keys.rotate() }, "", out, err);
  } catch (error) {
    return failed(error, err);
  } finally {
    await keys.close();
  }
}

/** main for keys in the PostgreSQL database of DATABASE_URL: the same commands and answers. */
async function mainInDatabase(argv: readonly string[], env: NodeJS.ProcessEnv, out: (line: string) => void, err: (line: string) => void): Promise<number> {
  let ring: KeyRing | undefined;
  try {
    const command = parseCommand(argv);
    if (command.kind === "help") return report({ help: true }, "the database", out, err);
    if (command.kind === "rotate") return await rotate(await SigningKeys.database(env.DATABASE_URL!), out, err);
    ring = await KeyRing.openDatabase(env.DATABASE_URL!, { env });
    const outcome: Outcome =
      command.kind === "create" ? { made: await ring.createKey(command.roles, { oauth1: command.oauth1 }) } : command.kind === "list" ? { keys: ring.list() } : { revoked: command.id, found: await ring.revokeKey(command.id) };
    return report(outcome, "the database", out, err);
  } catch (error) {
    return failed(error, err);
  } finally {
    await ring?.close();
  }
}

if (isMain(import.meta.url)) {
  void Promise.resolve(main(process.argv.slice(2), process.env, (line) => process.stdout.write(`${line}\n`))).then((code) => {
    process.exitCode = code;
  });
}
