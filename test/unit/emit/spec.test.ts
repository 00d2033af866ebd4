/**
 * The service description the runtime serves from (src/emit/spec.ts): what it tells the runtime about
 * each field, here that a property declared writeOnly is one (the runtime never represents it).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { specOf } from "../../../src/emit/spec.js";
import { checkProject } from "../../../src/pipeline.js";

test("a writeOnly property, scalar or link, is marked writeOnly in the spec; the others are not", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "rsc-spec-"));
  try {
    fs.mkdirSync(path.join(dir, "resources"));
    const write = (file: string, value: unknown) => fs.writeFileSync(path.join(dir, file), JSON.stringify(value, null, 2));
    write("service.json", {
      name: "accounts-service",
      title: "Accounts",
      vendor: "acme",
      version: 1,
      baseUrl: "http://localhost:3000/v1",
      errorDocsUrl: "http://localhost:3000/docs/errors",
      resources: ["resources/account.json", "resources/team.json"],
      auth: { schemes: ["bearer"] },
    });
    write("resources/team.json", { title: "Team", type: "object", "x-collection": "teams", properties: { name: { type: "string" } } });
    write("resources/account.json", {
      title: "Account",
      type: "object",
      "x-collection": "accounts",
      required: ["email"],
      properties: {
        email: { type: "string" },
        password: { type: "string", minLength: 8, writeOnly: true },
        recovery: { $ref: "team.json", writeOnly: true },
        nickname: { type: "string", writeOnly: false },
      },
    });
    const { model, diagnostics } = checkProject(dir);
    assert.ok(model, JSON.stringify(diagnostics));
    const resources = specOf(model!).resources as { collection: string; fields: { name: string; writeOnly?: boolean }[]; bodySchema: { properties: Record<string, unknown> } }[];
    const account = resources.find((r) => r.collection === "accounts")!;
    const writeOnly = Object.fromEntries(account.fields.map((f) => [f.name, f.writeOnly === true]));
    assert.equal(writeOnly, { email: false, password: true, recovery: true, nickname: false });
    assert.ok("password" in account.bodySchema.properties, "a body still sets it");
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test("a plain object's declared properties are in the spec, nested ones with theirs, so fields can select inside it", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "rsc-spec-"));
  try {
    fs.mkdirSync(path.join(dir, "resources"));
    const write = (file: string, value: unknown) => fs.writeFileSync(path.join(dir, file), JSON.stringify(value, null, 2));
    write("service.json", {
      name: "people-service",
      title: "People",
      vendor: "acme",
      version: 1,
      baseUrl: "http://localhost:3000/v1",
      errorDocsUrl: "http://localhost:3000/docs/errors",
      resources: ["resources/person.json"],
      auth: { schemes: ["bearer"] },
    });
    write("resources/person.json", {
      title: "Person",
      type: "object",
      "x-collection": "people",
      properties: {
        name: { type: "string" },
        address: { type: "object", properties: { city: { type: "string" }, geo: { type: "object", properties: { lat: { type: "number" } } } } },
        extra: { type: "object" },
      },
    });
    const { model, diagnostics } = checkProject(dir);
    assert.ok(model, JSON.stringify(diagnostics));
    const resources = specOf(model!).resources as { fields: unknown[] }[];
    assert.equal(resources[0]!.fields, [
      { name: "address", kind: "object", properties: [{ name: "city", kind: "string" }, { name: "geo", kind: "object", properties: [{ name: "lat", kind: "number" }] }] },
      { name: "extra", kind: "object" },
      { name: "name", kind: "string" },
    ]);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test("a nullable property, top-level or declared inside an object, is marked nullable in the spec; the others are not", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "rsc-spec-"));
  try {
    fs.mkdirSync(path.join(dir, "resources"));
    const write = (file: string, value: unknown) => fs.writeFileSync(path.join(dir, file), JSON.stringify(value, null, 2));
    write("service.json", {
      name: "teams-service",
      title: "Teams",
      vendor: "acme",
      version: 1,
      baseUrl: "http://localhost:3000/v1",
      errorDocsUrl: "http://localhost:3000/docs/errors",
      resources: ["resources/team.json"],
      auth: { schemes: ["bearer"] },
    });
    write("resources/team.json", {
      title: "Team",
      type: "object",
      "x-collection": "teams",
      required: ["name", "description"],
      properties: {
        name: { type: "string" },
        description: { type: ["string", "null"] },
        motto: { anyOf: [{ type: "string" }, { type: "null" }] },
        size: { type: "integer" },
        note: { description: "anything" },
        address: { type: ["object", "null"], properties: { city: { type: ["string", "null"] }, zip: { type: "string" } } },
      },
    });
    const { model, diagnostics } = checkProject(dir);
    assert.ok(model, JSON.stringify(diagnostics));
    type F = { name: string; nullable?: boolean; properties?: F[] };
    const team = (specOf(model!).resources as { fields: F[] }[])[0]!;
    const nullable = (fields: F[]) => Object.fromEntries(fields.map((f) => [f.name, f.nullable === true]));
    assert.equal(nullable(team.fields), { address: true, description: true, motto: true, name: false, note: false, size: false });
    assert.equal(nullable(team.fields.find((f) => f.name === "address")!.properties!), { city: true, zip: false });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
