/** Emits the package's own contract tests: the test kit, the samples decided now, and the suite entry. */
import type { Model } from "../model/types.js";
import { actionSamples, resourceSamples } from "./contract-samples.js";
import type { EmittedFile } from "./emitted-file.js";
import { jsValue } from "./shared/escape.js";
import { tsHeader } from "./shared/header.js";
import { asset } from "./shared/templates.js";

/**
 * test/generated/kit.ts, samples.ts and contract.test.ts. The suite imports the spec and the runtime
 * only, never src/hooks/ or src/actions/: it runs with stubs in their place (kit.ts), so the user's
 * business rules, or a file of theirs that throws when loaded, cannot fail it.
 */
export function emitTests(model: Model): EmittedFile[] {
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
        `export const samples: Samples = ${jsValue(samples, 2)};\n`,
      owner: "generated",
    },
    {
      path: "test/generated/contract.test.ts",
      contents:
        tsHeader("contract tests of every route") +
        `import { spec } from "../../src/generated/spec.js";\nimport { runContract } from "./kit.js";\nimport { samples } from "./samples.js";\n\nrunContract(spec, samples);\n`,
      owner: "generated",
    },
  ];
}
