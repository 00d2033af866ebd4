/**
 * The ajv settings of every generated service's validators. resourcery's `check` compiles every schema the
 * service compiles with these very settings, so a schema that passes `check` compiles at start-up: this
 * file is templates/runtime/ajv-settings.ts in the service and src/model/ajv-settings.ts in resourcery, the
 * same text (test/unit/consistency.test.ts compares the two files).
 */
import { Ajv, type CodeOptions, type Options } from "ajv";
import formatsPlugin from "ajv-formats";
import { RE2JS } from "re2js";

type RegExpEngine = NonNullable<CodeOptions["regExp"]>;
type RegExpLike = ReturnType<RegExpEngine>;

/**
 * `pattern` (and patternProperties) tested by RE2, whose time is linear in the input: with JavaScript's
 * backtracking RegExp, 41 characters against `^(a+)+$` block the event loop for minutes. `check` refuses
 * the patterns RE2 cannot compile (backreferences, lookaround).
 * @example linearRegExp("^(a+)+$", "u").test("a".repeat(41) + "!") === false, at once
 */
export const linearRegExp: RegExpEngine = Object.assign(
  (pattern: string, flags: string): RegExpLike => {
    const re = RE2JS.compile(pattern, flags.includes("i") ? RE2JS.CASE_INSENSITIVE : 0);
    // ajv keeps one compiled pattern per toString(): each must tell its pattern and flags apart.
    const like = { test: (s: string) => re.test(s), toString: () => `/${pattern}/${flags}` };
    return like;
  },
  // `code` names the engine in ajv's standalone output, which the service never produces.
  { code: 'require("./ajv-settings.js").linearRegExp' },
);

/**
 * ajv's options: request bodies strictly (`coerce` false: no coercion, no silent removal of unknown
 * properties), action query strings with scalar coercion (`coerce` true: "12" is 12).
 */
export function ajvOptions(coerce: boolean): Options {
  return {
    allErrors: false,
    coerceTypes: coerce,
    removeAdditional: false,
    useDefaults: true,
    strict: false,
    allowUnionTypes: true,
    validateFormats: true,
    // Properties are looked up on the value itself: an optional property named toString or valueOf is
    // otherwise read from Object.prototype (a function), and every body that omits it fails its schema.
    ownProperties: true,
    code: { regExp: linearRegExp },
  };
}

/**
 * A new ajv with the service's options and formats (ajv-formats). `extra` may only change what does not
 * decide which schemas compile or what they accept: `check` turns off the optimisation of code it never
 * runs (the generated code's own, and the inlining of each referenced schema into every schema that
 * refers to it, which compiles the same keywords again there), and ajv's warnings (an unknown format),
 * which its own diagnostics say better.
 */
export function newAjv(coerce: boolean, extra: { readonly optimize?: boolean; readonly quiet?: boolean } = {}): Ajv {
  const options = ajvOptions(coerce);
  const ajv = new Ajv({
    ...options,
    ...(extra.optimize === false ? { code: { ...options.code, optimize: false }, inlineRefs: false } : {}),
    ...(extra.quiet === true ? { logger: false as const } : {}),
  });
  type Plugin = (a: Ajv) => unknown;
  const addFormats = ((formatsPlugin as unknown as { default?: Plugin }).default ?? formatsPlugin) as unknown as Plugin;
  addFormats(ajv);
  return ajv;
}
