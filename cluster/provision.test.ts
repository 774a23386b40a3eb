import { describe, expect, it } from 'vitest';
import { aptArgs, disableCommand } from './provision.ts';
import { POLICY_RC_D, policyDeny } from './apt-session.ts';

describe('the commands provisioning runs', () => {
  it('waits up to 5 minutes for a held apt/dpkg lock at every step', () => {
    expect(aptArgs('update')).toEqual(['-o', 'DPkg::Lock::Timeout=300', 'update', '-q']);
    expect(aptArgs('install', ['etcd-server']).slice(0, 2)).toEqual(['-o', 'DPkg::Lock::Timeout=300']);
  });

  it('installs without a conffile prompt, keeping a config file the user changed', () => {
    expect(aptArgs('install', ['redis-server', 'zookeeper'])).toEqual([
      '-o',
      'DPkg::Lock::Timeout=300',
      '-o',
      'Dpkg::Options::=--force-confdef',
      '-o',
      'Dpkg::Options::=--force-confold',
      'install',
      '-y',
      '-q',
      '--no-install-recommends',
      'redis-server',
      'zookeeper',
    ]);
  });

  it('denies every service start while it installs (policy-rc.d exits 101)', () => {
    expect(POLICY_RC_D).toBe('/usr/sbin/policy-rc.d');
    expect(policyDeny(42).startsWith('#!/bin/sh\n# written by fencepost (pid 42)')).toBe(true);
    expect(policyDeny(42).trimEnd().split('\n').at(-1)).toBe('exit 101');
  });

  it('disables a service it installed with systemctl under systemd, with update-rc.d otherwise', () => {
    expect(disableCommand('redis-server', true)).toEqual({
      file: 'systemctl',
      args: ['disable', '--quiet', 'redis-server'],
    });
    expect(disableCommand('etcd', false)).toEqual({ file: 'update-rc.d', args: ['etcd', 'disable'] });
  });
});
