/**
 * Runs the baseline or the floor (baseline.ts) in a process of its own, as the generated service
 * runs: `node --import tsx serve-baseline.ts baseline|floor|baseline-pg`, options in BENCH_SERVER (JSON). Serving
 * from a child process like the generated service, no server shares its process with autocannon:
 * measured here, a server inside the load generator's process showed ~0.7× the p99 of the same server
 * in a child process, which made any in-process baseline look better than it is. Stops on SIGTERM.
 */
import { startBaseline, startFloor, type BaselineOptions } from "./baseline.js";
import { startPgBaseline, type PgBaselineOptions } from "./baseline-pg.js";

const kind = process.argv[2];
if (kind !== "baseline" && kind !== "floor" && kind !== "baseline-pg") throw new Error(`usage: serve-baseline.ts baseline|floor|baseline-pg (got ${kind})`);
const options = JSON.parse(process.env.BENCH_SERVER ?? "{}") as BaselineOptions & PgBaselineOptions;
const stop = await (kind === "baseline" ? startBaseline : kind === "floor" ? startFloor : startPgBaseline)(options);
process.once("SIGTERM", () => void stop().then(() => process.exit(0)));
