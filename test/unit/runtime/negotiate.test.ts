/**
 * Content negotiation of the runtime: Accept parsing, choosing a representation, 406 reasons, and
 * request body Content-Type checks.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { type AcceptRange, isJsonContentType, negotiate, parseAccept, requestVersion } from "../../../templates/runtime/negotiate.js";

const ctx = { vendor: "acme", version: 1 };
const JSON_TYPE = "application/json";
const VND = "application/vnd.acme.v1.account+json";
const ALIAS = "application/acme.v1.account.json";
const offers = [JSON_TYPE, VND, ALIAS] as const;

/** The ranges as plain objects (params has no prototype), for deep comparison. */
const plain = (ranges: AcceptRange[]) => ranges.map((r) => ({ ...r, params: { ...r.params } }));
const range = (type: string, subtype: string, q = 1, params: Record<string, string> = {}) => ({ type, subtype, params, q });
const chosen = (type: string) => ({ ok: true, type });
const notAcceptable = { ok: false, reason: "notAcceptable" };
const unknownVersion = { ok: false, reason: "unknownVersion" };

// parseAccept

test("parseAccept: absent and empty headers have no ranges", () => {
  assert.equal(parseAccept(undefined), []);
  assert.equal(parseAccept(""), []);
  assert.equal(parseAccept("  ,  , "), []);
});

test("parseAccept: ranges in header order with q defaulting to 1", () => {
  assert.equal(plain(parseAccept("text/html, application/json;q=0.5, */*;q=0.1")), [
    range("text", "html"),
    range("application", "json", 0.5),
    range("*", "*", 0.1),
  ]);
});

test("parseAccept: whitespace around entries, semicolons and equals signs is allowed", () => {
  assert.equal(plain(parseAccept("  text/html ;  q = 0.3 ;level = 1 ,\tapplication/json\t")), [
    range("text", "html", 0.3, { level: "1" }),
    range("application", "json"),
  ]);
});

test("parseAccept: types, subtypes and parameter names are lower-cased; values keep their case", () => {
  assert.equal(plain(parseAccept("Application/VND.Acme.V1.Account+JSON; Version=2; Schema=Book; Q=0.7")), [
    range("application", "vnd.acme.v1.account+json", 0.7, { version: "2", schema: "Book" }),
  ]);
});

test("parseAccept: quoted values are unquoted, with escapes, commas and semicolons inside them", () => {
  assert.equal(plain(parseAccept('text/plain; a="x, y; z"; b="q\\"uo\\\\te", application/json')), [
    range("text", "plain", 1, { a: "x, y; z", b: 'q"uo\\te' }),
    range("application", "json"),
  ]);
  assert.equal(plain(parseAccept('text/plain;q="0.4"')), [range("text", "plain", 0.4)]);
  assert.equal(plain(parseAccept('text/plain;e=""')), [range("text", "plain", 1, { e: "" })]);
});

test("parseAccept: wildcards, and a bare * as */*", () => {
  assert.equal(plain(parseAccept("*/*, text/*, *; q=.2")), [range("*", "*"), range("text", "*"), range("*", "*", 0.2)]);
});

test("parseAccept: malformed entries are skipped and the rest kept", () => {
  const bad = [
    "garbage",
    "text/",
    "/html",
    "text/html/x",
    "*/html",
    "te xt/html",
    "text/ht(ml",
    "text/html;level",
    "text/html;=1",
    "text/html;le vel=1",
    "text/html;level=",
    'text/html;level="open',
    'text/html;level="open\\"',
    'text/html;level="a"b',
    "text/html;level=a b",
    "text/html;q=high",
    "text/html;q=",
    "text/html;q=1e0",
    "text/html;q=0.5.1",
  ];
  for (const entry of bad) {
    assert.equal(plain(parseAccept(`${entry}, application/json`)), [range("application", "json")], entry);
  }
});

test("parseAccept: an unterminated quote spoils only its own entry", () => {
  assert.equal(plain(parseAccept('application/json, text/html;a="x, image/png')), [range("application", "json"), range("image", "png")]);
  // the escaped quote keeps the string open up to b=", so `y"` leaves a quote open and the entry is malformed
  assert.equal(plain(parseAccept('text/html;a="x\\", image/png;b="y", a/b')), [range("a", "b")]);
  assert.equal(plain(parseAccept('"')), []);
  assert.equal(plain(parseAccept('a/b;c="d\\')), []);
});

test("parseAccept: q outside 0..1 is clamped; first q wins; empty parameters are ignored", () => {
  assert.equal(plain(parseAccept("a/b;q=2, c/d;q=-1, e/f;q=1.000, g/h;q=0.25;q=0.75, i/j;;q=0.5;")), [
    range("a", "b", 1),
    range("c", "d", 0),
    range("e", "f", 1),
    range("g", "h", 0.25),
    range("i", "j", 0.5),
  ]);
});

test("parseAccept: the first of a repeated parameter wins, and params has no prototype", () => {
  const [r] = parseAccept("text/plain;a=1;A=2;__proto__=x;constructor=y");
  assert.ok(r);
  assert.is(Object.getPrototypeOf(r.params), null);
  assert.equal(Object.entries(r.params), [["a", "1"], ["__proto__", "x"], ["constructor", "y"]]);
  assert.is(({} as Record<string, unknown>)["x"], undefined);
});

test("parseAccept: long and hostile headers are read in linear time", () => {
  const started = Date.now();
  assert.equal(parseAccept('"\\'.repeat(8000)), []);
  assert.equal(parseAccept(`a/b;x="${"\\\"".repeat(8000)}`), []);
  assert.is(parseAccept(Array.from({ length: 2000 }, (_, i) => `t${i}/s;q=0.${i % 10}`).join(",")).length, 2000);
  assert.ok(Date.now() - started < 1000);
});

// negotiate

test("negotiate: no Accept, an empty one, or one with nothing readable gives the first offer", () => {
  for (const accept of [undefined, "", "   ", "garbage, also garbage"]) {
    assert.equal(negotiate(accept, offers, ctx), chosen(JSON_TYPE), String(accept));
  }
});

test("negotiate: no offers is never acceptable", () => {
  assert.equal(negotiate(undefined, [], ctx), notAcceptable);
  assert.equal(negotiate("*/*", [], ctx), notAcceptable);
});

test("negotiate: an exact type picks that offer, in either vendor shape and any case", () => {
  assert.equal(negotiate("application/json", offers, ctx), chosen(JSON_TYPE));
  assert.equal(negotiate(VND, offers, ctx), chosen(VND));
  assert.equal(negotiate(ALIAS, offers, ctx), chosen(ALIAS));
  assert.equal(negotiate("APPLICATION/VND.ACME.V1.ACCOUNT+JSON", offers, ctx), chosen(VND));
  assert.equal(negotiate("Application/Acme.V1.Account.Json", offers, ctx), chosen(ALIAS));
});

test("negotiate: the offer string is returned as given", () => {
  assert.equal(negotiate("application/json", ["Application/JSON; charset=utf-8"], ctx), chosen("Application/JSON; charset=utf-8"));
});

test("negotiate: wildcards give the server's preference", () => {
  assert.equal(negotiate("*/*", offers, ctx), chosen(JSON_TYPE));
  assert.equal(negotiate("application/*", offers, ctx), chosen(JSON_TYPE));
  assert.equal(negotiate("application/*", [VND, JSON_TYPE], ctx), chosen(VND));
  assert.equal(negotiate("text/*", offers, ctx), notAcceptable);
});

test("negotiate: the highest q wins", () => {
  assert.equal(negotiate(`application/json;q=0.5, ${VND};q=0.9, ${ALIAS};q=0.8`, offers, ctx), chosen(VND));
  assert.equal(negotiate(`application/json;q=0.5, ${ALIAS}`, offers, ctx), chosen(ALIAS));
  assert.equal(negotiate(`*/*;q=0.1, ${ALIAS};q=0.2`, offers, ctx), chosen(ALIAS));
  assert.equal(negotiate(`*/*;q=0.3, ${ALIAS};q=0.2`, offers, ctx), chosen(JSON_TYPE));
});

test("negotiate: equal q and equally specific ranges go to the server's preference", () => {
  assert.equal(negotiate(`${ALIAS}, ${VND}, application/json`, offers, ctx), chosen(JSON_TYPE));
  assert.equal(negotiate(`${ALIAS}, ${VND}`, offers, ctx), chosen(VND));
  assert.equal(negotiate(`${ALIAS};q=0.5, ${VND};q=0.5`, offers, ctx), chosen(VND));
});

test("negotiate: at equal q an explicit type beats a wildcard", () => {
  assert.equal(negotiate(`${VND}, */*`, offers, ctx), chosen(VND));
  assert.equal(negotiate(`*/*, ${ALIAS}`, offers, ctx), chosen(ALIAS));
  assert.equal(negotiate(`${VND}, application/*`, offers, ctx), chosen(VND));
  // a type/* range is more specific than */*
  assert.equal(negotiate("text/plain, application/*;q=0.5, */*;q=0.5", ["text/html", JSON_TYPE], ctx), chosen(JSON_TYPE));
});

test("negotiate: q=0 excludes", () => {
  assert.equal(negotiate("application/json;q=0", [JSON_TYPE], ctx), notAcceptable);
  assert.equal(negotiate("application/json;q=0, */*", offers, ctx), chosen(VND));
  assert.equal(negotiate("*/*;q=0", offers, ctx), notAcceptable);
  assert.equal(negotiate("application/json;q=0.000", [JSON_TYPE], ctx), notAcceptable);
  assert.equal(negotiate("application/json;q=-3", [JSON_TYPE], ctx), notAcceptable);
});

test("negotiate: the most specific matching range decides an offer's q (RFC 9110 12.5.1)", () => {
  assert.equal(negotiate("text/html;q=0, */*", ["text/html"], ctx), notAcceptable);
  assert.equal(negotiate("*/*, text/html;q=0", ["text/html", "text/plain"], ctx), chosen("text/plain"));
  assert.equal(negotiate("text/*;q=0, */*", ["text/html", JSON_TYPE], ctx), chosen(JSON_TYPE));
  assert.equal(negotiate("text/*;q=0, text/html", ["text/plain", "text/html"], ctx), chosen("text/html"));
  assert.equal(negotiate(`application/*;q=0.9, ${ALIAS};q=0.2, */*;q=1`, offers, ctx), chosen(JSON_TYPE));
  assert.equal(negotiate(`application/json;q=0.1, application/*;q=0.9`, offers, ctx), chosen(VND));
});

test("negotiate: among equally specific ranges for one offer the highest q counts", () => {
  assert.equal(negotiate("application/json;q=0.2, application/json;q=0.8, */*;q=0.5", [VND, JSON_TYPE], ctx), chosen(JSON_TYPE));
});

test("negotiate: parameters other than q and version are ignored", () => {
  assert.equal(negotiate("application/json; charset=utf-8", offers, ctx), chosen(JSON_TYPE));
  assert.equal(negotiate(`${VND}; schema="https://x.test/s"`, offers, ctx), chosen(VND));
  assert.equal(negotiate("application/json; charset=latin1; q=0", [JSON_TYPE], ctx), notAcceptable);
});

test("negotiate: a version parameter must name the offer's version (V2)", () => {
  assert.equal(negotiate(`${VND}; version=1`, offers, ctx), chosen(VND));
  assert.equal(negotiate(`${VND}; version="v1"`, offers, ctx), chosen(VND));
  assert.equal(negotiate(`${VND}; version=2`, offers, ctx), unknownVersion);
  assert.equal(negotiate(`${VND}; version=2, ${ALIAS}`, offers, ctx), chosen(ALIAS));
  assert.equal(negotiate("application/json; version=1", offers, ctx), chosen(JSON_TYPE));
  assert.equal(negotiate("application/json; version=2", offers, ctx), unknownVersion);
  assert.equal(negotiate("*/*; version=2", offers, ctx), unknownVersion);
  assert.equal(negotiate(`${VND}; version=latest`, offers, ctx), unknownVersion);
});

test("negotiate: a version parameter range is more specific than the same type without one", () => {
  assert.equal(negotiate(`${VND};q=0.1, ${VND};version=1;q=0.9, ${ALIAS};q=0.5`, offers, ctx), chosen(VND));
  assert.equal(negotiate(`${VND};version=1;q=0, ${VND}, */*;q=0.1`, offers, ctx), chosen(JSON_TYPE));
});

test("negotiate: an offer's own version parameter is what a version parameter compares with", () => {
  const versioned = ["application/vnd.acme.account+json; version=1"];
  assert.equal(negotiate("application/vnd.acme.account+json; version=1", versioned, ctx), chosen(versioned[0]!));
  assert.equal(negotiate("application/vnd.acme.account+json; version=2", versioned, ctx), unknownVersion);
  assert.equal(negotiate("application/vnd.acme.account+json", versioned, ctx), chosen(versioned[0]!));
});

test("negotiate: a vendor type of this vendor with another version is an unknown version (V1)", () => {
  assert.equal(negotiate("application/vnd.acme.v2.account+json", offers, ctx), unknownVersion);
  assert.equal(negotiate("application/acme.v2.account.json", offers, ctx), unknownVersion);
  assert.equal(negotiate("application/vnd.acme.v0.account+json", offers, ctx), unknownVersion);
  assert.equal(negotiate("APPLICATION/VND.ACME.V9.ACCOUNT+JSON, text/html", offers, ctx), unknownVersion);
  // a subject the route does not offer still tells about the version
  assert.equal(negotiate("application/vnd.acme.v2.book+json", offers, ctx), unknownVersion);
  assert.equal(negotiate("application/vnd.acme.v3.account-collection+json", offers, { vendor: "ACME", version: 2 }), unknownVersion);
  const v2 = [JSON_TYPE, "application/vnd.acme.v2.account+json"];
  assert.equal(negotiate("application/vnd.acme.v1.account+json", v2, { vendor: "acme", version: 2 }), unknownVersion);
  assert.equal(negotiate("application/vnd.acme.v2.account+json", v2, { vendor: "acme", version: 2 }), chosen(v2[1]!));
});

test("negotiate: an unknown version only decides when nothing else is acceptable", () => {
  assert.equal(negotiate("application/vnd.acme.v2.account+json, application/json;q=0.1", offers, ctx), chosen(JSON_TYPE));
  assert.equal(negotiate("application/vnd.acme.v2.account+json, */*;q=0.1", offers, ctx), chosen(JSON_TYPE));
});

test("negotiate: an excluded (q=0) other version is not a request for it", () => {
  assert.equal(negotiate("application/vnd.acme.v2.account+json;q=0, text/html", offers, ctx), notAcceptable);
  assert.equal(negotiate("application/json;version=2;q=0, text/html", offers, ctx), notAcceptable);
});

test("negotiate: anything else that does not match is not acceptable", () => {
  assert.equal(negotiate("text/html", offers, ctx), notAcceptable);
  assert.equal(negotiate("text/html, image/*", offers, ctx), notAcceptable);
  assert.equal(negotiate("application/vnd.other.v2.account+json", offers, ctx), notAcceptable);
  assert.equal(negotiate("application/other.v2.account.json", offers, ctx), notAcceptable);
  assert.equal(negotiate("application/vnd.acme.v1.book+json", offers, ctx), notAcceptable);
  assert.equal(negotiate("application/vnd.acme.account+json", offers, ctx), notAcceptable);
  assert.equal(negotiate("application/xml", offers, ctx), notAcceptable);
  assert.equal(negotiate("text/html; version=2", offers, ctx), notAcceptable);
  assert.equal(negotiate("application/vnd.acme.v2.account+xml", offers, ctx), notAcceptable);
});

test("negotiate: malformed entries are skipped but the rest still count", () => {
  assert.equal(negotiate(`garbage, ${ALIAS}`, offers, ctx), chosen(ALIAS));
  assert.equal(negotiate("text/html;q=x, text/plain", offers, ctx), notAcceptable);
});

// isJsonContentType

test("isJsonContentType: JSON and JSON merge patch, parameters and case ignored", () => {
  assert.is(isJsonContentType("application/json", []), true);
  assert.is(isJsonContentType("application/json; charset=utf-8", []), true);
  assert.is(isJsonContentType("  Application/JSON ;charset=UTF-8", []), true);
  assert.is(isJsonContentType("application/merge-patch+json", []), true);
  assert.is(isJsonContentType('APPLICATION/MERGE-PATCH+JSON; charset="utf-8"', []), true);
});

test("isJsonContentType: the allowed vendor types, in any case and with or without parameters", () => {
  const allowed = [VND, `${ALIAS}; version=1`];
  assert.is(isJsonContentType(VND, allowed), true);
  assert.is(isJsonContentType(`${VND.toUpperCase()}; version=1`, allowed), true);
  assert.is(isJsonContentType(ALIAS, allowed), true);
  assert.is(isJsonContentType("application/vnd.acme.v1.book+json", allowed), false);
  assert.is(isJsonContentType(VND, []), false);
});

test("isJsonContentType: anything else, and a missing header, is not JSON", () => {
  for (const header of [
    undefined,
    "",
    "   ",
    "text/plain",
    "text/json",
    "application/xml",
    "application/x-www-form-urlencoded",
    "multipart/form-data; boundary=x",
    "application/problem+json",
    "application/jsonx",
    "application/json, text/plain",
    "application/json garbage",
    "application /json",
    "json",
    ";application/json",
  ]) {
    assert.is(isJsonContentType(header, [VND]), false, String(header));
  }
});

test("requestVersion: the version Accept names (vendor type in either shape, or a version parameter), the path's, else the current one", () => {
  const ctx = { vendor: "Acme", current: 3, served: [1, 2, 3] };
  const v = (accept: string | undefined, path?: number) => requestVersion(accept, path, ctx);
  assert.equal(v(undefined), { ok: true, version: 3 });
  assert.equal(v("application/json"), { ok: true, version: 3 });
  assert.equal(v("*/*"), { ok: true, version: 3 });
  assert.equal(v("application/vnd.acme.v1.book+json"), { ok: true, version: 1 });
  assert.equal(v("application/acme.v2.book.json"), { ok: true, version: 2 });
  assert.equal(v("application/json; version=1"), { ok: true, version: 1 });
  assert.equal(v("application/json; version=v2"), { ok: true, version: 2 });
  assert.equal(v("application/vnd.other.v1.book+json, application/json"), { ok: true, version: 3 }, "another vendor's type names no version of ours");
  assert.equal(v(undefined, 2), { ok: true, version: 2 }, "nothing named: the path's version");
  assert.equal(v("application/json", 1), { ok: true, version: 1 });
});

test("requestVersion: of several named, the served one weighed highest (ties: the first); unknown and disagreeing versions are unknownVersion", () => {
  const ctx = { vendor: "acme", current: 3, served: [1, 2, 3] };
  const v = (accept: string | undefined, path?: number) => requestVersion(accept, path, ctx);
  assert.equal(v("application/vnd.acme.v1.book+json;q=0.5, application/vnd.acme.v2.book+json"), { ok: true, version: 2 });
  assert.equal(v("application/vnd.acme.v1.book+json, application/vnd.acme.v2.book+json"), { ok: true, version: 1 });
  assert.equal(v("application/vnd.acme.v9.book+json, application/vnd.acme.v2.book+json;q=0.1"), { ok: true, version: 2 }, "an unserved version beside a served one");
  assert.equal(v("application/vnd.acme.v1.book+json;q=0"), { ok: true, version: 3 }, "q=0 names nothing");
  assert.equal(v("application/vnd.acme.v9.book+json"), { ok: false, reason: "unknownVersion", named: 9, path: undefined });
  assert.equal(v("application/json; version=4"), { ok: false, reason: "unknownVersion", named: 4, path: undefined });
  assert.equal(v("application/vnd.acme.v1.book+json", 2), { ok: false, reason: "unknownVersion", named: 1, path: 2 }, "Accept disagrees with the path");
  assert.equal(v("application/vnd.acme.v1.book+json, application/vnd.acme.v2.book+json;q=0.2", 2), { ok: true, version: 2 }, "the named version that agrees with the path");
  assert.equal(requestVersion(undefined, undefined, { vendor: "acme", current: 2, served: [2] }), { ok: true, version: 2 });
});

test.run();
