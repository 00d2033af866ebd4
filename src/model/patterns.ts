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

/** What compileLinear made of each pattern (or the error RE2 threw): every resource repeats the same few patterns. */
const linear = new Map<string, { test(s: string): boolean } | { error: unknown }>();
/** Past this many distinct patterns the cache starts afresh (a long-lived process checks many projects). */
const MAX_LINEAR = 10_000;

/**
 * A pattern as the service tests it: RE2 with no flags, matching anywhere in the string (as RegExp#test).
 * Compiled once per pattern (RE2 takes ~1 ms, the samples and the lint ask for each pattern per schema).
 */
export function compileLinear(pattern: string): { test(s: string): boolean } {
  let found = linear.get(pattern);
  if (found === undefined) {
    if (linear.size >= MAX_LINEAR) linear.clear();
    try {
      const re = RE2JS.compile(pattern, 0);
      found = { test: (s: string) => re.test(s) };
    } catch (error) {
      found = { error };
    }
    linear.set(pattern, found);
  }
  if ("error" in found) throw found.error;
  return found;
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
    const escapes = foreignEscapes(pattern);
    if (escapes.length > 0) return escapeProblem(pattern, escapes);
    if (/incomplete quantifier|lone quantifier/i.test(why)) {
      return { problem: `is not a valid regular expression (${why.toLowerCase()})`, fix: 'a brace or bracket meant as itself is escaped in a "u" regular expression: write \\{, \\} or \\] (in JSON, "\\\\{")' };
    }
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

/** An escape a "u" regular expression of JavaScript does not have, where it is, and its JavaScript form if it has one. */
interface ForeignEscape {
  /** As written in the pattern: "\\A", or a whole "\\Q…\\E". */
  readonly escape: string;
  readonly index: number;
  /** What to write instead, and what it means; undefined when JavaScript has nothing alike. */
  readonly write?: string;
  readonly means?: string;
}

/** Escapes of other dialects (PCRE, Ruby, Python, Java) with a JavaScript form. */
const DIALECT_ESCAPES: Readonly<Record<string, { write: string; means: string }>> = {
  A: { write: "^", means: "the start of the value" },
  Z: { write: "$", means: "the end of the value" },
  z: { write: "$", means: "the end of the value" },
  h: { write: "[ \\t]", means: "a horizontal space" },
  H: { write: "[^ \\t]", means: "anything but a horizontal space" },
  e: { write: "\\x1B", means: "escape" },
  a: { write: "\\x07", means: "bell" },
};

/** Characters a "u" regular expression escapes: syntax characters and "/" (and "-" in a class). */
const SYNTAX = new Set([..."^$\\.*+?()[]{}|/"]);

/**
 * The escapes of `pattern` that JavaScript's "u" regular expressions reject: letters other dialects give a
 * meaning (\A, \Z, \h, \Q…\E), and escaped punctuation that needs no escape (\-, \_, \#).
 * @example foreignEscapes("\\A[a-z]+\\Z").map((e) => e.write) → ["^", "$"]
 */
export function foreignEscapes(pattern: string): ForeignEscape[] {
  const out: ForeignEscape[] = [];
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c !== "\\") {
      if (inClass && c === "]") inClass = false;
      else if (!inClass && c === "[") inClass = true;
      continue;
    }
    const next = pattern[i + 1];
    if (next === undefined) break;
    if (next === "Q") {
      const end = pattern.indexOf("\\E", i + 2);
      const quoted = pattern.slice(i + 2, end === -1 ? pattern.length : end);
      const write = [...quoted].map((ch) => (SYNTAX.has(ch) || (inClass && ch === "-") ? `\\${ch}` : ch)).join("");
      out.push({ escape: pattern.slice(i, end === -1 ? pattern.length : end + 2), index: i, write, means: "the quoted text, each special character escaped" });
      i = end === -1 ? pattern.length : end + 1;
      continue;
    }
    i++;
    if (isJavaScriptEscape(next, inClass)) continue;
    // In a class, an anchor means nothing and \\h is its characters without the brackets.
    const dialect = inClass ? (next === "h" ? { write: " \\t", means: "a horizontal space" } : ["e", "a"].includes(next) ? DIALECT_ESCAPES[next] : undefined) : DIALECT_ESCAPES[next];
    if (dialect) out.push({ escape: `\\${next}`, index: i - 1, ...dialect });
    else if (/[A-Za-z0-9]/.test(next)) out.push({ escape: `\\${next}`, index: i - 1 });
    else out.push({ escape: `\\${next}`, index: i - 1, write: next, means: "the character itself, which needs no escape" });
  }
  return out;
}

/** True for `\\c` (c the character after the backslash) in a "u" regular expression of JavaScript. */
function isJavaScriptEscape(c: string, inClass: boolean): boolean {
  if (SYNTAX.has(c) || "dDwWsSfnrtv0cxupPk".includes(c)) return true;
  if (inClass) return c === "b" || c === "-";
  return c === "b" || c === "B" || /[1-9]/.test(c);
}

/** The problem and the fix of a pattern with escapes JavaScript's "u" regular expressions reject. */
function escapeProblem(pattern: string, escapes: readonly ForeignEscape[]): PatternProblem {
  const distinct = [...new Map(escapes.map((e) => [e.escape, e])).values()];
  const names = distinct.map((e) => e.escape);
  const list = names.length === 1 ? names[0]! : `${names.slice(0, -1).join(", ")} and ${names[names.length - 1]}`;
  const problem = `is not a valid regular expression: ${list} ${names.length === 1 ? "is not an escape" : "are not escapes"} of JavaScript regular expressions (JSON Schema patterns are ECMAScript ones, with the "u" flag)`;
  const unknown = distinct.filter((e) => e.write === undefined);
  if (unknown.length > 0) {
    return { problem, fix: `JavaScript has no ${unknown.map((e) => e.escape).join(" or ")}: rewrite the pattern without ${unknown.length === 1 ? "it" : "them"}` };
  }
  const all = distinct.map((e) => `${e.escape} as ${/^\s|\s$/.test(e.write!) ? `"${e.write}"` : e.write} (${e.means})`);
  const ways = all.length === 1 ? all[0]! : `${all.slice(0, -1).join(", ")} and ${all[all.length - 1]}`;
  let rewritten = "";
  let at = 0;
  for (const e of escapes) {
    rewritten += pattern.slice(at, e.index) + e.write!;
    at = e.index + e.escape.length;
  }
  rewritten += pattern.slice(at);
  const works = patternProblem(rewritten) === undefined;
  return { problem, fix: `write ${ways}${works ? `: "pattern": ${JSON.stringify(rewritten)}` : ""}` };
}
