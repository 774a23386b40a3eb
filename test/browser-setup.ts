import { execFileSync } from 'node:child_process';
import fs from 'node:fs';

/** The `browser` tier drives Chromium: install it (apt, when root on Debian) so `npm test` passes on a fresh machine. */
export default function setup(): void {
  if (!fs.existsSync('/usr/bin/chromium') && process.getuid?.() === 0 && fs.existsSync('/etc/debian_version')) {
    console.log('fencepost test setup: installing chromium for the report browser test (apt) …');
    execFileSync('apt-get', ['install', '-y', '-q', '--no-install-recommends', 'chromium'], {
      stdio: 'inherit',
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
  }
}
