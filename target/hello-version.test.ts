import { describe, expect, it } from 'vitest';
import { versionOfHello } from './remote-servers.ts';

describe("a target Redis's version, from HELLO", () => {
  it('is the version alone for Redis, named for Valkey (as each answered HELLO 2 here)', () => {
    expect(versionOfHello(['server', 'redis', 'version', '7.0.15', 'proto', 2, 'id', 6])).toBe('7.0.15');
    expect(versionOfHello(['server', 'valkey', 'version', '8.0.1', 'proto', 2, 'id', 6])).toBe('valkey 8.0.1');
    expect(versionOfHello(['proto', 2])).toBe('unknown');
  });
});
