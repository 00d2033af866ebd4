import { report } from "../../diagnostics/report.js";
import { SERVER_OWNED as SERVER_OWNED_NAMES } from "../../model/conventions.js";
import { defineRule } from "../rule.js";

/** Properties every representation carries and only the server writes. */
export const SERVER_OWNED: readonly string[] = SERVER_OWNED_NAMES;

/** The server owns id, meta, createdAt and modifiedAt: a definition may not declare them. */
export const serverOwnedProperty = defineRule({
  codes: ["server-owned-property"],
  description: "id, meta, createdAt and modifiedAt are not declared",
  check: (model) =>
    model.resources.flatMap((r) =>
      r.fields.filter((f) => SERVER_OWNED.includes(f.name)).map((f) => report("server-owned-property", { ...f.origin, kind: "key" }, { name: f.name })),
    ),
});
