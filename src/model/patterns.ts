/**
 * `pattern` and `patternProperties` regular expressions, compiled as the generated service compiles them:
 * its ajv tests every pattern with RE2 (re2js, time linear in the input; templates/runtime/validate.ts,
 * `linearRegExp`), and ajv's own schema checks need a valid ECMAScript RegExp with the "u" flag.
 * A pattern both accept is safe to serve; `check` refuses any other (see the invalid-pattern rule).
 */
import { RE2JS } from "re2js";

/** What is wrong with a pattern, in words, and how to fix it. */
export interface PatternProblem {
  readonly problem: string;
  readonly fix: string;
}

const RE2_SYNTAX = "RE2 syntax: no backreferences or lookaround";
const BACKREFERENCE_FIX = `${RE2_SYNTAX}; rewrite the pattern without it: repeat the group's expression instead, or compare the two parts in a hook`;
const LOOKAROUND_FIX =
  `${RE2_SYNTAX}; rewrite the pattern without it: the condition of a lookaround becomes a pattern of its own, e.g. "^(?=.*[0-9]).{8,}$" becomes "allOf": [{ "pattern": "[0-9]" }, { "minLength": 8 }]`;

/** A pattern as the service tests it: RE2 with no flags, matching anywhere in the string (as RegExp#test). */
export function compileLinear(pattern: string): { test(s: string): boolean } {
  const re = RE2JS.compile(pattern, 0);
  return { test: (s: string) => re.test(s) };
}

/**
 * Why the generated service could not use `pattern`, or undefined when it can.
 * @example patternProblem("(a)\\1")?.problem === "uses a backreference (\\1), which RE2 does not have"
 */
export function patternProblem(pattern: string): PatternProblem | undefined {
  try {
    new RegExp(pattern, "u");
  } catch (e) {
    const why = e instanceof Error ? e.message.replace(/^Invalid regular expression: \/.*\/u?: /s, "") : String(e);
    return { problem: `is not a valid regular expression (${why.toLowerCase()})`, fix: "correct the regular expression: it is read as ECMAScript with the \"u\" flag, e.g. \"^[a-z][a-z0-9-]*$\"" };
  }
  const feature = missingFeature(pattern);
  if (feature) return { problem: `uses ${feature.what}, which RE2 does not have`, fix: feature.backreference ? BACKREFERENCE_FIX : LOOKAROUND_FIX };
  try {
    compileLinear(pattern);
  } catch (e) {
    const why = e instanceof Error ? e.message.replace(/^error parsing regexp: /, "") : String(e);
    return { problem: `is not accepted by RE2, the linear-time engine the service tests patterns with (${why})`, fix: re2Fix(why) };
  }
  return undefined;
}

/** How to rewrite a pattern RE2 rejects, by RE2's complaint. */
function re2Fix(why: string): string {
  if (/`\\u/.test(why)) return 'RE2 has no \\u escapes: write the character itself (in JSON, "\\u00e9" is the character é) or use a class such as \\p{L}';
  if (/repeat count/.test(why)) return "RE2 allows repeat counts up to 1000: use a smaller count, or a maxLength";
  return `${RE2_SYNTAX}; rewrite the pattern with what both ECMAScript and RE2 accept (https://github.com/google/re2/wiki/Syntax)`;
}

/**
 * The first ECMAScript feature of a valid "u" pattern that RE2 lacks, named better than re2js names it:
 * backreferences (\1, \k<name>) and lookaround ((?=, (?!, (?<=, (?<!). Character classes and escapes are
 * skipped, so "[(?=]" and "\\(?=" are not lookaheads.
 */
function missingFeature(pattern: string): { what: string; backreference: boolean } | undefined {
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === "\\") {
      const next = pattern[i + 1] ?? "";
      if (!inClass && /[1-9]/.test(next)) return { what: `a backreference (\\${/^[1-9][0-9]*/.exec(pattern.slice(i + 1))![0]})`, backreference: true };
      if (!inClass && next === "k") return { what: `a backreference (${/^\\k<[^>]*>/.exec(pattern.slice(i))?.[0] ?? "\\k"})`, backreference: true };
      i++;
    } else if (inClass) {
      if (c === "]") inClass = false;
    } else if (c === "[") {
      inClass = true;
    } else if (c === "(" && pattern[i + 1] === "?") {
      const look = /^\(\?(=|!|<=|<!)/.exec(pattern.slice(i))?.[1];
      if (look) return { what: `a ${look.startsWith("<") ? "lookbehind" : "lookahead"} "(?${look}"`, backreference: false };
    }
  }
  return undefined;
}
