/**
 * The ajv settings of every generated service's validators. resourcery's `check` compiles every schema the
 * service compiles with these very settings, so a schema that passes `check` compiles at start-up: this
 * file is templates/runtime/ajv-settings.ts in the service and src/model/ajv-settings.ts in resourcery, the
 * same text (test/unit/consistency.test.ts compares the two files).
 */
import { createRequire } from "node:module";
import type { Ajv, CodeOptions, Options } from "ajv";
import { RE2JS } from "re2js";

// ajv's compiler is loaded on first use: a service whose validators were precompiled never needs it.
const require = createRequire(import.meta.url);

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
  // `code` is how ajv's standalone code (the validators resourcery precompiles, src/generated/validators.js)
  // names the engine: that module's factory takes it as its parameter `linearRegExp`.
  { code: "linearRegExp" },
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
    // A $ref is a call of the referred schema's validator, compiled once: inlined, a shared schema was
    // compiled again into every schema using it (Stripe's validators: 17.7 MB of code and 7.2 s to
    // compile inlined, 13.5 MB and 4.4 s not).
    inlineRefs: false,
    code: { regExp: linearRegExp },
  };
}

/** What `newAjv` may be told beyond the service's options (see there). */
export interface AjvExtra {
  /** false: no optimisation of the code (`check`, which never runs it). */
  readonly optimize?: boolean;
  /** true: none of ajv's warnings. */
  readonly quiet?: boolean;
  /** true: keep each validator's source, one statement a line, for ajv's standalone code (generate). */
  readonly standalone?: boolean;
  /** true: the schemas passed `check`, which validated each against ajv's meta-schema: not validated again (generate). */
  readonly checked?: boolean;
}

/**
 * A new ajv with the service's options and formats (ajv-formats). `extra` may only change what does not
 * decide what the schemas accept: `check` turns off the optimisation of code it never runs (the generated
 * code's own, and the inlining of each referenced schema into every schema that refers to it, which compiles
 * the same keywords again there), and ajv's warnings (an unknown format), which its own diagnostics say
 * better; `generate` keeps the code of the validators it precompiles, and does not validate again the
 * schemas `check` validated.
 */
export function newAjv(coerce: boolean, extra: AjvExtra = {}): Ajv {
  const options = ajvOptions(coerce);
  const { Ajv: AjvClass } = require("ajv") as typeof import("ajv");
  const ajv = new AjvClass({
    ...options,
    code: {
      ...options.code,
      ...(extra.optimize === false ? { optimize: false } : {}),
      ...(extra.standalone === true ? { source: true, lines: true } : {}),
    },
    ...(extra.optimize === false ? { inlineRefs: false } : {}),
    ...(extra.quiet === true ? { logger: false as const } : {}),
    ...(extra.checked === true ? { validateSchema: false } : {}),
  });
  type Plugin = (a: Ajv) => unknown;
  const formatsPlugin = require("ajv-formats") as { default?: Plugin } & Plugin;
  (formatsPlugin.default ?? formatsPlugin)(ajv);
  return ajv;
}
