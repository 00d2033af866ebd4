/**
 * `generate` on a service whose schemas are many: its validators worker runs the schema-compile rule (the
 * check leaves it to that worker), and what generate reports is exactly what `check` reports — a schema
 * ajv cannot compile stops generate, with the same position and fix, and nothing is written.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { runCli } from "../helpers/cli.js";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "resourcery-compile-worker-"));

/** A shared schema of `n` properties, each with a pattern and a long enum: ~100 KB of schema text at n = 300. */
function bigShared(n: number): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  for (let i = 0; i < n; i++) properties[`field${i}`] = { type: "string", pattern: `^[a-z]{${i % 7},}$`, enum: Array.from({ length: 12 }, (_, j) => `value-${i}-${j}-${"x".repeat(j)}`) };
  return { type: "object", properties };
}

/** A definitions folder with one big shared schema; `statusEnum` is the enum of a property of the order. */
function project(name: string, statusEnum: unknown[]): string {
  const dir = path.join(tmp, name);
  fs.mkdirSync(dir, { recursive: true });
  const service = { name: "shop-service", vendor: "acme", version: 1, baseUrl: "https://api.example.com/v1", errorDocsUrl: "https://docs.example.com/errors", resources: ["order.json"] };
  fs.writeFileSync(path.join(dir, "service.json"), JSON.stringify(service, null, 2));
  fs.writeFileSync(path.join(dir, "common.json"), JSON.stringify({ $defs: { settings: bigShared(300) } }, null, 2));
  const order = {
    title: "Order",
    type: "object",
    "x-collection": "orders",
    properties: { status: { type: "string", enum: statusEnum }, note: { type: "string" }, settings: { $ref: "common.json#/$defs/settings" } },
  };
  fs.writeFileSync(path.join(dir, "order.json"), JSON.stringify(order, null, 2));
  return dir;
}

/** The findings of `check --json` (an array) or `generate --json` (its `diagnostics`). */
function findings(json: string): unknown[] {
  const parsed = JSON.parse(json) as unknown[] | { diagnostics?: unknown[] };
  const list = Array.isArray(parsed) ? parsed : parsed.diagnostics;
  assert.ok(Array.isArray(list), json);
  return list;
}

test("a schema ajv cannot compile stops generate as it stops check: the same findings, nothing written", () => {
  const dir = project("broken", []);
  const out = path.join(tmp, "broken-out");
  const check = runCli(["check", dir, "--json"]);
  const generate = runCli(["generate", dir, "--out", out, "--json"], undefined, { RESOURCERY_TIMING: "1" });
  // The case this file is about: the rule ran in the validators worker, not in the check.
  assert.match(generate.stderr, /resourcery timing: schema-compile \(worker\)/);
  assert.is.not(check.code, 0, check.stdout);
  assert.is.not(generate.code, 0, generate.stdout);
  const fromCheck = findings(check.stdout);
  assert.ok(fromCheck.some((d) => (d as { rule: string; pointer: string }).rule === "schema-compile" && (d as { pointer: string }).pointer === "/properties/status/enum"), check.stdout);
  assert.equal(findings(generate.stdout), fromCheck);
  assert.not.ok(fs.existsSync(out), "nothing written");
});

test("the same service with a schema that compiles generates, with its validators precompiled", () => {
  const dir = project("fine", ["open", "closed"]);
  const out = path.join(tmp, "fine-out");
  const generate = runCli(["generate", dir, "--out", out]);
  assert.is(generate.code, 0, generate.stdout + generate.stderr);
  const validators = fs.readFileSync(path.join(out, "src/generated/validators.js"), "utf8");
  assert.match(validators, /export const fingerprint = "[0-9a-f]{64}";/);
  assert.not.match(validators, /None: /);
});

test.after(() => fs.rmSync(tmp, { recursive: true, force: true }));
test.run();
