#!/usr/bin/env node
// `npm run demo`: generates examples/directory into .demo/directory-service (or DEMO_DIR), installs and
// builds it, creates an API key, prints curl lines to try, and starts the service on the embedded SQLite
// store. The service runs as the demo's own child (node, with no npm and shell between them that would
// keep a signal from it), so SIGINT or SIGTERM sent to the demo reaches it and stops it gracefully; the
// demo then exits with the service's code.
import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const out = path.resolve(process.env.DEMO_DIR ?? path.join(root, ".demo", "directory-service"));
const port = process.env.PORT ?? "3000";
const base = `http://127.0.0.1:${port}/v1`;
const npm = process.platform === "win32" ? "npm.cmd" : "npm";
const step = (text) => console.log(`\n> ${text}`);

step(`resourcery generate examples/directory --out ${path.relative(root, out)}`);
execFileSync(process.execPath, [path.join(root, "bin", "run.js"), "generate", path.join(root, "examples", "directory"), "--out", out], { stdio: "inherit" });
if (!fs.existsSync(path.join(out, "node_modules"))) {
  step("npm install (the first time builds better-sqlite3: about a minute)");
  execFileSync(npm, ["install", "--no-audit", "--no-fund"], { cwd: out, stdio: "inherit" });
}
step("npm run build");
execFileSync(npm, ["run", "--silent", "build"], { cwd: out, stdio: "inherit" });
step("npm run keys -- create --roles admin");
const key = JSON.parse(execFileSync(npm, ["run", "--silent", "keys", "--", "create", "--roles", "admin"], { cwd: out, encoding: "utf8" }).trim());
console.log(JSON.stringify(key));

console.log(`
Try it (in another terminal) once the service is listening:

  SECRET=${key.secret}
  curl -s -H "Authorization: Bearer $SECRET" -H "Content-Type: application/json" -d '{"name":"Staff"}' ${base}/directories
  DIR=$(curl -s -H "Authorization: Bearer $SECRET" ${base}/directories | node -pe 'JSON.parse(require("fs").readFileSync(0)).items[0].meta.href')
  curl -s -H "Authorization: Bearer $SECRET" -H "Content-Type: application/json" -d '{"username":"ursula","email":"ursula@example.com","directory":{"meta":{"href":"'$DIR'"}}}' ${base}/accounts
  curl -s -H "Authorization: Bearer $SECRET" "${base}/accounts?expand=directory&fields=username,directory(name)"
  curl -s -H "Authorization: Bearer $SECRET" -H "Accept: application/vnd.acme.v1.directory+json" "$DIR?expand=accounts"
  curl -s -i ${base}/accounts        # 401 with WWW-Authenticate
`);
step(`node dist/src/main.js (what npm start runs; PORT=${port}, BASE_URL=${base}); Ctrl-C stops it`);
// In a process group of its own: Ctrl-C then reaches the demo only, which passes it on once (a second
// SIGINT would cut the service's graceful shutdown short).
const child = spawn(process.execPath, [path.join("dist", "src", "main.js")], {
  cwd: out,
  stdio: "inherit",
  detached: process.platform !== "win32",
  env: { ...process.env, PORT: port, BASE_URL: base },
});
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => child.kill(signal));
// Being in a session of its own, the service would outlive a closed terminal or a demo that dies: not so.
process.on("SIGHUP", () => child.kill("SIGTERM"));
process.on("exit", () => {
  if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
});
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 128 + (os.constants.signals[signal] ?? 0) : 1)));
