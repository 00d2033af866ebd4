/**
 * The escaping layer (src/emit/shared/escape.ts) against every breakout of test/fixtures/hostile/payloads.ts:
 * each function's output is put in the context it is made for and run (node:vm, or a shell for shellWord).
 * The run must never call the sentinel, and the text must come back exactly where the context keeps it.
 */
import { spawnSync } from "node:child_process";
import vm from "node:vm";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { InternalError } from "../../../src/diagnostics/internal-error.js";
import {
  cellCode,
  codeBlock,
  codeSpan,
  doc,
  docComment,
  escapeHelpers,
  escapeMd,
  ident,
  jsValue,
  key,
  lineComment,
  member,
  parsedJson,
  parsedJsonList,
  scriptJson,
  shellWord,
  str,
  stringKey,
  templateText,
} from "../../../src/emit/shared/escape.js";
import { breakouts } from "../../fixtures/hostile/payloads.js";

const RUN = "sentinel()";
const BREAKOUTS = [...breakouts(RUN), "plain text", "", "ünïcødé ✓ \ud83d\ude00", "lone \ud800 surrogate", "a\u0085b\u00a0c", "__proto__", "constructor"];

/** Runs `code` (a script) with a sentinel; the sentinel must not be called. Returns the script's `result`. */
function run(code: string, globals: Record<string, unknown> = {}): unknown {
  let called = 0;
  const context = vm.createContext({ sentinel: () => called++, result: undefined, ...globals });
  vm.runInContext(code, context, { timeout: 1000 });
  assert.is(called, 0, `the sentinel ran in:\n${code}`);
  return context.result;
}

for (const [i, b] of BREAKOUTS.entries()) {
  const name = `breakout ${i} ${JSON.stringify(b).slice(0, 40)}`;

  test(`${name}: str() is a string literal holding it`, () => {
    assert.is(run(`result = ${str(b)};`), b);
    assert.is(run(`result = "<" + ${str(b)} + '>';`), `<${b}>`);
    assert.not.match(str(b), /[\r\n\u2028\u2029]/);
  });

  test(`${name}: templateText() is a template literal's body holding it`, () => {
    assert.is(run(`result = \`${templateText(b)}\`;`), b);
    assert.is(run(`result = \`${templateText(b)} and \${1 + 1}\`;`), `${b} and 2`);
  });

  test(`${name}: lineComment() stays in its line comment`, () => {
    assert.is(run(`// ${lineComment(b)}\nresult = 1;`), 1);
    assert.is(run(`result = 1; // ${lineComment(b)}\nresult += 1;`), 2);
    assert.not.match(lineComment(b), /[\r\n\u2028\u2029]/);
  });

  test(`${name}: doc() and docComment() stay in their comment`, () => {
    assert.is(run(`/** ${doc(b)} */ result = 1;`), 1);
    assert.is(run(`/* ${doc(b)} */ result = 1; /* ${doc(b, "  ")} */ result += 1;`), 2);
    assert.is(run(`${docComment(b)}\nresult = 1;\n${docComment(b, "  ")}\nresult += 1;`), 2);
    assert.not.ok(doc(b).includes("*/"));
  });

  test(`${name}: key(), stringKey() and member() name exactly that property`, () => {
    const keys = run(`const o = { ${key(b)}: 1, ${stringKey(b + "!")}: 2 }; result = JSON.stringify([Object.keys(o), Object.getPrototypeOf(o) === Object.prototype]);`);
    assert.is(keys, JSON.stringify([[b, `${b}!`], true]));
    assert.is(run(`result = ${member("o", b)};`, { o: { [b]: 42 } }), 42);
  });

  test(`${name}: jsValue() evaluates to the JSON value`, () => {
    const value = { [b]: [b, { [b]: b }], n: 1.5, none: null, yes: true };
    for (const space of [undefined, 2]) {
      const back = run(`result = ${jsValue(value, space)};`);
      assert.is(JSON.stringify(back), JSON.stringify(value));
      assert.not.match(jsValue(value, space), /[\u2028\u2029]/);
    }
  });

  test(`${name}: parsedJson() evaluates to the JSON value, and its template holds no backtick, \${ or line separator`, () => {
    const value = { [b]: [b, { [b]: b }], n: 1.5, none: null, yes: true };
    for (const space of [undefined, 2]) {
      const code = parsedJson(value, space);
      assert.is(JSON.stringify(run(`result = ${code};`)), JSON.stringify(value));
      const template = code.slice("JSON.parse(String.raw`".length, -"`)".length);
      assert.not.match(template, /`|\$\{|[\u2028\u2029]/);
    }
    const list = parsedJsonList([value, b, [b]]);
    assert.is(JSON.stringify(run(`result = ${list};`)), JSON.stringify([value, b, [b]]));
    assert.not.match(list.slice("JSON.parse(String.raw`".length, -"`)".length), /`|\$\{|[\u2028\u2029]/);
  });

  test(`${name}: scriptJson() cannot close a <script>, and parses as JSON and JavaScript alike`, () => {
    const html = `<script>result = ${scriptJson({ b })};</script>`;
    assert.is(html.match(/<\/script/gi)?.length, 1);
    assert.not.ok(/<!--|-->/.test(html.slice(8, -9)));
    assert.equal(JSON.parse(scriptJson({ b })), { b });
    assert.is(JSON.stringify(run(html.slice(8, -9))), JSON.stringify({ b }));
  });

  test(`${name}: shellWord() is one shell word on one line standing for it`, () => {
    if (/[\ud800-\udfff]/.test(b.replace(/[\ud800-\udbff][\udc00-\udfff]/g, ""))) return; // a lone surrogate has no UTF-8 form to pass to a process
    const word = shellWord(b);
    assert.not.match(word, /[\r\n\u2028\u2029]/);
    // bash reads $'…'; a word without it is POSIX and read by sh too.
    for (const shell of word.startsWith("$'") ? ["bash"] : ["sh", "bash"]) {
      const r = spawnSync(shell, ["-c", `printf '%s' ${word}`], { encoding: "utf8", env: { ...process.env, LC_ALL: "C.UTF-8" } });
      assert.is(r.status, 0, r.stderr);
      assert.is(r.stdout, b, `${shell}: ${word}`);
    }
  });

  test(`${name}: Markdown escapes keep it on one line with no raw HTML`, () => {
    for (const out of [escapeMd(b), codeSpan(b), cellCode(b)]) assert.not.match(out, /[\r\n]/);
    assert.not.match(escapeMd(b), /(^|[^\\])[<>]/);
    assert.not.match(cellCode(b), /(^|[^\\])\|/);
    const block = codeBlock(`${b}\n\`\`\`\n${b}`, "ts");
    const fence = /^`+/.exec(block)![0];
    assert.is(block.split("\n").filter((l) => l.startsWith(fence)).length, 2, "only the block's own fences");
  });

  test(`${name}: ident() refuses it unless it is an identifier`, () => {
    if (/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(b)) assert.is(ident(b), b);
    else assert.throws(() => ident(b), (e: unknown) => e instanceof InternalError);
  });
}

test("key(): identifiers bare, others quoted, __proto__ computed", () => {
  assert.is(key("name"), "name");
  assert.is(key("delete"), "delete");
  assert.is(key("first-name"), '"first-name"');
  assert.is(key("__proto__"), '["__proto__"]');
  assert.is(stringKey("name"), '"name"');
  assert.is(member("api", "books"), "api.books");
  assert.is(member("api", "a-b"), 'api["a-b"]');
});

test("jsValue(): a __proto__ key stays an own property, in the layout JSON.stringify gives", () => {
  const value = JSON.parse('{"a":{"__proto__":{"polluted":true},"b":[1,{"__proto__":2}]}}');
  for (const space of [undefined, 2]) {
    const text = jsValue(value, space);
    assert.is(text, JSON.stringify(value, null, space).replace(/"__proto__"/g, '["__proto__"]'));
    assert.is(run(`const v = ${text}; result = Object.hasOwn(v.a, "__proto__") && v.a.polluted === undefined && v.a.__proto__.polluted;`), true);
  }
  assert.is(jsValue({ a: "\u2028" }), '{"a":"\\u2028"}');
  assert.throws(() => jsValue(undefined), (e: unknown) => e instanceof InternalError);
});

test("parsedJson(): JSON.stringify's layout between the backticks; a __proto__ key stays an own property", () => {
  assert.is(parsedJson({ a: [1, "x"] }, 2), 'JSON.parse(String.raw`{\n  "a": [\n    1,\n    "x"\n  ]\n}`)');
  assert.is(parsedJson({ a: "`${x}\\d\u2028" }), 'JSON.parse(String.raw`{"a":"\\u0060$\\u007bx}\\\\d\\u2028"}`)');
  const value = JSON.parse('{"a":{"__proto__":{"polluted":true}}}');
  assert.is(run(`const v = ${parsedJson(value)}; result = Object.hasOwn(v.a, "__proto__") && v.a.polluted === undefined && v.a.__proto__.polluted;`), true);
  assert.throws(() => parsedJson(undefined), (e: unknown) => e instanceof InternalError);
  assert.is(parsedJsonList([{ a: 1 }, "`"]), 'JSON.parse(String.raw`[\n  {"a":1},\n  "\\u0060"\n]`)');
  assert.is(parsedJsonList([]), "JSON.parse(String.raw`[]`)");
});

test("str(), doc() and templateText(): the exact forms", () => {
  assert.is(str('a"b\u2028c\u2029'), '"a\\"b\\u2028c\\u2029"');
  assert.is(doc("a */ b /* c"), "a *\\/ b /\\* c");
  assert.is(doc("a\r\nb\rc\u2028d", "  "), "a\n   * b\n   * c\n   * d");
  assert.is(docComment("one line"), "/** one line */");
  assert.is(docComment("two\nlines", "  "), "  /**\n   * two\n   * lines\n   */");
  assert.is(templateText("a`b${c}\\d\re"), "a\\`b\\${c}\\\\d\\re");
  assert.is(lineComment("a\r\nb\u2028c"), "a b c");
  assert.is(scriptJson("</script><!--"), '"\\u003c/script\\u003e\\u003c!--"');
  assert.is(shellWord("a,b"), "a,b");
  assert.is(shellWord("it's"), "'it'\\''s'");
  assert.is(shellWord("a\nb's\u2028"), "$'a\\x0ab\\'s\\u2028'");
});

test("the Handlebars helpers are the functions, and refuse what is not text", () => {
  assert.is(escapeHelpers.str!("x\u2028", {}), str("x\u2028"));
  assert.is(escapeHelpers.propKey!("a b", {}), key("a b"));
  assert.throws(() => escapeHelpers.str!({}), (e: unknown) => e instanceof InternalError);
  assert.throws(() => escapeHelpers.doc!(undefined), (e: unknown) => e instanceof InternalError);
});

test.run();
