/** withoutComments (user-code/index.ts): a generated module's comment lines, and nothing else, are left out. */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { withoutComments } from "../../../src/user-code/index.js";

test("doc comments and line comments on their own lines are left out; code is kept", () => {
  const a = `// header\nexport interface Book {\n  /**\n   * The title.\n   */\n  title: string;\n  /** One line. */\n  pages?: number;\n}\n`;
  const b = `// another header\nexport interface Book {\n  /**\n   * The title, as printed.\n   */\n  title: string;\n  /** Changed. */\n  pages?: number;\n}\n`;
  assert.is(withoutComments(a), withoutComments(b));
  assert.is.not(withoutComments(a), withoutComments(a.replace("pages?: number", "pages: number")));
});

test("a comment followed by code on its line, or code inside what looks like a comment block, is kept", () => {
  const a = `/** doc */ export type A = string;\nexport type B = number; /* x */\n`;
  const b = `/** doc */ export type A = number;\nexport type B = number; /* x */\n`;
  assert.is.not(withoutComments(a), withoutComments(b));
  const c = `/** start\nexport type A = string;\n*/ export type B = 1; /* end */\n`;
  assert.is.not(withoutComments(c), withoutComments(c.replace("string", "number")));
});

test.run();
