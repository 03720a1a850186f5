import { describe, expect, it } from 'vitest';
import { HintgateError } from '../../src/core/errors.js';
import { StoreRunner } from '../../src/store/runner.js';
import type { Sql, SqlDriver } from '../../src/store/sql.js';
import { isRecordRefused, toStoreError } from '../../src/store/sql.js';
import type { StoreEvent } from '../../src/store/types.js';

const sql: Sql = {
  query: () => Promise.resolve([]),
  exec: () => Promise.resolve(),
  copyFrom: () => Promise.resolve(),
};

function fakeDriver(failures: Error[]): SqlDriver & { published: string[] } {
  const published: string[] = [];
  return {
    kind: 'postgres',
    location: 'fake',
    published,
    read: (fn) => fn(sql),
    async transaction(fn) {
      const result = await fn(sql);
      const failure = failures.shift();
      if (failure !== undefined) throw failure;
      return result;
    },
    publish: (_sql, payloads) => {
      published.push(...payloads);
      return Promise.resolve();
    },
    close: () => Promise.resolve(),
  };
}

describe('StoreRunner', () => {
  it('runs a transaction again after a deadlock, delivering its events once', async () => {
    const driver = fakeDriver([Object.assign(new Error('deadlock detected'), { code: '40P01' })]);
    const runner = new StoreRunner(driver);
    const events: StoreEvent[] = [];
    runner.watch((event) => events.push(event));
    let runs = 0;
    const result = await runner.write((_sql, emit) => {
      runs += 1;
      emit({ kind: 'overrides' });
      return Promise.resolve('done');
    });
    expect(result).toBe('done');
    expect(runs).toBe(2);
    expect(events).toEqual([{ kind: 'overrides' }]);
  });

  it('delivers nothing for a transaction that failed', async () => {
    const runner = new StoreRunner(
      fakeDriver([Object.assign(new Error('bad'), { code: '23505' })]),
    );
    const events: StoreEvent[] = [];
    runner.watch((event) => events.push(event));
    const error = await runner
      .write((_sql, emit) => {
        emit({ kind: 'overrides' });
        return Promise.resolve();
      })
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'INTERNAL', details: { code: '23505' } });
    expect((error as Error).cause).toBeInstanceOf(Error);
    expect(events).toEqual([]);
  });

  it('ignores its own notifications and passes on other processes’ ones', () => {
    const runner = new StoreRunner(fakeDriver([]));
    const events: StoreEvent[] = [];
    runner.watch((event) => events.push(event));
    runner.receive(JSON.stringify({ origin: runner.origin, event: { kind: 'overrides' } }));
    runner.receive(JSON.stringify({ origin: 'other', event: { kind: 'toolset', name: 'a' } }));
    runner.receive(
      JSON.stringify({ origin: 'other', event: { kind: 'approval', id: 'x', status: 'odd' } }),
    );
    runner.receive('not json');
    expect(events).toEqual([{ kind: 'toolset', name: 'a' }]);
  });
});

describe('toStoreError', () => {
  it('calls an unreachable database STORE_UNAVAILABLE, naming where', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), {
      code: 'ECONNREFUSED',
    });
    expect(toStoreError(refused, 'postgres://h:1/db')).toMatchObject({
      code: 'STORE_UNAVAILABLE',
      message: 'store at postgres://h:1/db is unavailable: connect ECONNREFUSED 127.0.0.1:1',
      cause: refused,
    });
    const shutdown = Object.assign(new Error('terminating connection'), { code: '57P01' });
    expect(toStoreError(shutdown, 'x').code).toBe('STORE_UNAVAILABLE');
  });
});

describe('isRecordRefused', () => {
  const failure = (code?: string) =>
    toStoreError(Object.assign(new Error('failed'), code === undefined ? {} : { code }), 'x');

  it('is true when the database refused a value, or hintgate could not make SQL of it', () => {
    expect(isRecordRefused(failure('22P02'))).toBe(true);
    expect(isRecordRefused(failure('23502'))).toBe(true);
    // index row size exceeds the maximum: a value too large, not a database failing
    expect(isRecordRefused(failure('54000'))).toBe(true);
    expect(isRecordRefused(failure('ERR_STRING_TOO_LONG'))).toBe(true);
    expect(isRecordRefused(failure())).toBe(true);
    expect(isRecordRefused(new TypeError('Do not know how to serialize a BigInt'))).toBe(true);
  });

  it("is false when the failure is the database's own, which every record would meet", () => {
    for (const code of ['42501', '42P01', '53100', '53200', '58030', '58P01', 'XX000', 'ENOSPC'])
      expect(isRecordRefused(failure(code))).toBe(false);
    // A store that cannot be reached, whatever its cause says.
    expect(isRecordRefused(failure('ECONNREFUSED'))).toBe(false);
    expect(
      isRecordRefused(new HintgateError('STORE_UNAVAILABLE', 'the store process has exited')),
    ).toBe(false);
  });
});
