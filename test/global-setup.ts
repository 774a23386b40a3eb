import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { provision } from '../harness/provision.ts';

/**
 * `npm test` alone must pass on a fresh Debian machine: install the servers the integration tests boot through
 * the same provisioning code the CLI uses (apt when root), plus Chromium for the report's browser test.
 */
export default async function setup(): Promise<void> {
  await provision(['redis', 'etcd', 'zk', 'pg', 'cc'], (line) => console.log(line));
  if (!fs.existsSync('/usr/bin/chromium') && process.getuid?.() === 0 && fs.existsSync('/etc/debian_version')) {
    console.log('fencepost test setup: installing chromium for the report browser test (apt) …');
    execFileSync('apt-get', ['install', '-y', '-q', '--no-install-recommends', 'chromium'], { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  }
}
