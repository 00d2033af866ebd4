/**
 * The generated client's typed selections (templates/client/select.ts), checked with the TypeScript
 * compiler against a hand-written Registry: inside a plain nested object `fields` selects among its
 * declared properties (`address(city)`), and an undeclared name there fails to compile.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import ts from "typescript";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { repoRoot } from "../../helpers/cli.js";

const SELECT = path.join(repoRoot, "templates/client/select.ts");

const PRELUDE = `
import type { Checked, Selected } from ${JSON.stringify(SELECT.replace(/\.ts$/, ".js"))};
interface PersonFields {
  name: string;
  address?: { city?: string; street?: string; geo?: { lat?: number; [k: string]: unknown }; [k: string]: unknown };
  tags?: string[];
}
type Registry = {
  people: { fields: PersonFields; links: { friend: { target: "people"; required: false } }; collections: {} };
};
declare function get<const F extends readonly string[]>(fields: F & Checked<Registry, "people", F, "fields">): Selected<Registry, "people", F, undefined>;
declare function expand<const E extends readonly string[]>(expand: E & Checked<Registry, "people", E, "expand">): void;
`;

/** The diagnostics of compiling `body` after the prelude, as "line: message" (lines of `body`, from 1). */
function diagnosticsOf(body: string): string[] {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "resourcery-client-select-"));
  try {
    const file = path.join(dir, "probe.ts");
    fs.writeFileSync(file, PRELUDE + body);
    const program = ts.createProgram([file], {
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      types: [],
    });
    const offset = PRELUDE.split("\n").length - 1;
    return ts.getPreEmitDiagnostics(program).map((d) => {
      const line = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start).line + 1 - offset : 0;
      return `${d.file?.fileName === file ? line : d.file?.fileName}: ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`;
    });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

test("fields inside a plain object: declared properties compile, with the narrowed type", () => {
  const errors = diagnosticsOf(`
const a = get(["address(city)"]);
const exact: { meta: { href: string; mediaType: string }; address: { city: string | undefined } | undefined } = a;
const b = get(["name", "address(street,geo(lat))"]);
const lat: number | undefined = b.address?.geo?.lat;
const street: string | undefined = b.address?.street;
const c = get(["friend(address(city))"]);
const city: string | undefined = c.friend.address?.city;
void exact, lat, street, city;
`);
  assert.equal(errors, []);
});

test("fields inside a plain object: an undeclared name, a scalar, an array or expand fails to compile", () => {
  const cases = [
    `get(["address(town)"]);`,
    `get(["address(geo(alt))"]);`,
    `get(["address(city(x))"]);`,
    `get(["name(x)"]);`,
    `get(["tags(x)"]);`,
    `expand(["address(city)"]);`,
    `get(["address(city)"]).address?.street;`,
    `get(["address(city)"]).name;`,
  ];
  const errors = diagnosticsOf(cases.join("\n") + "\n");
  const lines = new Set(errors.map((e) => Number(e.split(":")[0])));
  assert.equal([...lines].sort((x, y) => x - y), cases.map((_, i) => i + 1), errors.join("\n"));
});

test.run();
