/**
 * The generated README's "Try it" lines run as written against a service started as the README says:
 * the base URL is the one that service answers on and puts in its hrefs, the bodies are real examples,
 * and no line holds a placeholder but SECRET.
 */
import path from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { emitReadme, localBaseUrl } from "../../../src/emit/readme.js";
import { checkProject } from "../../../src/pipeline.js";
import { repoRoot } from "../../helpers/cli.js";

/** The README of an example and the lines of its "Try it" block. */
function readme(example: string): { text: string; tryIt: string[] } {
  const { model } = checkProject(path.join(repoRoot, "examples", example));
  assert.ok(model);
  const text = emitReadme(model).find((f) => f.path === "README.md")!.contents;
  const block = /## Try it\n```sh\n([\s\S]*?)\n```/.exec(text);
  assert.ok(block, "a Try it block");
  return { text, tryIt: block[1]!.split("\n") };
}

test("the base URL: the service's own when npm start answers on it as it is, else 127.0.0.1:3000 passed as BASE_URL", () => {
  assert.equal(localBaseUrl("http://localhost:3000/v2", "/v2"), { local: "http://localhost:3000/v2", setBaseUrl: false });
  assert.equal(localBaseUrl("http://127.0.0.1:3000", ""), { local: "http://127.0.0.1:3000", setBaseUrl: false });
  assert.equal(localBaseUrl("http://localhost:8080/v2", "/v2"), { local: "http://127.0.0.1:3000/v2", setBaseUrl: true });
  assert.equal(localBaseUrl("https://localhost:3000/v2", "/v2"), { local: "http://127.0.0.1:3000/v2", setBaseUrl: true });
  assert.equal(localBaseUrl("https://api.example.com/v1", "/v1"), { local: "http://127.0.0.1:3000/v1", setBaseUrl: true });
});

test("library (base URL http://localhost:3000/v2): plain npm start, BASE is that URL, a real body, the href from the service", () => {
  const { text, tryIt } = readme("library");
  assert.match(text, /^npm start +# serves on http:\/\/localhost:3000\/v2$/m);
  assert.is(tryIt[1], "BASE=http://localhost:3000/v2");
  const post = tryIt.find((line) => line.includes(" -d "));
  assert.ok(post, "a create line");
  const body = JSON.parse(/ -d '([^']*)'/.exec(post)![1]!) as { name?: unknown };
  assert.type(body.name, "string");
  assert.ok(tryIt.some((line) => line.startsWith("HREF=$(curl ")));
  assert.ok(tryIt.some((line) => line.includes(`"$HREF"'?expand=books'`)));
});

test("directory (base URL elsewhere): npm start with BASE_URL set to the local URL that BASE names", () => {
  const { text, tryIt } = readme("directory");
  assert.match(text, /^BASE_URL=http:\/\/127\.0\.0\.1:3000\/v1 npm start +# serves on http:\/\/127\.0\.0\.1:3000\/v1 /m);
  assert.is(tryIt[1], "BASE=http://127.0.0.1:3000/v1");
});

test("no Try it line holds a placeholder but SECRET's", () => {
  for (const example of ["library", "directory"]) {
    const { tryIt } = readme(example);
    assert.match(tryIt[0]!, /^SECRET=<the secret printed by npm run keys>/);
    for (const line of tryIt.slice(1)) assert.not.match(line, /<[a-z ]+>|\{\.\.\.\}|\.\.\./, line);
  }
});

test.run();
