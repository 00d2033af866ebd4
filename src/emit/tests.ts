/** Emits the package's own contract tests: the test kit, the samples decided now, and the suite entry. */
import type { Model, Resource } from "../model/types.js";
import type { EmittedFile } from "./emitted-file.js";
import { sampleOf } from "./samples.js";
import { jsValue } from "./shared/escape.js";
import { tsHeader } from "./shared/header.js";
import { asset } from "./shared/templates.js";
import { bodySchemaOf } from "./spec.js";

/** How many distinct sample bodies per resource: enough for the contract tests' unique values. */
const SEEDS = 24;

/** Wrongly typed values by field kind, for the 400 invalidProperty test. */
const WRONG: Readonly<Record<string, unknown>> = { string: 12345, number: "not a number", integer: "not a number", boolean: "yes" };

/** Valid bodies of a resource without its links (the tests create link targets), and one wrongly typed value. */
export function resourceSamples(resource: Resource): ResourceSamples {
  let found = sampleCache.get(resource);
  if (!found) sampleCache.set(resource, (found = computeSamples(resource)));
  return found;
}

type ResourceSamples = { bodies: unknown[]; invalid?: { property: string; value: unknown } };
const sampleCache = new WeakMap<Resource, ResourceSamples>();

/**
 * The first of resourceSamples(resource).bodies, without computing the others: the docs' examples
 * need one body per resource, the contract tests all of them.
 */
export function exampleBody(resource: Resource): unknown {
  const all = sampleCache.get(resource);
  if (all) return all.bodies[0];
  let found = exampleCache.get(resource);
  if (!found) {
    const schema = sampleSchemaOf(resource, bodySchemaOf(resource) as BodySchema);
    let body: unknown;
    for (let seed = 0; seed < SEEDS && body === undefined; seed++) body = sampleOf(schema, seed);
    exampleCache.set(resource, (found = { body }));
  }
  return found.body;
}

const exampleCache = new WeakMap<Resource, { body: unknown }>();

type BodySchema = { properties: Record<string, unknown>; required?: string[] };

/** The body schema the samples satisfy (`schema`, the resource's body schema): links left out (the tests create link targets). */
function sampleSchemaOf(resource: Resource, schema: BodySchema): { properties: Record<string, unknown>; required: string[] } {
  const links = new Set(resource.fields.filter((f) => f.link).map((f) => f.name));
  const properties = Object.fromEntries(Object.entries(schema.properties).filter(([k]) => !links.has(k)));
  return { ...schema, properties, required: (schema.required ?? []).filter((r) => !links.has(r)) };
}

function computeSamples(resource: Resource): ResourceSamples {
  const schema = bodySchemaOf(resource) as BodySchema;
  const withoutLinks = sampleSchemaOf(resource, schema);
  const bodies: unknown[] = [];
  const seen = new Set<string>();
  for (let seed = 0; seed < SEEDS; seed++) {
    const body = sampleOf(withoutLinks, seed);
    if (body === undefined) continue;
    const json = JSON.stringify(body);
    if (!seen.has(json)) bodies.push(body);
    seen.add(json);
  }
  const target = resource.fields.find((f) => f.scalar && f.kind in WRONG && Object.hasOwn(schema.properties, f.name) && !(f.schema as { enum?: unknown }).enum);
  return target ? { bodies, invalid: { property: target.name, value: WRONG[target.kind] } } : { bodies };
}

/** test/generated/kit.ts, samples.ts and contract.test.ts */
export function emitTests(model: Model): EmittedFile[] {
  const samples = {
    resources: Object.fromEntries(model.resources.map((r) => [r.collection, resourceSamples(r)])),
    actions: Object.fromEntries(
      model.actions.map((a) => {
        const params = sampleOf(a.query);
        return [a.name, params === undefined ? {} : { params }];
      }),
    ),
  };
  return [
    { path: "test/generated/kit.ts", contents: tsHeader("contract-test kit") + asset("test-kit", "kit.ts"), owner: "generated" },
    {
      path: "test/generated/samples.ts",
      contents: tsHeader("sample data of the contract tests") + `import type { Samples } from "./kit.js";\n\nexport const samples: Samples = ${jsValue(samples, 2)};\n`,
      owner: "generated",
    },
    {
      path: "test/generated/contract.test.ts",
      contents:
        tsHeader("contract tests of every route") +
        `import { actions, hooks } from "../../src/generated/handlers.js";\nimport { spec } from "../../src/generated/spec.js";\nimport { runContract } from "./kit.js";\nimport { samples } from "./samples.js";\n\nrunContract(spec, { hooks, actions }, samples);\n`,
      owner: "generated",
    },
  ];
}
