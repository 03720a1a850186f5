/**
 * The JSON text of objects that are serialized more than once on their way and never changed
 * once made: a call's arguments (for the cache's key, then the request to the server) and a
 * large result (for the cache, then the answer). A text is kept for the last few objects
 * only ({@link KEPT_TEXTS}): the uses of a call's arguments come in the same synchronous run
 * of the pipeline, and a result's answer follows its caching within a few promise reactions
 * when calls come one at a time. A use that comes later (the audit record's, or an answer
 * after other calls' steps ran in between) serializes again.
 *
 * Not a WeakMap from objects to texts: V8's young-generation collector keeps the values of a
 * WeakMap whose keys are alive, so every call's texts (and their objects, alive anyway while
 * an audit record waits) were copied and moved to the old generation instead of dying young.
 * In process with 1 KiB arguments (`bench/pipeline.ts` part 4, `PAYLOAD=1024`) that cost a
 * call 2-8 µs with the audit log off, more than the serializing it saved; with every step on,
 * the two were within the runs' noise.
 */

/** How many objects' texts are kept: a handful, so that nothing is kept alive for long. */
export const KEPT_TEXTS = 4;

const keptValues: (object | undefined)[] = new Array<object | undefined>(KEPT_TEXTS).fill(
  undefined,
);
const keptTexts: string[] = new Array<string>(KEPT_TEXTS).fill('');
/** Where the next text is kept (the oldest is replaced). */
let nextSlot = 0;

/** Texts at least this long are kept by {@link sharedJsonOf}. */
export const SHARED_JSON_MIN_LENGTH = 512;

/** The text kept for this very object, if it is one of the last kept. */
function keptText(value: object): string | undefined {
  const slot = keptValues.indexOf(value);
  return slot === -1 ? undefined : keptTexts[slot];
}

function keep(value: object, json: string): void {
  const slot = keptValues.indexOf(value);
  if (slot !== -1) {
    keptTexts[slot] = json;
    return;
  }
  keptValues[nextSlot] = value;
  keptTexts[nextSlot] = json;
  nextSlot = (nextSlot + 1) % KEPT_TEXTS;
}

/** `JSON.stringify(value)`, reusing the text kept for this very object. */
export function jsonOf(value: object): string {
  return keptText(value) ?? JSON.stringify(value);
}

/**
 * `JSON.stringify(value)`, reusing the text kept for this very object, and keeping a long
 * one it makes for the next use. `value` must not change afterwards.
 */
export function sharedJsonOf(value: object): string {
  let json = keptText(value);
  if (json === undefined) {
    json = JSON.stringify(value);
    if (json.length >= SHARED_JSON_MIN_LENGTH) keep(value, json);
  }
  return json;
}

/** Keeps `json`, the serialization of `value` (which must not change afterwards), for {@link jsonOf}. */
export function rememberJson(value: object, json: string): void {
  keep(value, json);
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
