import { describe, expect, it } from 'vitest';
import { killSession } from './inject.ts';

const SERVERS = { redis: 0, etcd: 0, zk: 0 };

describe('kill-session, asked of a lock', () => {
  it('refuses a built-in row whose lock lives in no Postgres session, naming the row that has one', () => {
    expect(killSession.refusal(SERVERS, 'postgres')).toBe(
      '--lock=postgres holds no lock in a Postgres session, which kill-session ends (its built-in row: advisory-lock)',
    );
  });

  it("takes the row that declares its session, and a plugin's word for itself", () => {
    expect(killSession.refusal(SERVERS, 'advisory-lock')).toBeNull();
    expect(killSession.refusal(SERVERS, './my-lock.ts')).toBeNull();
  });
});
