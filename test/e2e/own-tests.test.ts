/**
 * The generated package's tests test the conventions, not the user's rules, and the user's own tests have a
 * home (CONTRACT §5): hooks that refuse every body and a real action handler that refuses the sampled
 * parameters leave test/generated green, a user file that throws when loaded cannot stop it, the user's tests
 * in test/ run with the real hooks, and a case without a sample is skipped with its reason, never passed.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { repoRoot, runCli } from "../helpers/cli.js";
import { linkModules, run, type Run } from "../helpers/package.js";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "resourcery-own-tests-"));

/** uvu's summaries in `output`, in order: one per uvu run (npm test runs test/generated, then test/). */
function summaries(output: string): { total: number; passed: number; skipped: number }[] {
  return [...output.matchAll(/Total:\s+(\d+)\s+Passed:\s+(\d+)\s+Skipped:\s+(\d+)/g)].map((m) => ({ total: Number(m[1]), passed: Number(m[2]), skipped: Number(m[3]) }));
}

function npmTest(dir: string): Run {
  return run("npm", ["test", "--silent"], dir, { NO_COLOR: "1", FORCE_COLOR: "0" });
}

/** Replaces the object literal of a seeded hooks file with `body`. */
function writeHooks(out: string, collection: string, body: string): void {
  const file = path.join(out, "src/hooks", `${collection}.ts`);
  const seeded = fs.readFileSync(file, "utf8");
  const written = seeded.replace(/= \{\n[\s\S]*\n\};\n$/, `= {\n${body}\n};\n`);
  assert.is.not(written, seeded, `the hooks of ${collection} were written`);
  fs.writeFileSync(file, written);
}

test("hooks that refuse every body and a handler that refuses the sampled parameters leave test/generated green; the user's tests run with them", () => {
  const out = path.join(tmp, "directory");
  assert.is(runCli(["generate", path.join(repoRoot, "examples/directory"), "--out", out]).code, 0);
  linkModules(out);
  // Business rules: no collection accepts a new instance, a change or a deletion.
  for (const collection of ["accounts", "directories", "folders", "groups"]) {
    writeHooks(
      out,
      collection,
      [
        `  beforeCreate(input, ctx) {`,
        `    throw ctx.error("invalidProperty", "name", "No new ${collection} this quarter.");`,
        `  },`,
        `  beforeUpdate(input, current, ctx) {`,
        `    throw ctx.error("invalidProperty", "name", "${collection} are frozen.");`,
        `  },`,
        `  beforeDelete(current, ctx) {`,
        `    throw ctx.error("directoryNotEmpty");`,
        `  },`,
      ].join("\n"),
    );
  }
  // A real converter: it knows two currencies, and the sampled parameters (three random capitals) are neither.
  const samples = fs.readFileSync(path.join(out, "test/generated/samples.ts"), "utf8");
  const from = /"from": "([A-Z]{3})"/.exec(samples)?.[1];
  assert.ok(from && from !== "EUR" && from !== "USD", `the sampled currency ${from} is one the handler refuses`);
  fs.writeFileSync(
    path.join(out, "src/actions/convert.ts"),
    [
      `import type { HandlerContext } from "../generated/errors.js";`,
      `import type { ConvertParams, ConvertResult } from "../generated/types.js";`,
      ``,
      `const RATES: Record<string, number> = { EUR: 1, USD: 2 };`,
      ``,
      `export async function convert(params: ConvertParams, ctx: HandlerContext): Promise<ConvertResult> {`,
      `  const from = RATES[params.from];`,
      `  const to = RATES[params.to];`,
      `  if (from === undefined) throw ctx.error("unknownCurrency", "from");`,
      `  if (to === undefined) throw ctx.error("unknownCurrency", "to");`,
      `  return { from: params.from, to: params.to, amount: params.amount, result: (params.amount / from) * to };`,
      `}`,
      ``,
    ].join("\n"),
  );
  // The user's own test of those rules, beside the seeded example.
  fs.writeFileSync(
    path.join(out, "test/rules.test.ts"),
    [
      `import { test } from "uvu";`,
      `import * as assert from "uvu/assert";`,
      `import { errors } from "../src/generated/errors.js";`,
      `import { createService, type Service } from "../src/generated/server.js";`,
      `import { KeyRing } from "../src/generated/runtime/keys.js";`,
      `import { openSqliteStore } from "../src/generated/runtime/sqlite-store.js";`,
      `import { spec } from "../src/generated/spec.js";`,
      ``,
      `const keys = KeyRing.memory();`,
      `const headers = { authorization: \`Bearer \${keys.create(["admin"]).secret}\` };`,
      `let service: Service;`,
      `test.before(async () => {`,
      `  service = await createService({ env: { LOG_LEVEL: "warn" }, store: openSqliteStore(spec, ":memory:"), keys });`,
      `});`,
      `test.after(() => service.close());`,
      ``,
      `test("the hook refuses a new directory", async () => {`,
      `  const reply = await service.app.inject({ method: "POST", url: "/v1/directories", headers, payload: { name: "Sales" } });`,
      `  assert.is(reply.statusCode, 400, reply.body);`,
      `  assert.is(reply.json().code, errors.invalidProperty.code);`,
      `  assert.is(reply.json().dev, "No new directories this quarter.");`,
      `});`,
      ``,
      `test("convert knows EUR and USD only", async () => {`,
      `  const unknown = await service.app.inject({ method: "GET", url: "/v1/convert?from=${from}&to=EUR&amount=1", headers });`,
      `  assert.is(unknown.statusCode, 422, unknown.body);`,
      `  assert.equal([unknown.json().code, unknown.json().property], [errors.unknownCurrency.code, "from"]);`,
      `  const known = await service.app.inject({ method: "GET", url: "/v1/convert?from=EUR&to=USD&amount=10", headers });`,
      `  assert.equal(known.json(), { from: "EUR", to: "USD", amount: 10, result: 20 });`,
      `});`,
      ``,
      `test.run();`,
      ``,
    ].join("\n"),
  );

  const tests = npmTest(out);
  assert.is(tests.code, 0, tests.output);
  const [generated, own] = summaries(tests.output);
  assert.ok(generated && own, `two uvu runs:\n${tests.output}`);
  assert.ok(generated.total >= 40 && generated.passed === generated.total, `contract tests: ${generated.passed}/${generated.total}\n${tests.output}`);
  assert.is(generated.skipped, 0, "every case of the directory example has its samples");
  assert.not.match(tests.output, "Skipped for want of sample data");
  // The user's tests ran, with the real hooks and handler: the seeded example and the two rules above.
  assert.match(tests.output, "service.test.js");
  assert.match(tests.output, "rules.test.js");
  assert.equal(own, { total: 3, passed: 3, skipped: 0 });

  // A file of the user's that throws when loaded fails the user's tests, never the contract tests.
  const groups = path.join(out, "src/hooks/groups.ts");
  fs.writeFileSync(groups, `if (Date.now() > 0) throw new Error("groups.ts refuses to load");\n` + fs.readFileSync(groups, "utf8"));
  const broken = npmTest(out);
  assert.is.not(broken.code, 0, broken.output);
  assert.match(broken.output, "groups.ts refuses to load");
  const [stillGreen] = summaries(broken.output);
  assert.ok(stillGreen && stillGreen.total === generated.total && stillGreen.passed === stillGreen.total, `contract tests still pass:\n${broken.output}`);
});

/** A definitions project whose samples the generator cannot make: a `not` no generated string satisfies. */
function writeImpossibleProject(dir: string): void {
  const refusesSamples = { type: "string", not: { pattern: "^sample" } };
  fs.mkdirSync(path.join(dir, "resources"), { recursive: true });
  fs.writeFileSync(
    path.join(dir, "service.json"),
    JSON.stringify({
      name: "impossible-service",
      title: "Impossible",
      vendor: "imp",
      version: 1,
      baseUrl: "http://localhost:3000/v1",
      errorDocsUrl: "http://localhost:3000/docs/errors",
      resources: ["resources/*.json"],
      actions: {
        convert: {
          method: "GET",
          query: { type: "object", required: ["code"], properties: { code: refusesSamples } },
          response: { type: "object", properties: { rate: { type: "number" } } },
        },
        measure: {
          method: "GET",
          query: { type: "object", properties: { unit: { type: "string" } } },
          response: { type: "object", required: ["value"], properties: { value: refusesSamples } },
        },
      },
    }),
  );
  const resource = (title: string, collection: string, required: string[], properties: Record<string, unknown>) =>
    JSON.stringify({ title, type: "object", "x-collection": collection, required, additionalProperties: false, properties });
  fs.writeFileSync(path.join(dir, "resources/gadget.json"), resource("Gadget", "gadgets", ["code"], { code: refusesSamples }));
  fs.writeFileSync(path.join(dir, "resources/part.json"), resource("Part", "parts", ["name", "gadget"], { name: { type: "string" }, gadget: { $ref: "gadget.json" } }));
  // The same schema with examples (one the schema refuses): the valid one is the sample, and nothing is skipped.
  fs.writeFileSync(path.join(dir, "resources/widget.json"), resource("Widget", "widgets", ["code"], { code: { ...refusesSamples, examples: ["sample-1", "W-1"] } }));
  // A required stored list of links with minItems: the tests create its members. Whole-body examples (one in
  // the representation's shape, with an id) come first.
  fs.writeFileSync(path.join(dir, "resources/person.json"), resource("Person", "people", ["name"], { name: { type: "string" } }));
  const team = JSON.parse(resource("Team", "teams", ["name", "members"], { name: { type: "string" }, members: { type: "array", items: { $ref: "person.json" }, minItems: 2 } }));
  fs.writeFileSync(path.join(dir, "resources/team.json"), JSON.stringify({ ...team, examples: [{ id: "t1", name: "Core", members: [] }] }));
}

test("a package whose samples are impossible reports skips with their reasons, not passes, and 0 failures", () => {
  const defs = path.join(tmp, "impossible-defs");
  const out = path.join(tmp, "impossible");
  writeImpossibleProject(defs);
  const generated = runCli(["generate", defs, "--out", out]);
  assert.is(generated.code, 0, generated.stdout + generated.stderr);
  linkModules(out);
  const tests = npmTest(out);
  assert.is(tests.code, 0, tests.output);
  const [contract, own] = summaries(tests.output);
  assert.ok(contract && own, tests.output);
  assert.is(contract.passed, contract.total, tests.output);
  // gadgets and parts: ids, create, unknown property, wrong type, missing property, PUT/PATCH/DELETE; convert: 2; measure: 1.
  assert.is(contract.skipped, 15, tests.output);
  assert.equal(own, { total: 1, passed: 1, skipped: 0 });
  const reasons = tests.output.slice(tests.output.indexOf("Skipped for want of sample data"));
  assert.ok(reasons.length < tests.output.length, `the reasons are printed:\n${tests.output}`);
  assert.match(reasons, 'gadgets has no sample body: no value satisfies the schema of the required property "code"');
  assert.match(reasons, "skipped: gadgets › POST creates (201, Location, meta)");
  assert.match(reasons, 'parts needs a link to gadgets ("gadget" is required), and gadgets has no sample body');
  assert.match(reasons, "skipped: parts › PUT replaces, PATCH merges, DELETE removes");
  assert.match(reasons, "skipped: gadgets › ids are UUIDs (x-id), in the href too; an id of another form is a 404");
  assert.match(reasons, 'no sample of the parameters of convert: no value satisfies the schema of the required parameter "code"');
  assert.match(reasons, "skipped: action convert › valid parameters: 200 with the handler's result");
  assert.match(reasons, "no sample of the response of measure for its stub to answer with");
  assert.not.match(reasons, "widgets", "the example gave widgets a sample");
  assert.not.match(reasons, "teams", "teams are created with the members their list requires");
  assert.is((reasons.match(/skipped: /g) ?? []).length, 15, "one line per skipped case");
  const samples = fs.readFileSync(path.join(out, "test/generated/samples.ts"), "utf8");
  assert.match(samples, /"widgets": \{\n\s+"bodies": \[\n\s+\{\n\s+"code": "W-1"\n/);
  assert.match(samples, /"teams": \{\n\s+"bodies": \[\n\s+\{\n\s+"name": "Core"\n/);
});

/**
 * A definitions project whose empty x-access lists close routes to every key: no key may create ledgers (nor the
 * entries that require one), and no key may read, update or delete audits, which memos list.
 */
function writeClosedProject(dir: string): void {
  fs.mkdirSync(path.join(dir, "resources"), { recursive: true });
  fs.writeFileSync(
    path.join(dir, "service.json"),
    JSON.stringify({
      name: "closed-service",
      title: "Closed",
      vendor: "closed",
      version: 1,
      baseUrl: "http://localhost:3000/v1",
      errorDocsUrl: "http://localhost:3000/docs/errors",
      resources: ["resources/*.json"],
    }),
  );
  const resource = (file: string, title: string, collection: string, access: object | undefined, required: string[], properties: Record<string, unknown>) =>
    fs.writeFileSync(
      path.join(dir, "resources", file),
      JSON.stringify({ title, type: "object", "x-collection": collection, ...(access ? { "x-access": access } : {}), required, additionalProperties: false, properties }),
    );
  resource("ledger.json", "Ledger", "ledgers", { create: [] }, ["name"], { name: { type: "string" } });
  resource("entry.json", "Entry", "entries", undefined, ["amount", "ledger"], { amount: { type: "number" }, ledger: { $ref: "ledger.json" } });
  resource("audit.json", "Audit", "audits", { read: [], update: [], delete: [] }, ["note"], { note: { type: "string" } });
  resource("memo.json", "Memo", "memos", undefined, ["text"], { text: { type: "string" }, audits: { type: "array", items: { $ref: "audit.json" } } });
}

test('routes an empty x-access list closes ("create": []) are skipped with the reason where a case needs them, and answer 403 to every key', () => {
  const defs = path.join(tmp, "closed-defs");
  const out = path.join(tmp, "closed");
  writeClosedProject(defs);
  const generated = runCli(["generate", defs, "--out", out]);
  assert.is(generated.code, 0, generated.stdout + generated.stderr);
  // check warns about each closed list; generate goes on.
  assert.is((generated.stdout.match(/warning {2}closed-route/g) ?? []).length, 4, generated.stdout);
  assert.match(generated.stdout, 'no key may create ledgers (POST /v1/ledgers answers 403 to every key)');
  linkModules(out);
  const tests = npmTest(out);
  assert.is(tests.code, 0, tests.output);
  const [contract, own] = summaries(tests.output);
  assert.ok(contract && own, tests.output);
  assert.is(contract.passed, contract.total, tests.output);
  // ledgers: ids, bodies refused, create, unknown property, wrong type, missing property, PUT/PATCH/DELETE (7);
  // entries, which need a ledger: the same but bodies refused (6); audits: GET the collection, 406, 404, ids,
  // create-and-read, PUT/PATCH/DELETE (6).
  assert.is(contract.skipped, 19, tests.output);
  // What ran: ledgers 7 and audits 7, each with its case of the closed routes (403 to every key); entries 6;
  // memos 12, whose sub-collection of audits answers 403; and the unknown route.
  assert.is(contract.total, 33, tests.output);
  assert.equal(own, { total: 1, passed: 1, skipped: 0 });
  const heading = "Skipped because a route they need is closed to every key";
  const reasons = tests.output.slice(tests.output.indexOf(heading));
  assert.ok(reasons.length < tests.output.length, `the reasons are printed:\n${tests.output}`);
  assert.not.match(tests.output, "Skipped for want of sample data", "every case has its samples");
  assert.match(reasons, 'no key may create ledgers: its x-access "create" is [] and names no admin role\n      skipped: ledgers › bodies refused');
  assert.match(reasons, "skipped: ledgers › POST creates (201, Location, meta)");
  assert.match(reasons, 'entries needs a link to ledgers ("ledger" is required), and no key may create ledgers');
  assert.match(reasons, "skipped: entries › PUT replaces, PATCH merges, DELETE removes");
  assert.match(reasons, 'no key may read audits: its x-access "read" is [] and names no admin role');
  assert.match(reasons, "skipped: audits › GET the collection: a page with meta");
  assert.not.match(reasons, "memos", "memos need no closed route");
  assert.match(reasons, "skipped: audits › ids are UUIDs (x-id), in the href too; an id of another form is a 404");
  assert.is((reasons.match(/skipped: /g) ?? []).length, 19, "one line per skipped case");
});

test.after(() => fs.rmSync(tmp, { recursive: true, force: true }));
test.run();
