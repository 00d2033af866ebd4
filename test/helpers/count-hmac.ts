/** Counting the HMAC computations of code under test (to show that unknown and known ids cost the same work). */
import crypto from "node:crypto";

/**
 * The crypto.createHmac calls made while `fn` runs (the code under test calls it through the module object);
 * a promise of the count when `fn` returns one.
 */
export function countHmac(fn: () => Promise<unknown>): Promise<number>;
export function countHmac(fn: () => void): number;
export function countHmac(fn: () => unknown): number | Promise<number> {
  const original = crypto.createHmac;
  let n = 0;
  (crypto as { createHmac: typeof crypto.createHmac }).createHmac = ((...args: Parameters<typeof original>) => {
    n++;
    return original(...args);
  }) as typeof original;
  const restore = () => {
    (crypto as { createHmac: typeof crypto.createHmac }).createHmac = original;
  };
  let result: unknown;
  try {
    result = fn();
  } catch (error) {
    restore();
    throw error;
  }
  if (result instanceof Promise) return result.then(() => n).finally(restore);
  restore();
  return n;
}
