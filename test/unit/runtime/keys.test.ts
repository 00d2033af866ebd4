/**
 * API keys: KeyRing (create, verify by Bearer secret and by Basic id+secret, revoke, the keys file and its
 * HMAC secret, reload on change, the verified-secret cache), the Authorization parser, the challenges,
 * and the keys command line (main() and the real script).
 */
import { spawn } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { countHmac } from "../../helpers/count-hmac.js";
import { main } from "../../../templates/runtime/keys-cli.js";
import { challenges, KeyRing, parseAuthorization } from "../../../templates/runtime/keys.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const cliScript = path.join(root, "templates/runtime/keys-cli.ts");
const B64URL = /^[A-Za-z0-9_-]+$/;
const noEnv: NodeJS.ProcessEnv = {};

function tempDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), "rsc-keys-"));
}

function withDir(fn: (dir: string) => void | Promise<void>): () => Promise<void> {
  return async () => {
    const dir = tempDir();
    try {
      await fn(dir);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  };
}

function clock(start = 1_700_000_000_000) {
  const c = { t: start, now: () => c.t };
  return c;
}

function readKeys(file: string): { version: number; keys: { id: string; roles: string[]; hash: string; createdAt: string }[] } {
  return JSON.parse(fs.readFileSync(file, "utf8"));
}

const mode = (file: string) => fs.statSync(file).mode & 0o777;

// ---------------------------------------------------------------- KeyRing in memory

test("create gives a short id, a 256-bit base64url secret and the roles; the secret verifies as Bearer and Basic", () => {
  const ring = KeyRing.memory();
  const key = ring.create(["reader", "writer", "reader"]);
  assert.match(key.id, B64URL);
  assert.is(key.id.length, 22, "16 random bytes");
  assert.match(key.secret, B64URL);
  assert.is(Buffer.from(key.secret, "base64url").length, 32);
  assert.equal(key.roles, ["reader", "writer"], "roles once each, in order");
  const found = ring.verifySecret(key.secret);
  assert.equal(found && { id: found.id, roles: found.roles }, { id: key.id, roles: ["reader", "writer"] });
  assert.match(found?.createdAt ?? "", /^\d{4}-\d\d-\d\dT/);
  assert.not.ok(found && ("hash" in found || "secret" in found), "a verified key carries neither hash nor secret");
  assert.is(ring.verifyBasic(key.id, key.secret)?.id, key.id);
});

test("wrong, empty, oversized or other keys' secrets do not verify", () => {
  const ring = KeyRing.memory();
  const a = ring.create(["r"]);
  const b = ring.create([]);
  assert.is.not(a.id, b.id);
  assert.is.not(a.secret, b.secret);
  assert.is(ring.verifySecret(a.secret.slice(0, -1)), undefined);
  assert.is(ring.verifySecret(a.secret + "x"), undefined);
  assert.is(ring.verifySecret(""), undefined);
  assert.is(ring.verifySecret("x".repeat(100_000)), undefined);
  assert.is(ring.verifySecret(a.id), undefined, "the id is not a secret");
  assert.is(ring.verifyBasic(a.id, b.secret), undefined, "another key's secret");
  assert.is(ring.verifyBasic(b.id, a.secret), undefined, "even once a.secret is cached");
  assert.is(ring.verifyBasic("nope", a.secret), undefined);
  assert.is(ring.verifyBasic(a.id, ""), undefined);
  assert.equal(ring.verifyBasic(b.id, b.secret)?.roles, []);
});

test("an empty ring accepts nothing and invalid role names are refused", () => {
  const ring = KeyRing.memory();
  assert.is(ring.verifySecret("anything"), undefined);
  assert.is(ring.verifyBasic("a", "b"), undefined);
  assert.equal(ring.list(), []);
  for (const bad of ["", "a b", "a,b", "x\n"]) assert.throws(() => ring.create([bad]), /invalid role/);
});

test("revoke removes a key at once, cached or not", () => {
  const ring = KeyRing.memory();
  const a = ring.create(["r"]);
  const b = ring.create(["s"]);
  assert.ok(ring.verifySecret(a.secret));
  assert.is(ring.revoke(a.id), true);
  assert.is(ring.revoke(a.id), false);
  assert.is(ring.verifySecret(a.secret), undefined);
  assert.is(ring.verifyBasic(a.id, a.secret), undefined);
  assert.equal(ring.list().map((k) => k.id), [b.id]);
});

test("verified secrets are cached for 30 s: repeated requests skip the HMAC", () => {
  const c = clock();
  const ring = KeyRing.memory({ now: c.now });
  const key = ring.create(["r"]);
  assert.is(countHmac(() => ring.verifySecret(key.secret)), 1);
  assert.is(countHmac(() => { for (let i = 0; i < 100; i++) ring.verifySecret(key.secret); }), 0);
  assert.is(countHmac(() => ring.verifyBasic(key.id, key.secret)), 0, "Basic uses the same cache");
  c.t += 29_999;
  assert.is(countHmac(() => ring.verifySecret(key.secret)), 0);
  c.t += 1;
  assert.is(countHmac(() => assert.ok(ring.verifySecret(key.secret))), 1, "expired: hashed again");
  assert.is(countHmac(() => ring.verifySecret("wrong-secret")), 1);
  assert.is(countHmac(() => ring.verifySecret("wrong-secret")), 1, "failures are not cached");
});

test("the cache is capped: the oldest verified secret is dropped first", () => {
  const ring = KeyRing.memory({ cacheLimit: 3 });
  const keys = [ring.create([]), ring.create([]), ring.create([]), ring.create([])];
  for (const k of keys) ring.verifySecret(k.secret);
  assert.is(countHmac(() => ring.verifySecret(keys[3]!.secret)), 0);
  assert.is(countHmac(() => ring.verifySecret(keys[1]!.secret)), 0);
  assert.is(countHmac(() => ring.verifySecret(keys[0]!.secret)), 1, "evicted");
  const none = KeyRing.memory({ cacheLimit: 0 });
  const k = none.create([]);
  assert.is(countHmac(() => { none.verifySecret(k.secret); none.verifySecret(k.secret); }), 2);
});

// ---------------------------------------------------------------- KeyRing on a file

test("create persists {version 1, keys: [{id, roles, hash, createdAt}]}, mode 0600, hash = HMAC(.hmac, secret), never the secret", withDir((dir) => {
  const file = path.join(dir, "data", "keys.json");
  const ring = KeyRing.open(file, { env: noEnv });
  assert.not.ok(fs.existsSync(file), "opening creates nothing");
  const key = ring.create(["admin"]);
  const text = fs.readFileSync(file, "utf8");
  assert.not.ok(text.includes(key.secret), "the secret is never written");
  const doc = readKeys(file);
  assert.is(doc.version, 1);
  assert.is(doc.keys.length, 1);
  const stored = doc.keys[0]!;
  assert.equal(Object.keys(stored).sort(), ["createdAt", "hash", "id", "roles"]);
  assert.equal([stored.id, stored.roles], [key.id, ["admin"]]);
  const hmacFile = `${file}.hmac`;
  const hmacText = fs.readFileSync(hmacFile, "utf8").trim();
  assert.is(Buffer.from(hmacText, "base64url").length, 32);
  assert.is(stored.hash, crypto.createHmac("sha256", hmacText).update(key.secret).digest("hex"));
  if (process.platform !== "win32") {
    assert.is(mode(file), 0o600);
    assert.is(mode(hmacFile), 0o600);
  }
  assert.equal(fs.readdirSync(path.dirname(file)).sort(), ["keys.json", "keys.json.hmac"], "no temporary or lock files left");
}));

test("a key created by one ring verifies in a ring opened afterwards on the same file", withDir((dir) => {
  const file = path.join(dir, "keys.json");
  const a = KeyRing.open(file, { env: noEnv }).create(["r1", "r2"]);
  const b = KeyRing.open(file, { env: noEnv }).create([]);
  const ring = KeyRing.open(file, { env: noEnv });
  assert.equal(ring.verifySecret(a.secret)?.roles, ["r1", "r2"]);
  assert.is(ring.verifyBasic(b.id, b.secret)?.id, b.id);
  assert.equal(ring.list().map((k) => k.id), [a.id, b.id]);
}));

test("KEYS_HMAC_SECRET is used instead of the .hmac file; the .hmac text works as KEYS_HMAC_SECRET", withDir((dir) => {
  const file = path.join(dir, "keys.json");
  const env = { KEYS_HMAC_SECRET: "a server secret of some length" };
  const key = KeyRing.open(file, { env }).create(["r"]);
  assert.not.ok(fs.existsSync(`${file}.hmac`));
  assert.is(readKeys(file).keys[0]!.hash, crypto.createHmac("sha256", env.KEYS_HMAC_SECRET).update(key.secret).digest("hex"));
  assert.ok(KeyRing.open(file, { env }).verifySecret(key.secret));
  assert.is(KeyRing.open(file, { env: { KEYS_HMAC_SECRET: "another secret, just as long" } }).verifySecret(key.secret), undefined);
  assert.throws(() => KeyRing.open(file, { env: noEnv }), (e: unknown) => e instanceof Error && /HMAC secret/.test(e.message) && e.message.includes(`${file}.hmac`));
  assert.throws(() => KeyRing.open(file, { env: { KEYS_HMAC_SECRET: "short" } }), /at least 16/);

  const file2 = path.join(dir, "other.json");
  const k2 = KeyRing.open(file2, { env: noEnv }).create([]);
  const copied = fs.readFileSync(`${file2}.hmac`, "utf8").trim();
  assert.ok(KeyRing.open(file2, { env: { KEYS_HMAC_SECRET: copied } }).verifySecret(k2.secret));
}));

test("a missing keys file means no keys; a corrupt one is a clear Error", withDir((dir) => {
  const file = path.join(dir, "keys.json");
  const ring = KeyRing.open(file, { env: noEnv });
  assert.is(ring.verifySecret("whatever"), undefined);
  assert.equal(ring.list(), []);
  assert.equal(fs.readdirSync(dir), [], "verifying with no keys creates no files");
  const cases: [string, RegExp][] = [
    ["{not json", /not JSON/],
    ["[]", /not a JSON object/],
    [`{"version":2,"keys":[]}`, /unsupported version 2/],
    [`{"version":1}`, /"keys" is not an array/],
    [`{"version":1,"keys":[{"id":"a","roles":[],"hash":"zz","createdAt":"t"}]}`, /keys\[0\]\.hash/],
    [`{"version":1,"keys":[{"id":"a","roles":"r","hash":"${"0".repeat(64)}","createdAt":"t"}]}`, /keys\[0\]\.roles/],
    [`{"version":1,"keys":[{"id":"a","roles":[],"hash":"${"0".repeat(64)}","createdAt":"t"},{"id":"a","roles":[],"hash":"${"1".repeat(64)}","createdAt":"t"}]}`, /appears twice/],
  ];
  for (const [text, why] of cases) {
    fs.writeFileSync(file, text);
    assert.throws(
      () => KeyRing.open(file, { env: noEnv }),
      (e: unknown) => e instanceof Error && e.message.includes(file) && /corrupt/.test(e.message) && why.test(e.message),
      text,
    );
  }
}));

test("keys created or revoked by another process are picked up (file checked at most once per second)", withDir((dir) => {
  const file = path.join(dir, "keys.json");
  const c = clock();
  const server = KeyRing.open(file, { env: noEnv, now: c.now });
  const cli = KeyRing.open(file, { env: noEnv });
  const key = cli.create(["r"]);
  assert.is(server.verifySecret(key.secret), undefined, "not checked again within the second");
  c.t += 1000;
  assert.equal(server.verifySecret(key.secret)?.roles, ["r"]);
  assert.ok(server.verifySecret(key.secret), "cached now");
  KeyRing.open(file, { env: noEnv }).revoke(key.id);
  c.t += 1000;
  assert.is(server.verifySecret(key.secret), undefined, "a reload empties the cache: revocation wins");
  assert.is(server.verifyBasic(key.id, key.secret), undefined);
  fs.rmSync(file);
  c.t += 1000;
  assert.equal(server.list(), [], "a deleted file means no keys");
}));

test("a keys file corrupted while the server runs fails closed with the clear Error, then recovers", withDir((dir) => {
  const file = path.join(dir, "keys.json");
  const c = clock();
  const server = KeyRing.open(file, { env: noEnv, now: c.now });
  const key = server.create(["r"]);
  assert.ok(server.verifySecret(key.secret));
  const good = fs.readFileSync(file, "utf8");
  fs.writeFileSync(file, good.slice(0, 20));
  c.t += 1000;
  assert.throws(() => server.verifySecret(key.secret), /corrupt/);
  assert.throws(() => server.verifySecret(key.secret), /corrupt/, "still failing within the second");
  fs.writeFileSync(file, good);
  c.t += 1000;
  assert.ok(server.verifySecret(key.secret));
}));

test("two rings writing one file keep each other's keys (each change re-reads the file under a lock)", withDir((dir) => {
  const file = path.join(dir, "keys.json");
  const one = KeyRing.open(file, { env: noEnv });
  const two = KeyRing.open(file, { env: noEnv });
  const made = [];
  for (let i = 0; i < 5; i++) made.push(one.create([`a${i}`]), two.create([`b${i}`]));
  assert.equal(readKeys(file).keys.map((k) => k.id), made.map((k) => k.id));
  assert.is(two.revoke(made[0]!.id), true);
  assert.is(one.revoke(made[0]!.id), false, "already gone from the file");
  const fresh = KeyRing.open(file, { env: noEnv });
  for (const k of made.slice(1)) assert.ok(fresh.verifySecret(k.secret));
}));

test("a stale lock file (older than 30 s) is broken rather than blocking changes forever", withDir((dir) => {
  const file = path.join(dir, "keys.json");
  const lock = `${file}.lock`;
  fs.writeFileSync(lock, "");
  const old = new Date(Date.now() - 60_000);
  fs.utimesSync(lock, old, old);
  const ring = KeyRing.open(file, { env: noEnv });
  ring.create([]);
  assert.not.ok(fs.existsSync(lock));
}));

// ---------------------------------------------------------------- Authorization and challenges

const b64 = (s: string) => Buffer.from(s, "utf8").toString("base64");

test("parseAuthorization: none, Basic (secret may hold colons), Bearer, other, malformed", () => {
  assert.equal(parseAuthorization(undefined), { scheme: "none" });
  assert.equal(parseAuthorization(""), { scheme: "none" });
  assert.equal(parseAuthorization("   "), { scheme: "none" });
  assert.equal(parseAuthorization(`Basic ${b64("id1:s3cr3t")}`), { scheme: "basic", id: "id1", secret: "s3cr3t" });
  assert.equal(parseAuthorization(`bAsIc   ${b64("id1:a:b::c")} `), { scheme: "basic", id: "id1", secret: "a:b::c" });
  assert.equal(parseAuthorization(`Basic ${b64("id:").replace(/=+$/, "")}`), { scheme: "basic", id: "id", secret: "" }, "padding optional");
  assert.equal(parseAuthorization(`Basic ${b64("ïd:sécret")}`), { scheme: "basic", id: "ïd", secret: "sécret" });
  assert.equal(parseAuthorization("Bearer abc-DEF_123.~+/=="), { scheme: "bearer", token: "abc-DEF_123.~+/==" });
  assert.equal(parseAuthorization("BEARER\ttok"), { scheme: "bearer", token: "tok" });
  assert.equal(parseAuthorization("Digest username=x"), { scheme: "other" });
  assert.equal(parseAuthorization("Negotiate"), { scheme: "other" });
  for (const bad of [
    "Basic",
    "Basic ",
    `Basic ${b64("no-colon")}`,
    `Basic ${b64(":secret-only")}`,
    "Basic !!!!",
    "Basic a b",
    `Basic ${Buffer.from([0x69, 0x64, 0x3a, 0xff, 0xfe]).toString("base64")}`,
    "Bearer",
    "Bearer a b",
    "Bearer a,b",
    "Bearer\nabc",
    "(bad) x",
    "Basic\u00a0abc",
  ]) {
    assert.equal(parseAuthorization(bad), { scheme: "malformed" }, JSON.stringify(bad));
  }
});

test("challenges: one WWW-Authenticate value per distinct challenge, realm quoted and escaped", () => {
  assert.equal(challenges(["basic"], "library"), ['Basic realm="library"']);
  assert.equal(challenges(["apiKey", "basic", "bearer", "oauth2"], "library"), ['Bearer realm="library"', 'Basic realm="library"']);
  assert.equal(challenges(["bearer", "apiKey"], "lib"), ['Bearer realm="lib"']);
  assert.equal(challenges([], "lib"), []);
  assert.equal(challenges(["basic"], 'say "hi" \\ bye'), ['Basic realm="say \\"hi\\" \\\\ bye"']);
  assert.equal(challenges(["basic"], "a\r\nSet-Cookie: x"), ['Basic realm="a  Set-Cookie: x"'], "no header injection");
  // Node refuses a header value with a character above U+00FF (every 401 became a 500); clients read Latin-1 unevenly.
  assert.equal(challenges(["basic"], "Bibliothèque \u56fe\u4e66\u9986\u2028x"), ['Basic realm="Bibliotheque ??? x"']);
});

test("challenges for a refused Bearer token carry error=\"invalid_token\" (RFC 6750), the Basic one does not", () => {
  assert.equal(challenges(["apiKey", "basic"], "lib", "invalid_token"), ['Bearer realm="lib", error="invalid_token"', 'Basic realm="lib"']);
  assert.equal(challenges(["basic"], "lib", "invalid_token"), ['Basic realm="lib"']);
});

test("parseAuthorization: two Authorization headers (joined by the server with \", \") are malformed, whichever is valid", () => {
  for (const joined of ["Bearer abc, Bearer def", "Bearer abc, Basic " + b64("id:s"), "Basic " + b64("id:s") + ", Bearer abc", "Basic " + b64("id:s") + ", Basic " + b64("id:s")]) {
    assert.equal(parseAuthorization(joined), { scheme: "malformed" }, joined);
  }
  assert.equal(parseAuthorization(["Bearer abc", "Bearer def"] as unknown as string), { scheme: "malformed" }, "an array");
});

// ---------------------------------------------------------------- keys command line

function run(argv: string[], env: NodeJS.ProcessEnv) {
  const out: string[] = [];
  const err: string[] = [];
  const code = main(argv, env, (l) => out.push(l), (l) => err.push(l));
  return { code, out, err };
}

test("keys create prints exactly one line of JSON {id, secret, roles}; the server accepts the key", withDir((dir) => {
  const env = { KEYS_FILE: path.join(dir, "k", "keys.json") };
  const r = run(["create", "--roles", "reader,writer"], env);
  assert.is(r.code, 0);
  assert.equal(r.err, []);
  assert.is(r.out.length, 1);
  const printed = JSON.parse(r.out[0]!);
  assert.equal(Object.keys(printed), ["id", "secret", "roles"]);
  assert.equal(printed.roles, ["reader", "writer"]);
  assert.equal(KeyRing.open(env.KEYS_FILE, { env }).verifySecret(printed.secret)?.id, printed.id);
  assert.equal(JSON.parse(run(["create", "--roles=a"], env).out[0]!).roles, ["a"]);
  assert.equal(JSON.parse(run(["create"], env).out[0]!).roles, []);
  assert.equal(JSON.parse(run(["create", "--roles", " a , b "], env).out[0]!).roles, ["a", "b"]);
}));

test("keys list prints ids and roles only; revoke removes a key", withDir((dir) => {
  const env = { KEYS_FILE: path.join(dir, "keys.json"), KEYS_HMAC_SECRET: "0123456789abcdef0123" };
  const a = JSON.parse(run(["create", "--roles", "r"], env).out[0]!);
  const b = JSON.parse(run(["create"], env).out[0]!);
  const listed = run(["list"], env);
  assert.is(listed.code, 0);
  assert.equal(listed.out.map((l) => JSON.parse(l)), [{ id: a.id, roles: ["r"] }, { id: b.id, roles: [] }]);
  assert.not.ok(listed.out.join("").includes(a.secret));
  const revoked = run(["revoke", a.id], env);
  assert.equal([revoked.code, revoked.out], [0, [JSON.stringify({ revoked: a.id })]]);
  assert.equal(run(["list"], env).out.map((l) => JSON.parse(l).id), [b.id]);
  const again = run(["revoke", a.id], env);
  assert.is(again.code, 1);
  assert.match(again.err.join("\n"), /no key with id/);
  assert.is(KeyRing.open(env.KEYS_FILE, { env }).verifySecret(a.secret), undefined);
}));

test("keys create --oauth1 prints the key's OAuth 1.0a signing secret once, kept sealed; rotate-signing-key adds a signing key and keeps the one before", withDir(async (dir) => {
  const env = { KEYS_FILE: path.join(dir, "keys.json"), KEYS_HMAC_SECRET: "0123456789abcdef0123" };
  const made = JSON.parse(run(["create", "--roles", "r", "--oauth1"], env).out[0]!);
  assert.equal(Object.keys(made), ["id", "secret", "roles", "oauth1Secret"]);
  assert.not.equal(made.oauth1Secret, made.secret);
  assert.not.match(fs.readFileSync(env.KEYS_FILE, "utf8"), made.oauth1Secret);
  assert.is(KeyRing.open(env.KEYS_FILE, { env }).oauth1Secret(made.id), made.oauth1Secret);
  assert.is(KeyRing.open(env.KEYS_FILE, { env }).oauth1Secret(JSON.parse(run(["create"], env).out[0]!).id), undefined, "a key made without --oauth1 has none");
  const kids: string[] = [];
  for (let i = 0; i < 3; i++) {
    const rotated = await Promise.resolve(main(["rotate-signing-key"], env, (l) => kids.push(JSON.parse(l).signingKey), () => undefined));
    assert.is(rotated, 0);
  }
  const stored = JSON.parse(fs.readFileSync(`${env.KEYS_FILE}.signing.json`, "utf8"));
  assert.equal(stored.keys.map((k: { kid: string }) => k.kid), kids.slice(1), "the newest and the one before it are kept");
  assert.is((fs.statSync(`${env.KEYS_FILE}.signing.json`).mode & 0o777).toString(8), "600");
  assert.is(run(["rotate-signing-key", "now"], env).code, 2);
}));

test("keys: usage errors go to stderr with exit 2; failures exit 1; help exits 0", withDir((dir) => {
  const env = { KEYS_FILE: path.join(dir, "keys.json") };
  for (const argv of [[], ["nope"], ["create", "--roles"], ["create", "--bogus"], ["create", "--roles", "a", "--roles", "b"], ["create", "--roles", "a,,b"], ["create", "--roles", "a b"], ["revoke"], ["revoke", "a", "b"], ["list", "x"]]) {
    const r = run(argv, env);
    assert.is(r.code, 2, JSON.stringify(argv));
    assert.equal(r.out, [], JSON.stringify(argv));
    assert.match(r.err.join("\n"), /usage: npm run keys -- create/);
  }
  assert.not.ok(fs.existsSync(env.KEYS_FILE), "nothing was created");
  fs.writeFileSync(env.KEYS_FILE, "garbage");
  const broken = run(["list"], env);
  assert.is(broken.code, 1);
  assert.match(broken.err.join("\n"), /corrupt/);
  const help = run(["--help"], env);
  assert.is(help.code, 0);
  assert.match(help.out[0]!, /usage/);
}));

test("keys: KEYS_FILE defaults to data/keys.json in the working directory", withDir((dir) => {
  const cwd = process.cwd();
  process.chdir(dir);
  try {
    const r = run(["create", "--roles", "x"], {});
    assert.is(r.code, 0);
    assert.is(readKeys(path.join(dir, "data", "keys.json")).keys[0]!.id, JSON.parse(r.out[0]!).id);
    assert.ok(fs.existsSync(path.join(dir, "data", "keys.json.hmac")));
  } finally {
    process.chdir(cwd);
  }
}));

function spawnCli(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", cliScript, ...args], { cwd: root, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (err += d));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, out, err }));
  });
}

test("the keys script runs as a program; parallel runs keep every key", withDir(async (dir) => {
  const env = { KEYS_FILE: path.join(dir, "keys.json"), KEYS_HMAC_SECRET: "" };
  const runs = await Promise.all(Array.from({ length: 4 }, (_, i) => spawnCli(["create", "--roles", `r${i}`], env)));
  for (const r of runs) {
    assert.is(r.code, 0, r.err);
    assert.is(r.out.split("\n").length, 2, "one line and its newline");
  }
  const created = runs.map((r) => JSON.parse(r.out));
  assert.equal(readKeys(env.KEYS_FILE).keys.map((k) => k.id).sort(), created.map((k) => k.id).sort());
  const ring = KeyRing.open(env.KEYS_FILE, { env });
  for (const k of created) assert.equal(ring.verifySecret(k.secret)?.roles, k.roles);
  const bad = await spawnCli(["frobnicate"], env);
  assert.is(bad.code, 2);
  assert.is(bad.out, "");
  assert.match(bad.err, /unknown command "frobnicate"/);
}));

test.run();
