/** Definition files are strict UTF-8: every malformed sequence RFC 3629 names is found, at its first byte. */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { decodeUtf8 } from "../../../src/load/decode-utf8.js";

const bytes = (...parts: (string | number[])[]) => Buffer.concat(parts.map((p) => (typeof p === "string" ? Buffer.from(p, "utf8") : Buffer.from(p))));

test("valid UTF-8 decodes, multi-byte characters and a leading byte order mark included", () => {
  assert.equal(decodeUtf8(bytes('{"a": "caf\u00e9 \u20ac \u{1F600}"}')), { text: '{"a": "caf\u00e9 \u20ac \u{1F600}"}' });
  assert.equal(decodeUtf8(bytes([0xef, 0xbb, 0xbf], "{}")), { text: "{}" });
});

test("each kind of malformed sequence is reported at its first byte, with the bytes up to the one that fails", () => {
  const cases: [string, number[], string][] = [
    ["a lone continuation byte", [0x80], "0x80"],
    ["a byte never used in UTF-8", [0xff], "0xFF"],
    ["an overlong two-byte form", [0xc0, 0xaf], "0xC0"],
    ["an overlong three-byte form", [0xe0, 0x80, 0xaf], "0xE0 0x80"],
    ["a surrogate", [0xed, 0xa0, 0x80], "0xED 0xA0"],
    ["a code point past U+10FFFF", [0xf4, 0x90, 0x80, 0x80], "0xF4 0x90"],
    ["a Latin-1 byte before ASCII", [0xe9, 0x22], "0xE9 0x22"],
    ["a three-byte sequence cut short", [0xe2, 0x82], "0xE2 0x82 0x22"],
  ];
  for (const [what, bad, shown] of cases) {
    const result = decodeUtf8(bytes('{"\u00e9": "', bad, '"}'));
    assert.ok("offset" in result, what);
    if (!("offset" in result)) continue;
    // The offset counts characters of the decoded text: the two bytes of "é" are one.
    assert.is(result.offset, '{"\u00e9": "'.length, what);
    assert.is(result.bytes, shown, what);
  }
});
test("a sequence cut short by the end of the file is reported", () => {
  const result = decodeUtf8(bytes("{}", [0xe2, 0x82]));
  assert.equal("offset" in result ? [result.offset, result.bytes] : result, [2, "0xE2 0x82"]);
});

test.run();
