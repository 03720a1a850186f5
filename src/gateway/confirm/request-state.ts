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

/** Options of {@link RequestStateSigner}. */
export interface RequestStateSignerOptions {
  /** The signing key, at least 32 bytes; a random one per process when absent. */
  readonly secret?: string | undefined;
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

/**
 * Signs and checks the `requestState` of confirmation rounds with 2026 clients: the SDK's
 * HMAC-SHA256 codec (`createRequestStateCodec`: signed, expiring) under a `hg.` prefix, with
 * a payload bound to the call (a hash of client, tool and canonical arguments) and a nonce
 * that is accepted once (replays are refused while the state would still be valid).
 */
export class RequestStateSigner {
  private readonly key: Uint8Array;
  private readonly codecs = new Map<number, RequestStateCodec<ConfirmState>>();
  /** Nonces already accepted, with when they stop mattering (their state's expiry). */
  private readonly used = new Map<string, number>();
  private readonly now: () => number;

  constructor(options: RequestStateSignerOptions = {}) {
    this.key =
      options.secret === undefined
        ? new Uint8Array(randomBytes(32))
        : new TextEncoder().encode(options.secret);
    if (this.key.byteLength < 32)
      throw new HintgateError('CONFIG_INVALID', 'policy.requestState.secret: expected 32 bytes');
    this.now = options.now ?? Date.now;
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
    const now = this.now();
    this.prune(now);
    if (this.used.has(payload.n)) return { ok: false, refusal: 'replayed' };
    // The codec checks expiry in whole seconds; a nonce must be remembered that long.
    this.used.set(payload.n, now + 24 * 3_600_000);
    this.trim(payload.n, state);
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

  /** Remembers a nonce only until its state's own expiry (read from the signed envelope). */
  private trim(nonce: string, state: string): void {
    const body = state.slice(PREFIX.length + 3, state.lastIndexOf('.'));
    try {
      const envelope = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as {
        exp?: unknown;
      };
      if (typeof envelope.exp === 'number') this.used.set(nonce, (envelope.exp + 1) * 1000);
    } catch {
      // Verified already; an unreadable body cannot happen. The day-long default stands.
    }
  }

  private prune(now: number): void {
    if (this.used.size < 1024) return;
    for (const [nonce, until] of this.used) if (until <= now) this.used.delete(nonce);
  }
}
