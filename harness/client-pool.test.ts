import { describe, expect, it } from 'vitest';
import { clientEnvironment } from './client-pool.ts';

describe('clientEnvironment', () => {
  it('drops every variable that turns on a library debug log, keeps the rest, adds the client its own', () => {
    const harness = {
      PATH: '/usr/bin',
      DEBUG: '*',
      NODE_DEBUG: 'net',
      GRPC_TRACE: 'all',
      GRPC_VERBOSITY: 'DEBUG',
      TZ: 'UTC',
    };
    expect(clientEnvironment(harness, { LD_PRELOAD: '/run/clock.so' })).toEqual({
      PATH: '/usr/bin',
      TZ: 'UTC',
      LD_PRELOAD: '/run/clock.so',
    });
    // The harness's own environment is left as it was.
    expect(harness.DEBUG).toBe('*');
  });
});
