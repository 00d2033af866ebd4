/**
 * The types printer (src/emit/ts-types.ts) on real APIs' bundles: the component schemas of every API
 * test/real-apis pins, converted into projects, printed byte for byte as json-schema-to-typescript compiles
 * them (shared schemas referred to by $ref, allOf/anyOf/oneOf as real APIs write them); the bundles it
 * declines are counted, each with its reason, and at most a few may be. Needs test/real-apis installed
 * (`npm ci --prefix test/real-apis`); without it this file is skipped and says so.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { APIS, directoryVersions } from "../../real-apis/apis.js";
import { convertDescription, descriptionFile, writeProject } from "../../real-apis/convert.js";
import { compileTypes, typesSchema } from "../../../src/emit/types.js";
import { printTypesOf } from "../../../src/emit/ts-types.js";
import { limitsOf } from "../../../src/load/limits.js";
import { readProject } from "../../../src/load/read-project.js";
import { validateResource } from "../../../src/load/validate-meta.js";
import { buildModel } from "../../../src/model/build-model.js";
import type { Model } from "../../../src/model/types.js";

/** Most real APIs whose bundle the printer may leave to json-schema-to-typescript. */
const MAX_DECLINED = 2;

/** The model of a project, as `check` builds it (its lint, which decides nothing here, is not run). */
function modelOf(dir: string): Model | undefined {
  const [project] = readProject(dir, {});
  const valid = project.resources.filter((doc) => validateResource(doc.file, doc.value).length === 0);
  return buildModel(project, valid, limitsOf({}))[0];
}

if (directoryVersions().installed === undefined) {
  const why = "test/real-apis is not installed (npm ci --prefix test/real-apis installs the pinned API descriptions)";
  console.log(`types-real-apis.test.ts skipped: ${why}`);
  test.skip(`real APIs' types bundles printed as json-schema-to-typescript compiles them: ${why}`, () => {});
} else {
  test("real APIs' types bundles: printed as json-schema-to-typescript compiles them, or declined with a reason", async () => {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "resourcery-types-real-"));
    const declined: string[] = [];
    let printed = 0;
    let refs = 0;
    try {
      for (const id of APIS) {
        const dir = path.join(tmp, id.replace(/[^A-Za-z0-9.-]+/g, "_"));
        writeProject(convertDescription(JSON.parse(fs.readFileSync(descriptionFile(id), "utf8")) as unknown, { id }), dir);
        const model = modelOf(dir);
        assert.ok(model, `${id}: a model`);
        const bundle = typesSchema(model);
        const result = printTypesOf(bundle, "Types");
        if (result.declined !== undefined) {
          declined.push(`${id}: ${result.declined}`);
          continue;
        }
        const compiled = await compileTypes(bundle);
        if (result.text !== compiled) {
          const a = result.text.split("\n");
          const b = compiled.split("\n");
          const i = a.findIndex((line, n) => line !== b[n]);
          assert.fixture(a.slice(Math.max(0, i - 3), i + 4).join("\n"), b.slice(Math.max(0, i - 3), i + 4).join("\n"), `${id}: differs at line ${i + 1}`);
        }
        printed++;
        if (model.schemas.length > 0) refs++;
      }
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
    console.log(`types printer on ${APIS.length} real APIs: ${printed} printed, ${declined.length} left to json-schema-to-typescript${declined.map((d) => `\n  ${d}`).join("")}`);
    assert.ok(declined.length <= MAX_DECLINED, `declined ${declined.length}:\n${declined.join("\n")}`);
    assert.ok(refs >= APIS.length - MAX_DECLINED - 3, `${refs} printed bundles have shared schemas`);
  });
}

test.run();
