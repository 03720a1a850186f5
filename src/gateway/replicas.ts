import type { ReplicaConfig, ServerConfig } from '../config/schema.js';
import type { DownstreamStatus } from '../downstream/downstream.js';
import type { CallTarget } from './pipeline/context.js';

/** Replicas of at least this weight are primaries: the only ones given destructive calls. */
export const PRIMARY_WEIGHT = 50;

/** A connection a replica calls through (a `Downstream`). */
export interface ReplicaTarget extends CallTarget {
  readonly status: DownstreamStatus;
}

/** How calls are spread: by what the call may do. */
export type RouteKind = 'read' | 'destructive' | 'idempotent' | 'write';

/** The circuit breaker's settings. */
export interface BreakerOptions {
  /** Failures in a row (transport failures and timeouts) that take a replica out. */
  readonly failureThreshold: number;
  /** How long it stays out before one call probes it. */
  readonly cooldownMs: number;
}

/** Where a replica stands, for stats. */
export interface ReplicaState {
  readonly name: string;
  readonly weight: number;
  readonly primary: boolean;
  readonly categories: readonly string[];
  readonly up: boolean;
  readonly breaker: 'closed' | 'open' | 'half-open';
  readonly inFlight: number;
  readonly failuresInARow: number;
  readonly calls: number;
}

/** One connection of a logical server, with its routing state. */
export class Replica {
  readonly primary: boolean;
  readonly caching: boolean;
  inFlight = 0;
  calls = 0;
  failures = 0;
  /** While the breaker is open: until when (epoch ms). */
  openUntil = 0;
  /** A half-open probe is in flight. */
  probing = false;
  /** Smooth weighted round robin's running weight. */
  current = 0;

  constructor(
    readonly name: string,
    readonly target: ReplicaTarget,
    readonly weight: number,
    readonly categories: readonly string[],
  ) {
    this.primary = weight >= PRIMARY_WEIGHT;
    this.caching = categories.includes('caching');
  }
}

/**
 * The replicas of one logical server and the choice among them. A replica is healthy when
 * its connection is up and its circuit breaker lets calls through: after
 * `failureThreshold` transport failures in a row it is out for `cooldownMs`, then half-open
 * (one call probes it: success closes the breaker, failure opens it again).
 *
 * - read-only calls: the healthy replica with the fewest calls in flight (ties in turn);
 * - destructive calls: only primaries (weight >= 50), by weight;
 * - idempotent calls: `caching` replicas first, by weight;
 * - other writes: every healthy replica, by weight (smooth weighted round robin).
 */
export class ReplicaGroup {
  private turn = 0;

  constructor(
    readonly server: string,
    readonly replicas: readonly Replica[],
    private readonly breaker: BreakerOptions,
    private readonly now: () => number = Date.now,
  ) {}

  /** The replica for a call of `kind`, or undefined when none can take it. */
  pick(kind: RouteKind): Replica | undefined {
    const now = this.now();
    let chosen: Replica | undefined;
    switch (kind) {
      case 'read':
        chosen = this.leastBusy(now);
        break;
      case 'destructive':
        chosen = this.weighted(now, (replica) => replica.primary);
        break;
      case 'idempotent':
        chosen = this.weighted(now, (replica) => replica.caching) ?? this.weighted(now, () => true);
        break;
      case 'write':
        chosen = this.weighted(now, () => true);
        break;
    }
    if (chosen !== undefined && chosen.failures >= this.breaker.failureThreshold)
      chosen.probing = true;
    return chosen;
  }

  /** The replica answered (a tool error is an answer): its breaker closes. */
  succeeded(replica: Replica): void {
    replica.failures = 0;
    replica.openUntil = 0;
    replica.probing = false;
  }

  /** The call failed on the way (transport failure or timeout). */
  failed(replica: Replica): void {
    replica.failures += 1;
    replica.probing = false;
    if (replica.failures >= this.breaker.failureThreshold)
      replica.openUntil = this.now() + this.breaker.cooldownMs;
  }

  /** Every replica's state. */
  states(): ReplicaState[] {
    const now = this.now();
    return this.replicas.map((replica) => ({
      name: replica.name,
      weight: replica.weight,
      primary: replica.primary,
      categories: [...replica.categories],
      up: replica.target.status.state === 'up',
      breaker:
        replica.failures < this.breaker.failureThreshold
          ? 'closed'
          : replica.openUntil > now
            ? 'open'
            : 'half-open',
      inFlight: replica.inFlight,
      failuresInARow: replica.failures,
      calls: replica.calls,
    }));
  }

  private healthy(replica: Replica, now: number): boolean {
    if (replica.target.status.state !== 'up') return false;
    if (replica.failures < this.breaker.failureThreshold) return true;
    return replica.openUntil <= now && !replica.probing;
  }

  private leastBusy(now: number): Replica | undefined {
    const { replicas } = this;
    const count = replicas.length;
    const start = this.turn++ % count;
    let best: Replica | undefined;
    for (let offset = 0; offset < count; offset++) {
      const replica = replicas[(start + offset) % count] as Replica;
      if (!this.healthy(replica, now)) continue;
      if (best === undefined || replica.inFlight < best.inFlight) best = replica;
    }
    return best;
  }

  /** Smooth weighted round robin (nginx's) among the healthy replicas `eligible` accepts. */
  private weighted(now: number, eligible: (replica: Replica) => boolean): Replica | undefined {
    let total = 0;
    let best: Replica | undefined;
    for (const replica of this.replicas) {
      if (!eligible(replica) || !this.healthy(replica, now)) continue;
      replica.current += replica.weight;
      total += replica.weight;
      if (best === undefined || replica.current > best.current) best = replica;
    }
    if (best !== undefined) best.current -= total;
    return best;
  }
}

/** The connection config of one replica: the server's settings with the replica's transport. */
export function replicaServerConfig(server: ServerConfig, replica: ReplicaConfig): ServerConfig {
  const { command, url, type, cwd } = replica;
  const base: ServerConfig = {
    ...server,
    args: replica.args,
    env: { ...server.env, ...replica.env },
    headers: { ...server.headers, ...replica.headers },
    replicas: [],
  };
  delete base.command;
  delete base.url;
  delete base.type;
  return {
    ...base,
    ...(command === undefined ? {} : { command }),
    ...(url === undefined ? {} : { url }),
    ...(type === undefined ? {} : { type }),
    ...(cwd === undefined ? {} : { cwd }),
  };
}

/** The connection name of a replica: `server#name`, or `server#index`. */
export function replicaName(server: string, replica: ReplicaConfig, index: number): string {
  return `${server}#${replica.name ?? String(index)}`;
}
