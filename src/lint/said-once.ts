/**
 * Findings said once per name, where the name is first met, with the number of other places it is met: real
 * APIs write another tool's annotation or a format of their own on thousands of schemas, and one line each
 * would bury every other finding.
 */
export class SaidOnce<T> {
  private readonly first = new Map<string, { readonly value: T; more: number }>();

  /** Notes `name` met at a place described by `value` (kept only the first time). */
  add(name: string, value: T): void {
    const seen = this.first.get(name);
    if (seen) seen.more++;
    else this.first.set(name, { value, more: 0 });
  }

  /** Each name, in the order first met, with its first place and how many other places have it. */
  *entries(): IterableIterator<[name: string, first: T, more: number]> {
    for (const [name, { value, more }] of this.first) yield [name, value, more];
  }
}
