import { randomBytes } from 'node:crypto';
import { createRequestStateCodec } from '@modelcontextprotocol/server';
import type { RequestStateCodec } from '@modelcontextprotocol/server';
import { HintgateError } from '../../core/errors.js';
import { sha256Hex } from '../../core/util/hash.js';

/** What a confirmation round's `requestState` carries (signed, readable by the client). */
export interface ConfirmState {
  /** A nonce: each state is accepted once. */
  readonly n: string;
  /** `ask`: the client was asked; `approved`: it approved, and the server asked for input. */
  readonly k: 'ask' | 'approved';
  /** SHA-256 of the binding (client, tool, canonical arguments), hex. */
  readonly b: string;
  /** The downstream server's own `requestState`, carried inside ours. */
  readonly i?: string;
}

/**
 * Where spent nonces are kept: `claim` is true the first time a nonce is presented within
 * `ttlMs`, false after. The gateway keeps them in its store, so that every gateway sharing it
 * (and the signing secret) refuses a state another one already accepted.
 */
export interface NonceLedger {
  claim(nonce: string, ttlMs: number): Promise<boolean>;
}

/** Options of {@link RequestStateSigner}. */
export interface RequestStateSignerOptions {
  /** The signing key, at least 32 bytes; a random one per process when absent. */
  readonly secret?: string | undefined;
  /** Where accepted nonces are kept; by default in this process's memory. */
  readonly nonces?: NonceLedger | undefined;
  readonly now?: () => number;
}

/** Why a presented `requestState` was refused. */
export type StateRefusal = 'foreign' | 'forged' | 'expired' | 'other-call' | 'replayed';

const PREFIX = 'hg.';

const REFUSALS: Readonly<Record<StateRefusal, string>> = {
  foreign: 'it was not issued by this gateway',
  forged: 'its signature does not match (it was altered, or signed by another gateway)',
  expired: 'it has expired',
  'other-call': 'it was issued for another call (a different client, tool or arguments)',
  replayed: 'it was already used',
};

/** The longest a nonce is remembered when its state's expiry cannot be read: a day. */
const DEFAULT_NONCE_TTL_MS = 86_400_000;
/** Added to a nonce's life for clocks that differ between gateways and the database. */
const NONCE_CLOCK_MARGIN_MS = 300_000;

/**
 * Signs and checks the `requestState` of confirmation rounds with 2026 clients: the SDK's
 * HMAC-SHA256 codec (`createRequestStateCodec`: signed, expiring) under a `hg.` prefix, with
 * a payload bound to the call (a hash of client, tool and canonical arguments) and a nonce
 * that is accepted once (replays are refused while the state would still be valid; with a
 * shared {@link NonceLedger}, by every gateway).
 */
export class RequestStateSigner {
  private readonly key: Uint8Array;
  private readonly codecs = new Map<number, RequestStateCodec<ConfirmState>>();
  private readonly nonces: NonceLedger;
  private readonly now: () => number;

  constructor(options: RequestStateSignerOptions = {}) {
    this.key =
      options.secret === undefined
        ? new Uint8Array(randomBytes(32))
        : new TextEncoder().encode(options.secret);
    if (this.key.byteLength < 32)
      throw new HintgateError('CONFIG_INVALID', 'policy.requestState.secret: expected 32 bytes');
    this.now = options.now ?? Date.now;
    this.nonces = options.nonces ?? new MemoryNonceLedger(this.now);
  }

  /** A state for `binding`, valid for `ttlMs` (rounded up to whole seconds). */
  async mint(
    kind: ConfirmState['k'],
    binding: string,
    ttlMs: number,
    inner?: string,
  ): Promise<string> {
    const payload: ConfirmState = {
      n: randomBytes(12).toString('base64url'),
      k: kind,
      b: sha256Hex(binding),
      ...(inner === undefined ? {} : { i: inner }),
    };
    return `${PREFIX}${await this.codec(Math.max(1, Math.ceil(ttlMs / 1000))).mint(payload)}`;
  }

  /** True when `state` looks like one of ours (it may still be refused). */
  static isOurs(state: unknown): state is string {
    return typeof state === 'string' && state.startsWith(PREFIX);
  }

  /**
   * The payload of a state presented with `binding`, or the reason it is refused. An
   * accepted state's nonce is spent: presenting it again is a replay.
   */
  async accept(
    state: string,
    binding: string,
  ): Promise<{ ok: true; state: ConfirmState } | { ok: false; refusal: StateRefusal }> {
    if (!RequestStateSigner.isOurs(state)) return { ok: false, refusal: 'foreign' };
    let payload: ConfirmState;
    try {
      payload = await this.codec(1).verify(state.slice(PREFIX.length), undefined as never);
    } catch (error) {
      const reason = error instanceof Error ? error.message : '';
      return { ok: false, refusal: reason === 'expired' ? 'expired' : 'forged' };
    }
    if (payload.b !== sha256Hex(binding)) return { ok: false, refusal: 'other-call' };
    // A nonce must be remembered as long as its state could be presented (the codec checks
    // expiry in whole seconds, so up to the end of the expiry's second), by any gateway
    // sharing the store: their clocks may differ from this one's and the database's, hence
    // the margin.
    const until = expiryOf(state);
    const ttlMs =
      (until === undefined ? DEFAULT_NONCE_TTL_MS : Math.max(1, Math.ceil(until - this.now()))) +
      NONCE_CLOCK_MARGIN_MS;
    if (!(await this.nonces.claim(payload.n, ttlMs))) return { ok: false, refusal: 'replayed' };
    return { ok: true, state: payload };
  }

  /** The error for a refused state: -32602 with what was wrong and what to do. */
  static refusalError(refusal: StateRefusal): HintgateError {
    return new HintgateError(
      'INVALID_ARGUMENTS',
      `requestState refused: ${REFUSALS[refusal]}; call the tool again without requestState and inputResponses`,
      { refusal },
    );
  }

  private codec(ttlSeconds: number): RequestStateCodec<ConfirmState> {
    let codec = this.codecs.get(ttlSeconds);
    if (codec === undefined) {
      codec = createRequestStateCodec<ConfirmState>({ key: this.key, ttlSeconds });
      this.codecs.set(ttlSeconds, codec);
    }
    return codec;
  }
}

/** When a verified state stops being accepted (epoch ms), read from its signed envelope. */
function expiryOf(state: string): number | undefined {
  const body = state.slice(PREFIX.length + 3, state.lastIndexOf('.'));
  try {
    const envelope = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as {
      exp?: unknown;
    };
    return typeof envelope.exp === 'number' ? (envelope.exp + 1) * 1000 : undefined;
  } catch {
    // Verified already; an unreadable body cannot happen. The day-long default stands.
    return undefined;
  }
}

/** Spent nonces in this process's memory, each until its state would expire. */
export class MemoryNonceLedger implements NonceLedger {
  private readonly used = new Map<string, number>();

  constructor(private readonly now: () => number = Date.now) {}

  claim(nonce: string, ttlMs: number): Promise<boolean> {
    const now = this.now();
    if (this.used.size >= 1024)
      for (const [spent, until] of this.used) if (until <= now) this.used.delete(spent);
    const until = this.used.get(nonce);
    if (until !== undefined && until > now) return Promise.resolve(false);
    this.used.set(nonce, now + ttlMs);
    return Promise.resolve(true);
  }
}
