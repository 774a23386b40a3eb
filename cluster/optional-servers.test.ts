import { describe, expect, it } from 'vitest';
import { binaryVersion, formatOptional } from './optional-servers.ts';

describe('optional servers, as doctor reports them', () => {
  it("reads the version from the binary's --version line", () => {
    expect(
      binaryVersion('Valkey server v=8.0.1 sha=00000000:0 malloc=jemalloc-5.3.0 bits=64 build=39f7c371e0a96e3d\n'),
    ).toBe('8.0.1');
  });

  it('says whether each is there, and how to install one that is not', () => {
    expect(
      formatOptional([
        { server: 'valkey-server', for: '--redis-server=valkey', version: '8.0.1' },
        { server: 'valkey-server', for: '--redis-server=valkey', version: null, install: 'sudo apt-get install x' },
      ]),
    ).toEqual([
      'valkey-server 8.0.1 is installed (optional, for --redis-server=valkey; not booted here)',
      'valkey-server is not installed (optional, for --redis-server=valkey); to install it:\n  sudo apt-get install x',
    ]);
  });
});
