import { describe, expect, it } from 'vitest';
import { servicesToStop } from './service-stops.ts';

const set = (...xs: string[]) => new Set(xs);

describe('servicesToStop', () => {
  it('stops the service of a package this call installed, that was not running before', () => {
    expect(
      servicesToStop({
        requested: ['redis-server'],
        installedBefore: set(),
        installedAfter: set('redis-server'),
        runningBefore: set(),
      }),
    ).toEqual(['redis-server']);
  });

  it("never stops the user's own database: postgresql installed before the call is left running", () => {
    // The measured bug: installing etcd stopped every one of redis, zookeeper, etcd and postgresql.
    expect(
      servicesToStop({
        requested: ['etcd-server', 'etcd-client'],
        installedBefore: set('postgresql', 'redis-server'),
        installedAfter: set('postgresql', 'redis-server', 'etcd-server', 'etcd-client'),
        runningBefore: set('postgresql', 'redis-server'),
      }),
    ).toEqual(['etcd']);
  });

  it('leaves a package that was requested but already installed (apt only upgraded or re-confirmed it)', () => {
    expect(
      servicesToStop({
        requested: ['postgresql', 'zookeeper'],
        installedBefore: set('postgresql'),
        installedAfter: set('postgresql', 'zookeeper'),
        runningBefore: set(),
      }),
    ).toEqual(['zookeeper']);
  });

  it('leaves a service that was already running under that name before the install (not ours)', () => {
    expect(
      servicesToStop({
        requested: ['redis-server'],
        installedBefore: set(),
        installedAfter: set('redis-server'),
        runningBefore: set('redis-server'),
      }),
    ).toEqual([]);
  });

  it('leaves a package that apt did not end up installing, and packages without a service', () => {
    expect(
      servicesToStop({
        requested: ['postgresql', 'gcc', 'libc6-dev'],
        installedBefore: set(),
        installedAfter: set('gcc', 'libc6-dev'),
        runningBefore: set(),
      }),
    ).toEqual([]);
  });

  it('stops all four when this call installed all four on a machine that had none', () => {
    const requested = ['redis-server', 'etcd-server', 'etcd-client', 'zookeeper', 'postgresql'];
    expect(
      servicesToStop({ requested, installedBefore: set(), installedAfter: set(...requested), runningBefore: set() }),
    ).toEqual(['redis-server', 'etcd', 'zookeeper', 'postgresql']);
  });
});
