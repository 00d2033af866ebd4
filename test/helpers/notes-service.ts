/**
 * A one-resource service (notes) for tests of the generated runtime over real sockets; run as a script it
 * starts that service with startService from the environment (KEYS_FILE, DATABASE_FILE, PORT, the limits),
 * prints its URL on stdout and stops on SIGTERM, as a generated package's `npm start` does.
 */
import { pathToFileURL } from "node:url";
import { BUILTIN_ERRORS } from "../../src/model/builtin-errors.js";
import type { ServiceSpec } from "../../templates/runtime/spec.js";

const type = (subject: string) => `application/vnd.acme.v1.${subject}+json`;
const alias = (subject: string) => `application/acme.v1.${subject}.json`;

/** The notes service's spec: notes with a required text, under http://127.0.0.1/v1. */
export const notesSpec: ServiceSpec = {
  name: "notes",
  title: "Notes",
  vendor: "acme",
  version: 1,
  baseUrl: "http://127.0.0.1/v1",
  errorDocsUrl: "https://docs.example.com/errors",
  auth: { schemes: ["apiKey", "bearer", "basic"], realm: "Notes" },
  paging: { defaultLimit: 25, maxLimit: 100 },
  bodyLimit: 1_048_576,
  resources: [
    {
      name: "note",
      collection: "notes",
      fields: [{ name: "text", kind: "string" }],
      required: ["text"],
      unique: [],
      access: {},
      mediaType: type("note"),
      collectionMediaType: type("notes"),
      bodySchema: { type: "object", additionalProperties: false, required: ["text"], properties: { text: { type: "string" } } },
    },
  ],
  actions: [],
  errors: BUILTIN_ERRORS.map((e) => ({ ...e, info: `https://docs.example.com/errors/${e.code}` })),
  mediaTypes: [
    { subject: "error", kind: "error" as const },
    { subject: "note", kind: "instance" as const },
    { subject: "notes", kind: "collection" as const },
  ].map((t) => ({ name: type(t.subject), alias: alias(t.subject), subject: t.subject, kind: t.kind, version: 1 })),
};

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { startService } = await import("../../templates/runtime/server.js");
  const service = await startService(notesSpec, {});
  process.stdout.write(`${service.url}\n`);
}
