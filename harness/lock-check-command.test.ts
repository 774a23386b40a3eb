import { describe, expect, it } from 'vitest';
import { builtinForeignRow, masked } from './lock-check-command.ts';

describe('lock-check of a built-in foreign row', () => {
  // A built-in row named by its manifest was checked like a user's: its glue never compiled, so etcd-go and curator
  // on a fresh machine compiled on their first connect, past the connect's reply limit.
  it.each([
    ['curator', 'curator'],
    ['locks/curator/curator.json', 'curator'],
    ['./locks/etcd-go/etcd-go.json', 'etcd-go'],
    ['locks/kazoo/kazoo.json', 'kazoo'],
    ['./examples/python-redis-lock.json', null],
    ['exec:./mine.py', null],
    ['redis', null],
  ])('%s → %s', (lock, row) => {
    expect(builtinForeignRow(lock)).toBe(row);
  });
});

describe('masked', () => {
  it('hides every password of a protocol line', () => {
    expect(masked('{"op":"connect","endpoints":{"redis":[{"password":"s3\\"cr"}],"etcdAuth":{"password":"x"}}}')).toBe(
      '{"op":"connect","endpoints":{"redis":[{"password":"***"}],"etcdAuth":{"password":"***"}}}',
    );
  });

  it("hides the password in the run's Postgres connection string (advisory-lock's endpoints)", () => {
    expect(masked('{"postgresUrl":"postgres://fencepost:s3%2Fcr%40t@127.0.0.1:5433/bank?application_name=x"}')).toBe(
      '{"postgresUrl":"postgres://fencepost:***@127.0.0.1:5433/bank?application_name=x"}',
    );
  });
});
