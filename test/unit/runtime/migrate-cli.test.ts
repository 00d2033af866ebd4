/**
 * `npm run migrate` (templates/runtime/migrate-cli.ts) on the embedded SQLite store: --dry-run prints each
 * statement after the reason for it and changes nothing, a run applies them, a refusal is one line and exit 1,
 * and a wrong argument is a usage error. (The PostgreSQL side runs in test/e2e/postgres.test.ts.)
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { main } from "../../../templates/runtime/migrate-cli.js";
import type { FieldSpec, ServiceSpec } from "../../../templates/runtime/spec.js";
import { openSqliteStore } from "../../../templates/runtime/sqlite-store.js";
import { testResource, testSpec } from "../../helpers/stores.js";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "resourcery-migrate-cli-"));
const file = path.join(tmp, "notes.db");
test.after(() => fs.rmSync(tmp, { recursive: true, force: true }));

function spec(required: string[], tagDefault?: string): ServiceSpec {
  const fields: FieldSpec[] = [{ name: "text", kind: "string" }, { name: "tag", kind: "string", ...(tagDefault !== undefined ? { default: tagDefault } : {}) }];
  return testSpec([testResource("notes", fields, [], { required, bodySchema: { type: "object", required } })], "notes");
}

async function cli(argv: string[], s: ServiceSpec): Promise<{ code: number; out: string[]; err: string[] }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(argv, { DATABASE_FILE: file }, s, (l) => out.push(l), (l) => err.push(l));
  return { code, out, err };
}

const stored = () => {
  const store = openSqliteStore(spec(["text"]), file);
  try {
    return JSON.stringify(store.immediate.get("notes", "n1")?.data);
  } finally {
    void store.close();
  }
};

test("a dry run on a file that does not exist yet plans every table, and creates nothing", async () => {
  const r = await cli(["--dry-run"], spec(["text"]));
  assert.is(r.code, 0, r.err.join("\n"));
  assert.match(r.out[0]!, /^-- would run on the SQLite file .*notes\.db \(\d+ statements\)$/);
  assert.ok(r.out.includes('-- collection notes is new'), r.out.join("\n"));
  assert.ok(r.out.some((l) => l.startsWith('CREATE TABLE IF NOT EXISTS "notes"')), r.out.join("\n"));
  assert.not.ok(fs.existsSync(file), "no file made");
});

test("a property made required: refused without a default (exit 1, one line, nothing changed), planned then applied with one", async () => {
  const store = openSqliteStore(spec(["text"]), file);
  await store.insert("notes", { id: "n1", createdAt: "2024-01-01T00:00:00.000Z", modifiedAt: "2024-01-01T00:00:00.000Z", data: { text: "hello" } });
  await store.close();
  assert.match((await cli(["--dry-run"], spec(["text"]))).out.join("\n"), /is in line with the definitions: nothing to do/);
  const refused = await cli([], spec(["tag", "text"]));
  assert.is(refused.code, 1);
  assert.is(refused.err.length, 1, refused.err.join("\n"));
  assert.match(refused.err[0]!, /^migrate: refused on the SQLite file .*: 1 instance of "notes" stored before property "tag" became required lacks it/);
  assert.is(stored(), '{"text":"hello"}');
  const dry = await cli(["--dry-run"], spec(["tag", "text"], "inbox"));
  assert.is(dry.code, 0, dry.err.join("\n"));
  assert.equal(dry.out.slice(1), [
    '-- 1 instance(s) of notes lack the required property "tag": its default',
    `UPDATE "notes" SET data = substr(data, 1, length(data) - 1) || CASE WHEN data = '{}' THEN '' ELSE ',' END || '"tag":"inbox"}' WHERE json_type(data, '$."tag"') IS NULL;`,
    "-- record what the instances of notes hold",
    `INSERT INTO rsc_schema (collection, state) VALUES ('notes', '{"required":["tag","text"]}') ON CONFLICT (collection) DO UPDATE SET state = excluded.state;`,
  ]);
  assert.is(stored(), '{"text":"hello"}', "a dry run changes nothing");
  const ran = await cli([], spec(["tag", "text"], "inbox"));
  assert.is(ran.code, 0, ran.err.join("\n"));
  assert.match(ran.out[0]!, /^-- ran on the SQLite file/);
  assert.is(stored(), '{"text":"hello","tag":"inbox"}');
});

test("usage: an unknown argument is exit 2 with the usage; --help prints it", async () => {
  const bad = await cli(["--dryrun"], spec(["text"]));
  assert.is(bad.code, 2);
  assert.match(bad.err.join("\n"), /unexpected argument "--dryrun"[\s\S]*usage: npm run migrate/);
  const help = await cli(["--help"], spec(["text"]));
  assert.is(help.code, 0);
  assert.match(help.out[0]!, /^usage: npm run migrate/);
});

test.run();
