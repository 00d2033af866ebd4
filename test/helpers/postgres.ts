/**
 * A throwaway PostgreSQL cluster for tests (Debian's postgresql 15, which `.ci/run` installs when it is
 * missing): initdb into a temporary folder, started on a free port with trust authentication on 127.0.0.1,
 * stopped and removed afterwards. initdb and pg_ctl refuse to run as root: as root they run as the `postgres`
 * user, on a folder it owns. A machine without the binaries fails the test that asks for a cluster (never a
 * silent pass): set RESOURCERY_PG_BIN to their folder.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";

const BIN = process.env.RESOURCERY_PG_BIN ?? "/usr/lib/postgresql/15/bin";

/** A running cluster: its URL (database `postgres`, user `postgres`), a fresh database of its own, and how to stop it. */
export interface Postgres {
  readonly url: string;
  readonly port: number;
  /** Creates an empty database and gives its URL. */
  database(name: string): string;
  /** Stops the cluster immediately (as a crash would: `-m immediate`), keeping its files. */
  kill(): void;
  /** Starts a killed cluster again on the same port. */
  restart(): void;
  /** Stops it and removes its folder. */
  stop(): void;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const port = (server.address() as net.AddressInfo).port;
      server.close(() => resolve(port));
    });
  });
}

/** Starts a throwaway cluster. */
export async function startPostgres(): Promise<Postgres> {
  if (!fs.existsSync(path.join(BIN, "initdb"))) throw new Error(`PostgreSQL is not installed (${BIN}/initdb is missing): apt-get install postgresql, or set RESOURCERY_PG_BIN`);
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "resourcery-pg-"));
  const data = path.join(root, "data");
  const asRoot = process.getuid?.() === 0;
  const run = (bin: string, args: string[]) => {
    const command = asRoot ? "runuser" : path.join(BIN, bin);
    const full = asRoot ? ["-u", "postgres", "--", path.join(BIN, bin), ...args] : args;
    return execFileSync(command, full, { stdio: ["ignore", "pipe", "pipe"], cwd: root });
  };
  if (asRoot) execFileSync("chown", ["-R", "postgres:postgres", root]);
  fs.chmodSync(root, 0o755);
  run("initdb", ["-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--locale=C.UTF-8", "--no-sync"]);
  const port = await freePort();
  const options = `-p ${port} -k ${root} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`;
  const start = () => run("pg_ctl", ["-D", data, "-o", options, "-l", path.join(root, "log"), "-w", "-t", "30", "start"]);
  start();
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  let stopped = false;
  return {
    url,
    port,
    database(name) {
      if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`not a plain database name: ${name}`);
      run("psql", ["-h", "127.0.0.1", "-p", String(port), "-U", "postgres", "-d", "postgres", "-qc", `CREATE DATABASE ${name}`]);
      return `postgres://postgres@127.0.0.1:${port}/${name}`;
    },
    kill() {
      run("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"]);
    },
    restart() {
      start();
    },
    stop() {
      if (stopped) return;
      stopped = true;
      try {
        run("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"]);
      } catch {
        // already stopped
      }
      fs.rmSync(root, { recursive: true, force: true });
    },
  };
}
