/** Emits the package's own contract tests: the test kit, the samples decided now, and the suite entry. */
import { assertInternal } from "../diagnostics/internal-error.js";
import type { Model } from "../model/types.js";
import { actionSamples, resourceSamples } from "./contract-samples.js";
import { useSharedSchemas } from "./samples.js";
import type { EmittedFile } from "./emitted-file.js";
import { parsedJson } from "./shared/escape.js";
import { tsHeader } from "./shared/header.js";
import { asset, render } from "./shared/templates.js";

/** Every role the service names (in x-access, admin included, and in actions' roles), sorted. */
export function serviceRoles(model: Model): string[] {
  return [...new Set(model.resources.flatMap((r) => Object.values(r.access).flat()).concat(model.actions.flatMap((a) => a.roles)))].sort();
}

/**
 * test/service.test.ts (the user's, seeded once): the service as createService builds it, the user's
 * code included, answering one request any definitions serve: a GET of the first collection a key may read
 * (x-access can close one to every key), with a key holding every role, on an empty in-memory store. It reads the path and roles from the spec rather than
 * holding them: the file is never regenerated, and a renamed collection or a new role must not break it.
 */
function seedOwnTest(model: Model): EmittedFile {
  assertInternal(model.resources.length > 0, "a model without resources reached emit");
  return { path: "test/service.test.ts", contents: render("package/service.test.ts.hbs", { title: model.service.title }), owner: "user" };
}

/**
 * test/generated/kit.ts, samples.ts and contract.test.ts, and the user's test/service.test.ts. The suite imports the spec and the runtime
 * only, never src/hooks/ or src/actions/: it runs with stubs in their place (kit.ts), so the user's
 * business rules, or a file of theirs that throws when loaded, cannot fail it.
 */
export function emitTests(model: Model): EmittedFile[] {
  useSharedSchemas(model.schemas);
  const samples = {
    resources: Object.fromEntries(model.resources.map((r) => [r.collection, resourceSamples(r)])),
    actions: Object.fromEntries(model.actions.map((a) => [a.name, actionSamples(a)])),
  };
  return [
    { path: "test/generated/kit.ts", contents: tsHeader("contract-test kit") + asset("test-kit", "kit.ts"), owner: "generated" },
    {
      path: "test/generated/samples.ts",
      contents:
        tsHeader("sample data of the contract tests") +
        `import type { Samples } from "./kit.js";\n\n` +
        `/** Request bodies, action parameters and the responses the action stubs answer with; where one is missing, why. */\n` +
        `export const samples: Samples = ${parsedJson(samples, 2)};\n`,
      owner: "generated",
    },
    {
      path: "test/generated/contract.test.ts",
      contents:
        tsHeader("contract tests of every route") +
        `import { spec } from "../../src/generated/spec.js";\nimport { runContract } from "./kit.js";\nimport { samples } from "./samples.js";\n\nrunContract(spec, samples);\n`,
      owner: "generated",
    },
    seedOwnTest(model),
  ];
}
