/**
 * Structural equality of JSON values (what `JSON.parse` returns): objects equal with their
 * keys in any order, arrays item by item in order, everything else by `===`. It stops at the
 * first difference and builds no string, so telling a tool listed again unchanged from its
 * previous listing costs a walk of the two values (about a third of serializing one of them).
 * An own member that is `undefined` differs from a missing one.
 */

/**
 * Whether two JSON values are equal, object keys in any order.
 *
 * @example sameJson({ a: [1, { b: 2 }], c: 'x' }, { c: 'x', a: [1, { b: 2 }] }) // true
 */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let index = 0; index < a.length; index++) {
      const x: unknown = a[index];
      const y: unknown = b[index];
      if (x !== y && !sameJson(x, y)) return false;
    }
    return true;
  }
  if (Array.isArray(b)) return false;
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  // for...in over plain parsed objects: measured about twice as fast as comparing
  // Object.keys arrays (no array per object). Both objects' keys are counted.
  let count = 0;
  for (const key in left) {
    count++;
    const x = left[key];
    const y = right[key];
    if (x === y) {
      if (y === undefined && !Object.hasOwn(right, key)) return false;
    } else if (!sameJson(x, y)) {
      return false;
    }
  }
  for (const _key in right) if (--count < 0) return false;
  return count === 0;
}
