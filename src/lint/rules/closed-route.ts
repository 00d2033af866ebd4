import { childPointer, type Diagnostic } from "../../diagnostics/diagnostic.js";
import { report } from "../../diagnostics/report.js";
import type { AccessAction, Model } from "../../model/types.js";
import { defineRule } from "../rule.js";

type Guarded = Exclude<AccessAction, "admin">;

/** The routes an x-access action guards (given the collection's path), and how many they are. */
const ROUTES: Readonly<Record<Guarded, (collection: string) => { routes: string; count: number }>> = {
  read: (c) => ({ routes: `GET ${c} and GET ${c}/{id}`, count: 2 }),
  create: (c) => ({ routes: `POST ${c}`, count: 1 }),
  update: (c) => ({ routes: `PUT, PATCH and POST ${c}/{id}`, count: 3 }),
  delete: (c) => ({ routes: `DELETE ${c}/{id}`, count: 1 }),
};

/** A role the hint can give as an example: the first the definitions name (an admin role last), else a plausible one. */
function exampleRole(model: Model): string {
  const listed = (admin: boolean) => model.resources.flatMap((r) => Object.entries(r.access).flatMap(([action, roles]) => ((action === "admin") === admin ? (roles ?? []) : [])));
  return [...listed(false), ...model.actions.flatMap((a) => a.roles), ...listed(true)][0] ?? "editor";
}

/**
 * An empty role list in `x-access` closes the action's routes to every key, the generated contract tests'
 * own keys included: the runtime gives such a route the roles `[]` plus the admin roles, and no key holds a
 * role of an empty list. Legitimate (a collection nobody may create through the API) but more often a
 * surprise, so a warning. With an admin role named the routes are open to admins: not reported. An action's
 * `"roles": []` in service.json is not closed (the runtime reads it as no `roles`: any authenticated caller).
 */
export const closedRoute = defineRule({
  codes: ["closed-route"],
  description: "warn when an empty x-access list closes a resource's routes to every key",
  check: (model) => {
    const out: Diagnostic[] = [];
    const role = exampleRole(model);
    for (const r of model.resources) {
      if ((r.access.admin ?? []).length > 0) continue;
      for (const action of Object.keys(ROUTES) as Guarded[]) {
        if (r.access[action]?.length !== 0) continue;
        const at = { file: r.origin.file, pointer: childPointer(r.origin.pointer, "x-access", action), kind: "key" as const };
        const { routes, count } = ROUTES[action](`${model.service.basePath}/${r.collection}`);
        out.push(report("closed-route", at, { action, collection: r.collection, routes, count, role }));
      }
    }
    return out;
  },
});
