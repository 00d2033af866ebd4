/**
 * Instance ids, in the form each resource's `x-id` chose: a UUIDv7 (the default), a prefix and 22 letters
 * and digits (`{"prefix": "cus_"}`), or an integer counting up from 1 (`"sequence"`, numbered by the store:
 * Store.nextId). Ids travel as strings inside the service (paths, stored links, StoredRecord.id); a
 * sequence's id is a JSON number in representations only.
 */
import { randomFillSync } from "node:crypto";
import type { IdForm } from "./spec.js";

let lastMs = 0;
let counter = 0;

/** Random bytes drawn from a pool refilled 4 KiB at a time: one call into the CSPRNG per 256 ids, not one per id. */
const pool = Buffer.alloc(4096);
let poolAt = pool.length;

/** `n` fresh random bytes (a copy: the pool is reused). */
function random(n: number): Buffer {
  if (poolAt + n > pool.length) {
    randomFillSync(pool);
    poolAt = 0;
  }
  const out = Buffer.from(pool.subarray(poolAt, poolAt + n));
  poolAt += n;
  return out;
}

/**
 * The 16 bytes of a UUIDv7 (RFC 9562) whose 12-bit rand_a is a counter, so ids made by this process
 * increase strictly. Lists order by (createdAt, id); with random ids, instances created within one
 * millisecond would come back in random order rather than in the order they were created.
 */
function uuidv7Bytes(now: number): Buffer {
  const bytes = random(16);
  if (now > lastMs) {
    lastMs = now;
    counter = ((bytes[6]! << 8) | bytes[7]!) & 0x3ff; // leaves room for at least 3,072 more ids in this millisecond
  } else if (++counter > 0xfff) {
    lastMs++; // the counter overflowed: borrow the next millisecond
    counter = 0;
  }
  bytes.writeUIntBE(lastMs, 0, 6);
  bytes.writeUInt16BE(0x7000 | counter, 6);
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  return bytes;
}

/**
 * A new UUIDv7 id (see uuidv7Bytes): ids made by this process increase strictly.
 * @example newId() → "0190b6c2-7d4e-7a10-8f3e-5b2c9d1e4f60"
 */
export function newId(now: number = Date.now()): string {
  const hex = uuidv7Bytes(now).toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** Base 62 in ASCII order, so that ids of one length sort as the numbers they encode. */
const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
/** Digits of a 128-bit value in base 62 (62^22 > 2^128). */
const PREFIXED_DIGITS = 22;

/**
 * A new prefixed id: the prefix and a UUIDv7's 128 bits in 22 base-62 digits, so these ids too increase
 * strictly within a process, and are as unguessable as the default ones.
 * @example newPrefixedId("cus_") → "cus_0Pq3xG8nVbW2kLm5sT9cRd"
 */
export function newPrefixedId(prefix: string, now: number = Date.now()): string {
  let n = BigInt(`0x${uuidv7Bytes(now).toString("hex")}`);
  const digits: string[] = new Array(PREFIXED_DIGITS);
  for (let i = PREFIXED_DIGITS - 1; i >= 0; i--) {
    digits[i] = BASE62[Number(n % 62n)]!;
    n /= 62n;
  }
  return prefix + digits.join("");
}

/** A UUID as the service writes it: lower-case hex in 8-4-4-4-12 groups. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const PREFIXED_TAIL = /^[0-9A-Za-z]{22}$/;
/** A sequence number as the service writes it: no sign, no leading zero, at most 15 digits (a safe integer). */
const SEQUENCE = /^[1-9][0-9]{0,14}$/;

/**
 * True when `id` has the form of the resource's ids, exactly as the service writes them.
 * @example isIdOf({ kind: "sequence" }, "42") === true; isIdOf({ kind: "sequence" }, "042") === false
 */
export function isIdOf(form: IdForm | undefined, id: string): boolean {
  switch (form?.kind) {
    case "sequence":
      return SEQUENCE.test(id);
    case "prefix":
      return id.startsWith(form.prefix) && PREFIXED_TAIL.test(id.slice(form.prefix.length));
    default:
      return UUID.test(id);
  }
}

/**
 * True when the store may be asked for `id` in a collection of this form. A sequence's ids are an integer
 * key, which would find "010" or "10.0" as 10 (and a networked store may refuse a non-number): only a
 * number written as the service writes it is looked up. Any string may be a string id: the store finds
 * nothing for one of another form, and a path's id costs no test (a GET is the commonest request).
 * @example mayName({ kind: "sequence" }, "010") === false; mayName({ kind: "uuid" }, "nope") === true
 */
export function mayName(form: IdForm | undefined, id: string): boolean {
  return form?.kind !== "sequence" || SEQUENCE.test(id);
}

/**
 * An id as representations carry it: a number for a sequence, else the string itself.
 * @example idValue({ kind: "sequence" }, "42") === 42
 */
export function idValue(form: IdForm | undefined, id: string): string | number {
  return form?.kind === "sequence" ? Number(id) : id;
}

/**
 * The ids of a form in words, for the `dev` text of an answer.
 * @example describeIdForm({ kind: "prefix", prefix: "cus_" }) === '"cus_" and 22 letters and digits'
 */
export function describeIdForm(form: IdForm | undefined): string {
  switch (form?.kind) {
    case "sequence":
      return "integers from 1, written in decimal without leading zeros";
    case "prefix":
      return `"${form.prefix}" and ${PREFIXED_DIGITS} letters and digits`;
    default:
      return "lower-case UUIDs";
  }
}

/**
 * A new id for an instance of a uuid or prefix form (a sequence's is the store's: Store.nextId).
 * @example makeId({ kind: "prefix", prefix: "cus_" }).startsWith("cus_") === true
 */
export function makeId(form: IdForm | undefined): string {
  return form?.kind === "prefix" ? newPrefixedId(form.prefix) : newId();
}
