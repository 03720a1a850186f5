/**
 * The JSON text of objects that are serialized more than once on their way and never changed
 * once made: a call's arguments (for the cache's key, the request to the server and the audit
 * log) and a large result (for the cache and the answer). Each is serialized once; the
 * others reuse the text. A small object's entry would cost more than serializing it again.
 */
const KEPT = new WeakMap<object, string>();

/** Texts at least this long are kept by {@link sharedJsonOf}. */
export const SHARED_JSON_MIN_LENGTH = 512;

/** `JSON.stringify(value)`, reusing the text kept for this very object. */
export function jsonOf(value: object): string {
  return KEPT.get(value) ?? JSON.stringify(value);
}

/**
 * `JSON.stringify(value)`, reusing the text kept for this very object, and keeping a long
 * one it makes for the next use. `value` must not change afterwards.
 */
export function sharedJsonOf(value: object): string {
  let json = KEPT.get(value);
  if (json === undefined) {
    json = JSON.stringify(value);
    if (json.length >= SHARED_JSON_MIN_LENGTH) KEPT.set(value, json);
  }
  return json;
}

/** Keeps `json`, the serialization of `value` (which must not change afterwards), for {@link jsonOf}. */
export function rememberJson(value: object, json: string): void {
  KEPT.set(value, json);
}

/**
 * `JSON.stringify(value)` for a plain object (a request's params), made member by member with
 * each object member through {@link sharedJsonOf}: the arguments' text is the one made for the
 * cache's key if there was one, and kept for the audit record if long. Same text, same order.
 */
export function sharedObjectJson(value: Readonly<Record<string, unknown>>): string {
  let json = '';
  for (const key in value) {
    const member = value[key];
    const text =
      typeof member === 'object' && member !== null
        ? sharedJsonOf(member)
        : (JSON.stringify(member) as string | undefined);
    // `undefined`, a function or a symbol: left out, as JSON.stringify leaves it out.
    if (text === undefined) continue;
    json += `${json === '' ? '{' : ','}${JSON.stringify(key)}:${text}`;
  }
  return json === '' ? '{}' : `${json}}`;
}
