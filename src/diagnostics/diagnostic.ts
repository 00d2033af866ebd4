/** A diagnostic: one finding about the user's definitions, located by file and JSON pointer. */
export type Severity = "error" | "warning";

/** Where a diagnostic points: a file, a JSON pointer into it, and whether the key or the value is meant. */
export interface Target {
  readonly file: string;
  readonly pointer: string;
  readonly kind?: "key" | "value";
  /** A raw character offset, for findings (JSON syntax) that have no pointer yet. */
  readonly offset?: number;
}

/** One finding, with its message and hint already rendered from the code table. */
export interface Diagnostic extends Target {
  readonly code: string;
  readonly severity: Severity;
  readonly message: string;
  readonly hint: string;
}

/** The result of a function that can fail on user input: a value (possibly partial) and what it found. */
export type DiagnosticResult<T> = readonly [T, readonly Diagnostic[]];

/** True when any diagnostic is an error (warnings do not fail a run). */
export function hasErrors(diagnostics: readonly Diagnostic[]): boolean {
  return diagnostics.some((d) => d.severity === "error");
}

/** Escapes one reference token of a JSON pointer (RFC 6901). */
export function escapePointerToken(token: string | number): string {
  const text = String(token);
  // Most tokens (property names, keywords, indexes) have nothing to escape: the check walks every schema.
  if (!text.includes("~") && !text.includes("/")) return text;
  return text.replace(/~/g, "~0").replace(/\//g, "~1");
}

/** Builds a JSON pointer from its tokens. @example pointerOf(["properties", "a/b"]) === "/properties/a~1b" */
export function pointerOf(tokens: readonly (string | number)[]): string {
  let out = "";
  for (const t of tokens) out += "/" + escapePointerToken(t);
  return out;
}

/** Splits a JSON pointer into its unescaped tokens. @example tokensOf("/a~1b/0") → ["a/b", "0"] */
export function tokensOf(pointer: string): string[] {
  if (pointer === "" || pointer === "#") return [];
  // Only a URI fragment ("#/a%25b") is percent-encoded; a plain pointer ("/50%off") is taken as written.
  const fragment = pointer.startsWith("#");
  const body = fragment ? pointer.slice(1) : pointer;
  return body
    .split("/")
    .slice(1)
    .map((t) => (fragment ? percentDecoded(t) : t).replace(/~1/g, "/").replace(/~0/g, "~"));
}

function percentDecoded(token: string): string {
  try {
    return decodeURIComponent(token);
  } catch {
    return token;
  }
}

/** Appends tokens to a JSON pointer. */
export function childPointer(pointer: string, ...tokens: (string | number)[]): string {
  return pointer + pointerOf(tokens);
}
