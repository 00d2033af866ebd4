/**
 * OAuth 1.0a verification (templates/runtime/oauth1.ts). Every signature here is computed by the independent
 * library oauth-1.0a, never by the module under test; the RFC 5849 §3.4.1 examples are checked as text.
 */
import crypto from "node:crypto";
import OAuth from "oauth-1.0a";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { countHmac } from "../../helpers/count-hmac.js";
import {
  isOAuth1,
  MAX_HEADER_LENGTH,
  MemoryNonces,
  percentEncode,
  signatureBaseString,
  verifyOAuth1,
  type NonceStore,
  type OAuth1Outcome,
  type SignedRequest,
  type VerifyOAuth1Options,
} from "../../../templates/runtime/oauth1.js";

const T = 1_700_000_000;
const KEY = "k3yId-0123456789";
const SECRET = "s3cr3t+/=&!*'()~ é";
const OTHER_KEY = "other-key";
const OTHER_SECRET = "another secret";
const secretOf = (id: string) => (id === KEY ? SECRET : id === OTHER_KEY ? OTHER_SECRET : undefined);
const at = (seconds: number) => () => seconds * 1000;

let nonceCounter = 0;

interface Signing {
  readonly url: string;
  readonly method?: string;
  readonly data?: Record<string, string | string[]>;
  readonly key?: string;
  readonly secret?: string;
  readonly signatureMethod?: string;
  readonly timestamp?: number;
  readonly nonce?: string;
  readonly token?: OAuth.Token;
  readonly realm?: string;
  readonly separator?: string;
  readonly includeBodyHash?: boolean;
}

/** The Authorization header oauth-1.0a makes for this request (HMAC through node:crypto). */
function sign(s: Signing): string {
  const signatureMethod = s.signatureMethod ?? "HMAC-SHA256";
  const algorithm = signatureMethod === "HMAC-SHA1" ? "sha1" : signatureMethod === "HMAC-SHA256" ? "sha256" : undefined;
  const oauth = new OAuth({
    consumer: { key: s.key ?? KEY, secret: s.secret ?? SECRET },
    signature_method: signatureMethod,
    ...(algorithm ? { hash_function: (base: string, key: string) => crypto.createHmac(algorithm, key).update(base).digest("base64") } : {}),
    ...(s.realm !== undefined ? { realm: s.realm } : {}),
    ...(s.separator !== undefined ? { parameter_seperator: s.separator } : {}),
  });
  oauth.getTimeStamp = () => s.timestamp ?? T;
  oauth.getNonce = () => s.nonce ?? `nonce${++nonceCounter}`;
  // A copy: oauth-1.0a merges the query into the data object it is given.
  const request: OAuth.RequestOptions = { url: s.url, method: s.method ?? "GET", data: { ...s.data }, ...(s.includeBodyHash ? { includeBodyHash: true } : {}) };
  return oauth.toHeader(oauth.authorize(request, s.token)).Authorization;
}

/** Form pairs of the same data oauth-1.0a signed as an object. */
function pairs(data: Record<string, string | string[]>): [string, string][] {
  return Object.entries(data).flatMap(([name, value]) => (Array.isArray(value) ? value : [value]).map((v): [string, string] => [name, v]));
}

function verify(request: Omit<SignedRequest, "method"> & { method?: string }, options: Partial<VerifyOAuth1Options> = {}): Promise<OAuth1Outcome> {
  return verifyOAuth1({ method: "GET", ...request }, secretOf, { nonces: new MemoryNonces({ now: at(T) }), now: at(T), ...options });
}

function reasonOf(outcome: OAuth1Outcome): string {
  return outcome.ok ? "ok" : outcome.reason;
}

function devOf(outcome: OAuth1Outcome): string {
  return outcome.ok ? "" : outcome.dev;
}

/** One sentence: a capital, no secret, a single full stop at the end. */
function assertOneSentence(dev: string): void {
  assert.match(dev, /^[A-Z]/);
  assert.match(dev, /[.]$/);
  assert.not.match(dev, /[.;] [A-Z][a-z]+ [a-z]+[^.]*\.$/, `one sentence: ${dev}`);
  assert.not.ok(dev.includes(SECRET) || dev.includes(percentEncode(SECRET)), "never the secret");
}

// ---------------------------------------------------------------- accepted

const QUERY =
  "tag=b&tag=a&q=hello%20world&plus=1%2B1&uni=%C3%A9t%C3%A9%20%E2%9C%93%20%F0%9F%93%9A" +
  "&reserved=%21%2A%27%28%29%3B%3A%40%26%3D%2B%24%2C%2F%3F%23%5B%5D%25&raw=(a)!*'&tilde=-._~&empty=&flag";

for (const signatureMethod of ["HMAC-SHA256", "HMAC-SHA1"]) {
  test(`${signatureMethod}: a GET with repeated names, spaces, a literal +, unicode and reserved characters in the query verifies`, async () => {
    const url = `https://api.example.com/books/r%20v/X?${QUERY}`;
    const outcome = await verify({ url, authorization: sign({ url, signatureMethod }) });
    assert.equal(outcome, { ok: true, consumerKey: KEY });
  });

  test(`${signatureMethod}: a POST with a form body (repeated and unicode names) and a query verifies`, async () => {
    const url = "https://api.example.com/books?lang=en&x=%E2%82%AC";
    const data = { title: "Dune & Co. (2nd ed.)", "név": "é+ü", list: ["2", "10"], "a=b": "c&d", blank: "" };
    const authorization = sign({ url, method: "POST", data, signatureMethod });
    const form = pairs(data).reverse(); // the order of the parameters does not matter
    assert.equal(await verify({ method: "POST", url, authorization, form }), { ok: true, consumerKey: KEY });
    assert.is(reasonOf(await verify({ method: "POST", url, authorization, form: form.slice(1) })), "badSignature", "the form is covered");
  });
}

test("a + in the query is a space, as in a form: signed as %20, sent as +", async () => {
  const authorization = sign({ url: "https://api.example.com/search?q=a%20b%20c" });
  assert.is(reasonOf(await verify({ url: "https://api.example.com/search?q=a+b+c", authorization })), "ok");
  assert.is(reasonOf(await verify({ url: "https://api.example.com/search?q=a%2Bb%2Bc", authorization })), "badSignature", "%2B is a plus sign");
});

test("a non-default port is part of the base string URI", async () => {
  const url = "http://api.example.com:8080/books?x=1";
  assert.is(reasonOf(await verify({ url, authorization: sign({ url }) })), "ok");
  assert.is(reasonOf(await verify({ url, authorization: sign({ url: "http://api.example.com:8081/books?x=1" }) })), "badSignature");
  assert.is(reasonOf(await verify({ url, authorization: sign({ url: "http://api.example.com/books?x=1" }) })), "badSignature");
});

test("the default port is left out and the scheme and host are lower-cased; the path is kept as sent", async () => {
  const authorization = sign({ url: "https://api.example.com/Books/r%20v?x=1" });
  assert.is(reasonOf(await verify({ url: "HTTPS://API.Example.COM:443/Books/r%20v?x=1", authorization })), "ok");
  assert.is(reasonOf(await verify({ url: "https://api.example.com:443/Books/r%20v?x=1#fragment", authorization })), "ok", "no fragment");
  assert.is(reasonOf(await verify({ url: "https://api.example.com/books/r%20v?x=1", authorization })), "badSignature", "path case matters");
  const plain = sign({ url: "http://api.example.com/" });
  assert.is(reasonOf(await verify({ url: "http://api.example.com:80", authorization: plain })), "ok", "an empty path is /");
  assert.is(reasonOf(await verify({ url: "https://api.example.com/", authorization: plain })), "badSignature", "the scheme matters");
});

test("realm is left out of the signature, an empty oauth_token is accepted, separators may vary", async () => {
  const url = "https://api.example.com/books";
  assert.is(reasonOf(await verify({ url, authorization: sign({ url, realm: "Library" }) })), "ok");
  assert.is(reasonOf(await verify({ url, authorization: sign({ url, realm: 'The \\"best\\" library, really' }) })), "ok", "a quoted-pair and a comma in the realm");
  assert.is(reasonOf(await verify({ url, authorization: sign({ url, token: { key: "", secret: "" } }) })), "ok");
  assert.is(reasonOf(await verify({ url, authorization: sign({ url, separator: "," }) })), "ok");
  assert.is(reasonOf(await verify({ url, authorization: sign({ url, separator: " ,\t " }) })), "ok");
  assert.is(reasonOf(await verify({ url, authorization: sign({ url }).replace(/^OAuth /, "oauth  ") })), "ok", "scheme case-insensitive");
});

test("oauth_version may be left out", async () => {
  const url = "https://api.example.com/books?x=1";
  const oauth = new OAuth({
    consumer: { key: KEY, secret: SECRET },
    signature_method: "HMAC-SHA1",
    hash_function: (base, key) => crypto.createHmac("sha1", key).update(base).digest("base64"),
  });
  const data = { oauth_consumer_key: KEY, oauth_nonce: "no-version", oauth_signature_method: "HMAC-SHA1", oauth_timestamp: T } as unknown as OAuth.Data;
  const signature = oauth.getSignature({ url, method: "GET", data: {} }, undefined, data);
  const authorization = oauth.toHeader({ ...data, oauth_signature: signature }).Authorization;
  assert.not.ok(authorization.includes("oauth_version"));
  assert.is(reasonOf(await verify({ url, authorization })), "ok");
});

// ---------------------------------------------------------------- refused

test("a tampered query, method or form, and a wrong secret: badSignature, telling what the service signed", async () => {
  const url = "https://api.example.com/books?id=1";
  const authorization = sign({ url });
  const query = await verify({ url: "https://api.example.com/books?id=2", authorization });
  assert.is(reasonOf(query), "badSignature");
  assert.is(devOf(query), 'The oauth_signature does not match the request; sign the RFC 5849 §3.4 base string of GET "https://api.example.com/books" with its query, form and oauth_* parameters, keyed with the key\'s OAuth 1.0a signing secret and "&".');
  assertOneSentence(devOf(query));
  assert.is(reasonOf(await verify({ url, authorization, method: "DELETE" })), "badSignature");
  assert.is(reasonOf(await verify({ url: "https://api.example.com/books?id=1&extra=1", authorization })), "badSignature");
  assert.is(reasonOf(await verify({ url, authorization, form: [["extra", "1"]] })), "badSignature");
  assert.is(reasonOf(await verify({ url, authorization: sign({ url, secret: "not the secret" }) })), "badSignature");
  assert.is(reasonOf(await verify({ url, authorization: sign({ url, key: OTHER_KEY, secret: SECRET }) })), "badSignature", "another key's id");
});

test("a signature that is not base64, or not a digest's length, is badSignature", async () => {
  const url = "https://api.example.com/books";
  const authorization = sign({ url });
  const notBase64 = await verify({ url, authorization: authorization.replace(/oauth_signature="[^"]*"/, 'oauth_signature="not%20base64%21"') });
  assert.is(reasonOf(notBase64), "badSignature");
  assert.match(devOf(notBase64), /not base64/);
  const short = await verify({ url, authorization: authorization.replace(/oauth_signature="[^"]*"/, 'oauth_signature="AAAA"') });
  assert.is(reasonOf(short), "badSignature");
});

test("an unknown key is unknownKey, after the same HMAC work as a known one", async () => {
  const url = "https://api.example.com/books";
  const unknown = sign({ url, key: "nobody", secret: "whatever" });
  const outcome = await verify({ url, authorization: unknown });
  assert.is(reasonOf(outcome), "unknownKey");
  assertOneSentence(devOf(outcome));
  assert.not.ok(devOf(outcome).includes("nobody"), "the id is not echoed");
  const wrong = sign({ url, secret: "wrong" });
  const right = sign({ url });
  assert.is(await countHmac(() => verify({ url, authorization: unknown })), 1);
  assert.is(await countHmac(() => verify({ url, authorization: wrong })), 1);
  assert.is(await countHmac(() => verify({ url, authorization: right })), 1);
});

test("a timestamp outside now ± window is stale, past or future, saying how far off and the window", async () => {
  const url = "https://api.example.com/books";
  const past = await verify({ url, authorization: sign({ url, timestamp: T - 301 }) });
  assert.is(reasonOf(past), "stale");
  assert.is(devOf(past), "The oauth_timestamp is 301 seconds behind the service's clock, outside its 300-second window; sign each request with the current Unix time in seconds.");
  const future = await verify({ url, authorization: sign({ url, timestamp: T + 400 }) });
  assert.is(reasonOf(future), "stale");
  assert.match(devOf(future), /400 seconds ahead of the service's clock, outside its 300-second window/);
  assert.is(reasonOf(await verify({ url, authorization: sign({ url, timestamp: T - 300 }) })), "ok", "the edge is inside");
  assert.is(reasonOf(await verify({ url, authorization: sign({ url, timestamp: T + 300 }) })), "ok");
  const narrow = await verify({ url, authorization: sign({ url, timestamp: T - 31 }) }, { windowSeconds: 30 });
  assert.match(devOf(narrow), /31 seconds behind .* 30-second window/);
  assert.is(reasonOf(await verify({ url, authorization: sign({ url, timestamp: 0 }) })), "stale");
});

test("a nonce is accepted once per key; a bad signature does not burn it; stale and bad requests never reach the store", async () => {
  const url = "https://api.example.com/books";
  const nonces = new MemoryNonces({ now: at(T) });
  const authorization = sign({ url, nonce: "once" });
  assert.is(reasonOf(await verify({ url: `${url}?tampered=1`, authorization }, { nonces })), "badSignature");
  assert.is(reasonOf(await verify({ url, authorization }, { nonces })), "ok");
  const replay = await verify({ url, authorization }, { nonces });
  assert.is(reasonOf(replay), "replayed");
  assert.is(devOf(replay), "This oauth_nonce was already used with this key and timestamp; send a new random nonce with every request.");
  assert.is(reasonOf(await verify({ url, authorization: sign({ url, nonce: "once", key: OTHER_KEY, secret: OTHER_SECRET }) }, { nonces })), "ok", "another key");

  const claims: [string, string, number][] = [];
  const store: NonceStore = {
    claim: async (key, nonce, timestamp) => {
      claims.push([key, nonce, timestamp]);
      return claims.length === 1;
    },
  };
  assert.is(reasonOf(await verify({ url, authorization: sign({ url, nonce: "n1", timestamp: T + 10 }) }, { nonces: store })), "ok");
  assert.is(reasonOf(await verify({ url, authorization: sign({ url, nonce: "n1", timestamp: T + 10 }) }, { nonces: store })), "replayed");
  assert.is(reasonOf(await verify({ url, authorization: sign({ url, nonce: "n2", secret: "bad" }) }, { nonces: store })), "badSignature");
  assert.is(reasonOf(await verify({ url, authorization: sign({ url, nonce: "n3", timestamp: T - 999 }) }, { nonces: store })), "stale");
  assert.is(reasonOf(await verify({ url, authorization: sign({ url, nonce: "n4", key: "nobody" }) }, { nonces: store })), "unknownKey");
  assert.equal(claims, [[KEY, "n1", T + 10], [KEY, "n1", T + 10]], "an async store, asked only for genuine requests");
});

test("malformed headers: duplicate, missing, empty, unquoted, unterminated, badly encoded, trailing comma, other scheme", async () => {
  const url = "https://api.example.com/books";
  const good = sign({ url, nonce: "abc" });
  const cases: [string, string, RegExp][] = [
    ["duplicate", `${good}, oauth_nonce="again"`, /gives "oauth_nonce" more than once/],
    ["duplicate realm", `OAuth realm="a", realm="b", ${good.slice(6)}`, /gives "realm" more than once/],
    ["missing", good.replace(/, oauth_nonce="abc"/, ""), /^The Authorization header lacks a value for oauth_nonce; send oauth_consumer_key, oauth_signature_method, oauth_signature, oauth_timestamp, oauth_nonce with every request\.$/],
    ["empty", good.replace(/oauth_nonce="abc"/, 'oauth_nonce=""'), /lacks a value for oauth_nonce/],
    ["two missing", good.replace(/, oauth_nonce="abc"/, "").replace(/, oauth_timestamp="\d+"/, ""), /lacks a value for oauth_timestamp and oauth_nonce/],
    ["nothing", "OAuth", /lacks a value for oauth_consumer_key, oauth_signature_method, oauth_signature, oauth_timestamp and oauth_nonce/],
    ["unquoted", good.replace(/oauth_timestamp="(\d+)"/, "oauth_timestamp=$1"), /^The value of "oauth_timestamp" in the Authorization header is not quoted; write it as oauth_timestamp="value"\.$/],
    ["unterminated", `${good}, x="open`, /has no closing quote/],
    ["bad percent-encoding", good.replace(/oauth_nonce="abc"/, 'oauth_nonce="%E9"'), /not valid percent-encoding/],
    ["trailing comma", `${good},`, /malformed at character \d+: write each parameter as name="percent-encoded value", separated by commas\.$/],
    ["no comma", good.replace(/", /, '" '), /malformed at character \d+/],
    ["two headers joined", `${good}, ${good}`, /malformed at character \d+/],
    ["timestamp not a number", good.replace(/oauth_timestamp="\d+"/, 'oauth_timestamp="17e8"'), /not a whole number of seconds/],
    ["other scheme", "Bearer abc", /does not use the OAuth scheme/],
  ];
  for (const [name, authorization, dev] of cases) {
    const outcome = await verify({ url, authorization });
    assert.is(reasonOf(outcome), "malformed", name);
    assert.match(devOf(outcome), dev, name);
    assertOneSentence(devOf(outcome));
  }
});

test("oversized headers and too many parameters are malformed before any HMAC", async () => {
  const url = "https://api.example.com/books";
  const good = sign({ url });
  const long = `${good}, realm="${"x".repeat(MAX_HEADER_LENGTH)}"`;
  const many = `${good}, ${Array.from({ length: 64 }, (_, i) => `x${i}="1"`).join(", ")}`;
  for (const [authorization, dev] of [[long, /longer than 8192 bytes/], [many, /more than 64 parameters/]] as const) {
    let outcome: OAuth1Outcome | undefined;
    assert.is(await countHmac(async () => (outcome = await verify({ url, authorization }))), 0);
    assert.is(reasonOf(outcome!), "malformed");
    assert.match(devOf(outcome!), dev);
  }
  const sixtyFour = `${good}, ${Array.from({ length: 58 }, (_, i) => `x${i}="1"`).join(", ")}`;
  assert.is(reasonOf(await verify({ url, authorization: sixtyFour })), "badSignature", "64 parameters are read (and the extra ones signed)");
});

test("protocol parameters in the query or form, and a query that is not percent-encoding, are malformed", async () => {
  const authorization = sign({ url: "https://api.example.com/books" });
  const inQuery = await verify({ url: "https://api.example.com/books?oauth_token=t", authorization });
  assert.is(reasonOf(inQuery), "malformed");
  assert.match(devOf(inQuery), /protocol parameter "oauth_token"; send OAuth protocol parameters only in the Authorization header\.$/);
  assert.is(reasonOf(await verify({ url: "https://api.example.com/books", authorization, form: [["oauth_nonce", "x"]] })), "malformed");
  assert.match(devOf(await verify({ url: "https://api.example.com/books?q=%E9", authorization })), /query string is not valid percent-encoding/);
  assert.is(reasonOf(await verify({ url: "/books", authorization })), "malformed", "a relative URL");
});

test("unsupported: PLAINTEXT, RSA-SHA1, another oauth_version, a non-empty oauth_token, oauth_body_hash", async () => {
  const url = "https://api.example.com/books";
  const plaintext = await verify({ url, authorization: sign({ url, signatureMethod: "PLAINTEXT" }) });
  assert.is(reasonOf(plaintext), "unsupported");
  assert.is(devOf(plaintext), 'The signature method "PLAINTEXT" is not supported; sign with HMAC-SHA256 or HMAC-SHA1.');
  assert.not.ok(devOf(plaintext).includes(percentEncode(SECRET)), "PLAINTEXT carries the secret: not echoed");
  assert.is(reasonOf(await verify({ url, authorization: sign({ url }).replace("HMAC-SHA256", "RSA-SHA1") })), "unsupported");
  assert.is(reasonOf(await verify({ url, authorization: sign({ url }).replace("HMAC-SHA256", "hmac-sha256") })), "unsupported", "method names are case-sensitive");
  const version = await verify({ url, authorization: sign({ url }).replace('oauth_version="1.0"', 'oauth_version="2.0"') });
  assert.is(reasonOf(version), "unsupported");
  assert.match(devOf(version), /OAuth 1\.0 only/);
  const token = await verify({ url, authorization: sign({ url, token: { key: "tok", secret: "ts" } }) });
  assert.is(reasonOf(token), "unsupported");
  assert.is(devOf(token), "This service takes two-legged OAuth 1.0a only; sign with the API key's id and secret alone and leave oauth_token out or empty.");
  const bodyHash = await verify({ method: "POST", url, authorization: sign({ url, method: "POST", data: { a: "1" }, includeBodyHash: true }), form: [["a", "1"]] });
  assert.is(reasonOf(bodyHash), "unsupported");
  assert.match(devOf(bodyHash), /oauth_body_hash/);
});

test("isOAuth1 reads the scheme only, case-insensitively", () => {
  assert.ok(isOAuth1('OAuth oauth_consumer_key="k"'));
  assert.ok(isOAuth1("oauth"));
  assert.ok(isOAuth1("  OAUTH\trealm=\"x\""));
  assert.not.ok(isOAuth1(undefined));
  assert.not.ok(isOAuth1("Bearer abc"));
  assert.not.ok(isOAuth1("OAuth2 x"));
  assert.not.ok(isOAuth1("Basic b2F1dGg6"));
});

// ---------------------------------------------------------------- base string and encoding

test("signatureBaseString reproduces the RFC 5849 §3.4.1.1 example exactly", () => {
  const request: SignedRequest = {
    method: "POST",
    url: "http://example.com/request?b5=%3D%253D&a3=a&c%40=&a2=r%20b",
    authorization:
      'OAuth realm="Example", oauth_consumer_key="9djdj82h48djs9d2", oauth_token="kkk9d7dh3k39sjv7", oauth_signature_method="HMAC-SHA1", ' +
      'oauth_timestamp="137131201", oauth_nonce="7d8f3e4a", oauth_signature="bYT5CMsGcbgUdFHObYMEfcx6bsw%3D"',
    form: [["c2", ""], ["a3", "2 q"]],
  };
  assert.is(
    signatureBaseString(request),
    "POST&http%3A%2F%2Fexample.com%2Frequest&a2%3Dr%2520b%26a3%3D2%2520q%26a3%3Da%26b5%3D%253D%25253D%26c%2540%3D%26c2%3D%26" +
      "oauth_consumer_key%3D9djdj82h48djs9d2%26oauth_nonce%3D7d8f3e4a%26oauth_signature_method%3DHMAC-SHA1%26" +
      "oauth_timestamp%3D137131201%26oauth_token%3Dkkk9d7dh3k39sjv7",
  );
});

test("signatureBaseString: the RFC 5849 §3.4.1.2 base string URIs, the doc example, and an Error for a malformed header", () => {
  const uri = (url: string) => signatureBaseString({ method: "get", url, authorization: "OAuth " }).split("&")[1];
  assert.is(uri("http://EXAMPLE.COM:80/r%20v/X?id=123"), percentEncode("http://example.com/r%20v/X"));
  assert.is(uri("https://www.example.net:8080/?q=1"), percentEncode("https://www.example.net:8080/"));
  assert.is(signatureBaseString({ method: "GET", url: "https://Example.com:443/a?b=c", authorization: 'OAuth oauth_nonce="n"' }), "GET&https%3A%2F%2Fexample.com%2Fa&b%3Dc%26oauth_nonce%3Dn");
  assert.throws(() => signatureBaseString({ method: "GET", url: "https://example.com/", authorization: 'OAuth a="1", a="2"' }), /more than once/);
});

test("percentEncode keeps only the unreserved characters and encodes UTF-8 in upper-case hex", () => {
  assert.is(percentEncode("Ladies + Gentlemen!"), "Ladies%20%2B%20Gentlemen%21");
  assert.is(percentEncode("-._~AZaz09"), "-._~AZaz09");
  assert.is(percentEncode("*'()"), "%2A%27%28%29");
  assert.is(percentEncode("é☃"), "%C3%A9%E2%98%83");
});

// ---------------------------------------------------------------- MemoryNonces

test("MemoryNonces keeps a nonce until its timestamp leaves the window, and refuses timestamps already outside it", () => {
  const clock = { t: T * 1000 };
  const nonces = new MemoryNonces({ windowSeconds: 300, now: () => clock.t });
  assert.is(nonces.claim(KEY, "n", T), true);
  assert.is(nonces.claim(KEY, "n", T), false);
  assert.is(nonces.claim(KEY, "n", T + 1), true, "another timestamp");
  assert.is(nonces.claim(OTHER_KEY, "n", T), true, "another key");
  assert.is(nonces.claim("ab", "c", T), true);
  assert.is(nonces.claim("a", "bc", T), true, "key and nonce do not run together");
  assert.is(nonces.claim(KEY, "future", T + 300), true);
  assert.is(nonces.size, 6);
  clock.t = (T + 300) * 1000;
  assert.is(nonces.claim(KEY, "n", T), false, "still in the window at its edge");
  assert.is(nonces.size, 6);
  clock.t = (T + 300) * 1000 + 1;
  assert.is(nonces.size, 2, "the nonces of T dropped: their timestamp is refused as stale now");
  assert.is(nonces.claim(KEY, "n", T), false, "a timestamp already out of the window is refused, not remembered");
  assert.is(nonces.size, 2);
  clock.t = (T + 600) * 1000 + 1;
  assert.is(nonces.size, 0, "a future timestamp is kept until it too is out of the window");
  assert.is(nonces.claim(KEY, "future", T + 600), true);
});

test("MemoryNonces at its limit answers full rather than forget a live nonce; verifyOAuth1 says busy", async () => {
  const clock = { t: T * 1000 };
  const nonces = new MemoryNonces({ windowSeconds: 60, limit: 2, now: () => clock.t });
  assert.is(nonces.claim(KEY, "a", T), true);
  assert.is(nonces.claim(KEY, "b", T + 5), true);
  assert.is(nonces.claim(KEY, "c", T), "full");
  assert.is(nonces.claim(KEY, "a", T), false, "a replay is still a replay when full");
  const url = "https://api.example.com/books";
  const busy = await verify({ url, authorization: sign({ url }) }, { nonces, windowSeconds: 60 });
  assert.is(reasonOf(busy), "busy");
  assert.is(devOf(busy), "The service has more signed requests within its 60-second window than it can remember nonces for; retry in a few seconds.");
  clock.t = (T + 61) * 1000;
  assert.is(nonces.claim(KEY, "c", T + 61), true, "a expired, so there is room");
  assert.is(nonces.claim(KEY, "d", T + 61), "full", "b is live until T + 65");
  clock.t = (T + 66) * 1000;
  assert.is(nonces.claim(KEY, "d", T + 61), true);
});

test("MemoryNonces drops expired nonces in expiry order whatever the order they came in", () => {
  const clock = { t: T * 1000 };
  const nonces = new MemoryNonces({ windowSeconds: 100, now: () => clock.t });
  const stamps = Array.from({ length: 200 }, (_, i) => T - 100 + ((i * 37) % 200));
  stamps.forEach((s, i) => assert.is(nonces.claim(KEY, `n${i}`, s), true));
  for (let t = T; t <= T + 200; t += 7) {
    clock.t = t * 1000 + 1;
    assert.is(nonces.size, stamps.filter((s) => s + 100 >= t + 0.001).length, `at ${t - T}`);
  }
});

test.run();
