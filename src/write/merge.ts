/**
 * Merges what a new generation needs into user-owned files without changing what is there:
 * package.json gains missing keys (dependencies, scripts, exports …) key by key; existing values win.
 */

/** Adds to `mine` every key of `theirs` that is missing, recursing into plain objects. */
function addMissing(mine: Record<string, unknown>, theirs: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...mine };
  for (const [key, value] of Object.entries(theirs)) {
    if (!(key in out)) out[key] = value;
    else if (isPlain(out[key]) && isPlain(value)) out[key] = addMissing(out[key] as Record<string, unknown>, value as Record<string, unknown>);
  }
  return out;
}

function isPlain(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/** The indentation a JSON file uses (tabs or n spaces), to write it back the same way. */
function indentOf(text: string): string | number {
  const m = /\n([ \t]+)"/.exec(text);
  if (!m) return 2;
  return m[1]!.startsWith("\t") ? "\t" : m[1]!.length;
}

/**
 * The user's package.json with the keys a new generation needs added; undefined when nothing is
 * missing (or the file is not a JSON object, which is then left alone).
 */
export function mergePackageJson(current: string, emitted: string): string | undefined {
  let mine: unknown;
  try {
    mine = JSON.parse(current);
  } catch {
    return undefined;
  }
  if (!isPlain(mine)) return undefined;
  const theirs = JSON.parse(emitted) as Record<string, unknown>;
  // Only the keys that make the package work are merged; name, version, description stay the user's.
  const wanted: Record<string, unknown> = {};
  for (const key of ["type", "exports", "scripts", "dependencies", "devDependencies", "allowScripts", "overrides", "engines"]) {
    if (key in theirs) wanted[key] = theirs[key];
  }
  const merged = addMissing(mine, wanted);
  if (JSON.stringify(merged) === JSON.stringify(mine)) return undefined;
  return JSON.stringify(merged, null, indentOf(current)) + (current.endsWith("\n") ? "\n" : "");
}
