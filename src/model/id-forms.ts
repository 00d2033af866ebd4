/**
 * The id forms `x-id` chooses, as resourcery states them: in checks, docs, types, OpenAPI and examples.
 * The generated service makes and recognizes them in templates/runtime/ids.ts; test/unit/runtime/ids.test.ts
 * holds the two to the same forms (every id the runtime makes fits idSchemaOf, and the examples here fit
 * the runtime's test).
 */
import { isObject } from "./build-schema.js";
import type { IdForm } from "./types.js";

/** Ids when a resource has no `x-id`. */
export const DEFAULT_ID_FORM: IdForm = { kind: "uuid" };

/**
 * What an `x-id` prefix may be (the meta-schema holds the same pattern): a lower-case letter, then up to 14
 * lower-case letters, digits or underscores, ending in "_" ("cus_", "acct_", "line_item_"). Ids are path
 * segments and are read by people: this keeps them short, never percent-encoded, and the prefix plainly
 * apart from the random part.
 */
export const ID_PREFIX_PATTERN = "^[a-z][a-z0-9_]{0,14}_$";

/** Letters and digits after a prefix: a 128-bit value (a UUIDv7's bytes) in base 62, zero-padded. */
export const PREFIXED_ID_DIGITS = 22;

/** The id form an `x-id` value asks for (the meta-schema has checked its shape). */
export function idFormOf(raw: unknown): IdForm {
  if (raw === "sequence") return { kind: "sequence" };
  if (isObject(raw) && typeof raw.prefix === "string") return { kind: "prefix", prefix: raw.prefix };
  return DEFAULT_ID_FORM;
}

/** The JSON Schema of an id of this form, as OpenAPI states it. */
export function idSchemaOf(form: IdForm): Record<string, unknown> {
  switch (form.kind) {
    case "sequence":
      return { type: "integer", minimum: 1 };
    case "prefix":
      return { type: "string", pattern: `^${form.prefix}[0-9A-Za-z]{${PREFIXED_ID_DIGITS}}$` };
    default:
      return { type: "string", format: "uuid" };
  }
}

/** True when ids of this form are JSON numbers (a sequence); else they are strings. */
export function isNumericId(form: IdForm): boolean {
  return form.kind === "sequence";
}

/** The TypeScript type of an id of this form. */
export function idTsType(form: IdForm): "number" | "string" {
  return isNumericId(form) ? "number" : "string";
}

/**
 * An example id of this form for the docs; `n` picks another one (a link's target, a second instance).
 * @example exampleId({ kind: "sequence" }) === 42
 */
export function exampleId(form: IdForm, n = 0): string | number {
  switch (form.kind) {
    case "sequence":
      return 42 + n;
    case "prefix":
      return `${form.prefix}0Pq3xG8nVbW2kLm5sT9cR${"dfghjk"[n % 6]}`;
    default:
      return `0190b6c2-7d4e-7a10-8f3e-5b2c9d1e4f6${n % 10}`;
  }
}

/**
 * True when `value` is an id the server could make in this form (as representations carry it: a number for
 * a sequence), e.g. a declared example worth showing in the docs.
 * @example isIdOfForm({ kind: "prefix", prefix: "cus_" }, "cus_NffrFeUfNV2Hib") === false (the random part is 22 characters)
 */
export function isIdOfForm(form: IdForm, value: unknown): boolean {
  switch (form.kind) {
    case "sequence":
      return typeof value === "number" && Number.isSafeInteger(value) && value >= 1;
    case "prefix":
      return typeof value === "string" && value.startsWith(form.prefix) && new RegExp(`^[0-9A-Za-z]{${PREFIXED_ID_DIGITS}}$`).test(value.slice(form.prefix.length));
    default:
      return typeof value === "string" && /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(value);
  }
}

/** Ids the server may make, at both ends of the form's range: a declaration of `id` fits when it accepts each. */
export function madeIds(form: IdForm): readonly (string | number)[] {
  switch (form.kind) {
    case "sequence":
      return [1, 999_999_999_999_999];
    case "prefix":
      return [`${form.prefix}${"0".repeat(PREFIXED_ID_DIGITS)}`, `${form.prefix}${"z".repeat(PREFIXED_ID_DIGITS)}`, exampleId(form)];
    default:
      return ["00000000-0000-7000-8000-000000000000", "ffffffff-ffff-7fff-bfff-ffffffffffff", exampleId(form)];
  }
}

/**
 * The ids of a form in words, for messages and docs.
 * @example describeIds({ kind: "prefix", prefix: "cus_" }) === 'strings of "cus_" and 22 letters and digits'
 */
export function describeIds(form: IdForm): string {
  switch (form.kind) {
    case "sequence":
      return "integers counting up from 1";
    case "prefix":
      return `strings of "${form.prefix}" and ${PREFIXED_ID_DIGITS} letters and digits`;
    default:
      return "UUID strings";
  }
}
