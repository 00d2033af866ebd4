/**
 * What a database needs, beyond its tables and indexes, when the definitions change between generations
 * (CONTRACT §9), for both stores. Each store records in its table `rsc_schema`, per collection, what it last
 * brought the stored instances in line with (the properties every instance holds); at start-up it compares that
 * with the definitions it is started with — the schema diff between the generation the database last saw and
 * this one — and migrates what changed, under its migration lock:
 *
 * - a property that became required (new, or optional before) is filled in the instances stored without it
 *   with its `default`, appended to the stored JSON text (the rest of the text unchanged, on both stores);
 *   with no `default`, and instances lacking it, the migration stops with MigrationRefused saying what to do;
 * - nothing is ever dropped: a removed property stays in the stored JSON (older versions may still show it;
 *   the current one does not), a removed collection's table stays, indexes of ours no longer wanted are
 *   dropped (no data is lost with an index).
 *
 * `npm run migrate -- --dry-run` prints the statements (migrate-cli.ts); `npm run migrate` runs them and checks
 * every required property of every collection, not only the newly required ones (instances written meanwhile
 * by processes of the older generation, during a rolling deploy, are filled then).
 */
import type { ResourceSpec } from "./spec.js";

/** One statement of a migration and why it is needed, as `npm run migrate -- --dry-run` prints them. */
export interface MigrationStep {
  readonly sql: string;
  readonly why: string;
}

/** The database cannot be brought in line with the definitions without a decision of yours: the message says which. */
export class MigrationRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = "MigrationRefused";
  }
}

/** How a migration runs: `dryRun` plans it (reads only); `thorough` checks every required property, not only those the last migration did not know. */
export interface MigrateOptions {
  readonly dryRun?: boolean | undefined;
  readonly thorough?: boolean | undefined;
}

/** The table of the recorded states (collection → CollectionState as JSON): `rsc_` cannot be a collection's name. */
export const SCHEMA_TABLE = "rsc_schema";

/** What a store last brought one collection's stored instances in line with. */
export interface CollectionState {
  /** Properties every stored instance holds (sorted). */
  readonly required: readonly string[];
}

/** The properties every stored instance of `resource` must hold: those a create body must have (its bodySchema's required). */
export function storedRequired(resource: ResourceSpec): string[] {
  const required = (resource.bodySchema as { required?: unknown }).required;
  return Array.isArray(required) ? required.filter((r): r is string => typeof r === "string").sort() : [];
}

/** The state the definitions ask of `resource`, as the JSON text `rsc_schema` keeps. */
export function stateOf(resource: ResourceSpec): string {
  const state: CollectionState = { required: storedRequired(resource) };
  return JSON.stringify(state);
}

/** The required properties to check in the stored instances: those `recorded` (the state last migrated to) did not require, or all of them. */
export function requiredToCheck(resource: ResourceSpec, recorded: string | undefined, thorough: boolean): string[] {
  const wanted = storedRequired(resource);
  if (thorough || recorded === undefined) return wanted;
  let had: readonly string[] = [];
  try {
    const state = JSON.parse(recorded) as Partial<CollectionState>;
    if (Array.isArray(state.required)) had = state.required;
  } catch {
    return wanted;
  }
  return wanted.filter((p) => !had.includes(p));
}

/**
 * The JSON text appended to a stored instance that lacks `property` (`"name":value`, as JSON.stringify writes
 * it): its schema's `default`. Without one, MigrationRefused naming the collection, the property, how many
 * instances lack it and the ways out.
 */
export function fillText(resource: ResourceSpec, property: string, lacking: number): string {
  const field = resource.fields.find((f) => f.name === property);
  const c = resource.collection;
  if (lacking > 1 && resource.unique.includes(property)) {
    throw new MigrationRefused(
      `${lacking} instances of "${c}" stored before property "${property}" became required lack it, and it is unique (x-unique): ` +
        `one value cannot fill them all. Set a distinct "${property}" in those instances yourself, or make it optional again; nothing was changed`,
    );
  }
  if (field !== undefined && field.default !== undefined) return `${JSON.stringify(property)}:${JSON.stringify(field.default)}`;
  throw new MigrationRefused(
    `${lacking} instance${lacking === 1 ? "" : "s"} of "${c}" stored before property "${property}" became required lack${lacking === 1 ? "s" : ""} it, ` +
      `and its schema gives no default. Give "${property}" a "default" in the definitions and regenerate (the stored instances get it ` +
      `when the service starts; \`npm run migrate -- --dry-run\` shows the SQL), make it optional again, or set it in those instances yourself; ` +
      `nothing was changed`,
  );
}

/** The steps as `--dry-run` prints them: each reason as an SQL comment, then its statement. */
export function printSteps(steps: readonly MigrationStep[]): string[] {
  return steps.flatMap((s) => [`-- ${s.why.replace(/\r?\n/g, " ")}`, `${s.sql};`]);
}
