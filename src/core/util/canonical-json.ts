/**
 * JSON with object keys sorted at every depth, so that equal values always give equal
 * strings: the basis of refIds and cache keys. `undefined` object members are left out,
 * as `JSON.stringify` does.
 *
 * @example canonicalJson({ b: 1, a: [2, { d: 3, c: 4 }] }) // '{"a":[2,{"c":4,"d":3}],"b":1}'
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value)) ?? 'null';
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== 'object') return value;
  const source = value as Record<string, unknown>;
  const sorted: Record<string, unknown> = {};
  for (const key of Object.keys(source).sort()) {
    const member = source[key];
    if (member !== undefined) setMember(sorted, key, sortKeys(member));
  }
  return sorted;
}

/**
 * Sets an own member, also one named `__proto__` (which `JSON.parse` makes an own member,
 * but plain assignment would take as the object's prototype and leave out of the text).
 */
export function setMember(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') {
    Object.defineProperty(target, key, {
      value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  } else {
    target[key] = value;
  }
}
