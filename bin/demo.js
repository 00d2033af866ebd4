#!/usr/bin/env node
// `npm run demo`: generates examples/directory into .demo/directory-service, installs it, creates an
// API key, prints curl lines to try, and starts the service on the embedded SQLite store.
import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const out = path.join(root, ".demo", "directory-service");
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
step(`npm start (PORT=${port}, BASE_URL=${base}); Ctrl-C stops it`);
const child = spawn(npm, ["start"], { cwd: out, stdio: "inherit", env: { ...process.env, PORT: port, BASE_URL: base } });
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => child.kill(signal));
child.on("exit", (code) => process.exit(code ?? 0));
