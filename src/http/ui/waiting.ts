import type { Store } from '../../store/store.js';
import type { Waiting } from './layout.js';

/**
 * How many approvals and pins wait for a person, for the navigation of every page: read
 * from the store once, and again only after the store reports a change to either (on this
 * gateway or, over PostgreSQL, another), so a page costs no query for them.
 */
export class WaitingCounts {
  private current: Promise<Waiting> | undefined;

  constructor(private readonly store: Pick<Store, 'listApprovals' | 'listPins' | 'watch'>) {
    store.watch((event) => {
      if (
        event.kind === 'approval' ||
        event.kind === 'pins' ||
        event.kind === 'drift' ||
        event.kind === 'resync'
      )
        this.current = undefined;
    });
  }

  /** The counts (undefined for one the store could not answer; asked again next time). */
  get(): Promise<Waiting> {
    if (this.current !== undefined) return this.current;
    const reading = this.read();
    this.current = reading;
    void reading.then((counts) => {
      if ((counts.approvals === undefined || counts.pins === undefined) && this.current === reading)
        this.current = undefined;
    });
    return reading;
  }

  private async read(): Promise<Waiting> {
    const [approvals, pins] = await Promise.all([
      this.store.listApprovals({ status: 'pending', limit: 1000 }).then(
        (list) => list.length,
        () => undefined,
      ),
      this.store.listPins({ status: 'pending', definitions: false }).then(
        (list) => list.length,
        () => undefined,
      ),
    ]);
    return { approvals, pins };
  }
}
