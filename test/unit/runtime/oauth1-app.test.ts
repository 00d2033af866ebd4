/**
 * OAuth 1.0a signed requests on the library app of the runtime's unit tests (auth.schemes has oauth1): the
 * key's sealed signing secret, requests signed by an independent implementation (oauth-1.0a) with
 * HMAC-SHA256 and HMAC-SHA1, and a replay, a stale timestamp, a wrong secret and a key without a signing
 * secret refused with 401 and the OAuth challenge.
 */
import crypto from "node:crypto";
import OAuth from "oauth-1.0a";
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { LightMyRequestResponse } from "fastify";
import { KeyRing } from "../../../templates/runtime/keys.js";
import type { ServiceSpec } from "../../../templates/runtime/spec.js";
import { assertError, BASE, json, P, REALM, spec as librarySpec, withApp, type Harness } from "../../helpers/library-app.js";

const spec: ServiceSpec = { ...librarySpec, auth: { schemes: ["apiKey", "oauth1"], realm: REALM } };

/** The Authorization header of a request signed by oauth-1.0a (never by the service's own code). */
function signed(method: string, url: string, key: { id: string; secret: string }, algorithm: "sha256" | "sha1" = "sha256", timestamp?: number): string {
  const oauth = new OAuth({
    consumer: { key: key.id, secret: key.secret },
    signature_method: algorithm === "sha256" ? "HMAC-SHA256" : "HMAC-SHA1",
    hash_function: (base: string, k: string) => crypto.createHmac(algorithm, k).update(base).digest("base64"),
  });
  const data = oauth.authorize({ url, method });
  if (timestamp !== undefined) {
    data.oauth_timestamp = timestamp;
    data.oauth_signature = oauth.getSignature({ url, method }, "", { ...data, oauth_signature: undefined } as never);
  }
  return oauth.toHeader(data).Authorization;
}

function get(h: Harness, path: string, authorization: string): Promise<LightMyRequestResponse> {
  return h.app.inject({ method: "GET", url: P + path, headers: { authorization } });
}

test("a request signed with the key's OAuth 1.0a secret is its key's; a replay, a stale timestamp, a wrong secret or a key without one is a 401", () =>
  withApp(
    async (h) => {
      const made = h.keys.create(["librarian"], { oauth1: true });
      assert.type(made.oauth1Secret, "string");
      assert.not.equal(made.oauth1Secret, made.secret);
      const key = { id: made.id, secret: made.oauth1Secret! };
      const header = signed("GET", `${BASE}/authors?limit=5&offset=0`, key);
      const ok = await get(h, "/authors?limit=5&offset=0", header);
      assert.is(ok.statusCode, 200, ok.body);
      const replay = await get(h, "/authors?limit=5&offset=0", header);
      assertError(replay, "unauthenticated");
      assert.match(json(replay).dev, /nonce|replay/i);
      assert.match(String(replay.headers["www-authenticate"]), /OAuth realm="Library API"/);
      assert.is((await get(h, "/authors", signed("GET", `${BASE}/authors`, key, "sha1"))).statusCode, 200, "HMAC-SHA1");
      const stale = await get(h, "/authors", signed("GET", `${BASE}/authors`, key, "sha256", Math.floor(Date.now() / 1000) - 3600));
      assertError(stale, "unauthenticated");
      assert.match(json(stale).dev, /timestamp/i);
      const wrong = await get(h, "/authors", signed("GET", `${BASE}/authors`, { id: made.id, secret: made.secret }));
      assertError(wrong, "unauthenticated", "", "application/json");
      const tampered = await get(h, "/authors?limit=6", signed("GET", `${BASE}/authors?limit=5`, key));
      assertError(tampered, "unauthenticated");
      const unknown = await get(h, "/authors", signed("GET", `${BASE}/authors`, { id: "nobody", secret: key.secret }));
      assert.is(json(unknown).dev, json(wrong).dev, "an unknown key reads like a bad signature");
      const plain = h.keys.create([]);
      assertError(await get(h, "/authors", signed("GET", `${BASE}/authors`, { id: plain.id, secret: plain.secret })), "unauthenticated");
      const shelf = await h.app.inject({ method: "POST", url: `${P}/shelves`, headers: { authorization: signed("POST", `${BASE}/shelves`, key), "content-type": "application/json" }, payload: JSON.stringify({ label: "Signed" }) });
      assert.is(shelf.statusCode, 201, shelf.body);
    },
    { spec },
  ));

test("the sealed secret survives a reload of the keys file and is never stored in the clear", async () => {
  const fs = await import("node:fs");
  const os = await import("node:os");
  const path = await import("node:path");
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "resourcery-oauth1-"));
  try {
    const file = path.join(dir, "keys.json");
    const made = KeyRing.open(file, { hmacSecret: "0123456789abcdef0123456789abcdef" }).create(["r"], { oauth1: true });
    const text = fs.readFileSync(file, "utf8");
    assert.not.match(text, made.oauth1Secret!);
    assert.match(text, '"sealed"');
    assert.is(KeyRing.open(file, { hmacSecret: "0123456789abcdef0123456789abcdef" }).oauth1Secret(made.id), made.oauth1Secret);
    assert.throws(() => KeyRing.open(file, { hmacSecret: "another server secret of 32 chars" }).oauth1Secret(made.id), "another server secret cannot unseal it");
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
