/**
 * One provisioning's apt-get calls, made so that a signal cannot cut them in half. apt runs in a process group of its
 * own (a terminal's Ctrl-C reaches the harness, not dpkg in the middle of unpacking); on Ctrl-C the harness lets the
 * running call finish (bounded), starts no other, and only then removes the policy-rc.d it wrote — which also goes
 * on any exit, and in `cleanup` once its writer is gone. Left behind, that file makes every later package install on
 * the machine start no service (sshd's restart after an upgrade included).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import type { Shutdown, TeardownStep } from '../common/shutdown.ts';
import { isAlive } from '../common/pid-registry.ts';

/**
 * Debian's hook that every maintainer script asks before starting a service (invoke-rc.d, deb-systemd-invoke):
 * exit 101 = "not allowed". Present for the duration of our install, so the packages' services (a Redis without a
 * password on 6379, an etcd without auth on 2379) never start at all — the Docker-image idiom.
 */
export const POLICY_RC_D = '/usr/sbin/policy-rc.d';

/** Our policy-rc.d's text: it names the harness that wrote it, so `cleanup` can tell ours from a user's. */
export function policyDeny(pid = process.pid): string {
  return `#!/bin/sh\n# written by fencepost (pid ${pid}) for the duration of an apt-get install: start no services\nexit 101\n`;
}

const OURS = /^# written by fencepost \(pid (\d+)\) for the duration of an apt-get install/m;

/** How long a Ctrl-C waits for the apt-get call that is running to finish before the harness exits anyway. */
export const APT_FINISH_WAIT_MS = 120_000;

export class AptSession {
  private child: ChildProcess | null = null;
  private exited: Promise<void> = Promise.resolve();
  private aborted = false;
  private ownPolicy = false;
  private step: TeardownStep | null = null;
  private readonly onExit = () => this.end(true);

  constructor(private readonly log: (line: string) => void) {}

  /**
   * Deny service starts while it runs (unless the machine has a policy-rc.d of its own: it stays, with its policy),
   * and register what Ctrl-C does meanwhile with `shutdown` (when the command has one).
   */
  begin(shutdown?: Shutdown): void {
    try {
      fs.writeFileSync(POLICY_RC_D, policyDeny(), { mode: 0o755, flag: 'wx' });
      this.ownPolicy = true;
    } catch {
      // exists already (theirs), or /usr/sbin is read-only: the stop and disable after the install still run
    }
    process.on('exit', this.onExit);
    this.step =
      shutdown?.add('let apt finish, then remove policy-rc.d', async () => {
        this.aborted = true;
        if (this.child) this.log(`fencepost: letting apt-get (pid ${this.child.pid}) finish first …`);
        await Promise.race([this.exited, new Promise((r) => setTimeout(r, APT_FINISH_WAIT_MS).unref())]);
        this.end();
      }) ?? null;
  }

  /** One apt-get call (`onData`: its output as it comes); refused once a Ctrl-C has begun the teardown. */
  run(args: string[], onData: (d: Buffer) => void): Promise<number | null> {
    if (this.aborted) return Promise.reject(new Error('interrupted: no further apt-get call'));
    const child = spawn('apt-get', args, {
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    this.child = child;
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    const done = new Promise<number | null>((resolve, reject) => {
      child.once('error', reject);
      child.once('close', (code) => resolve(code));
    }).finally(() => {
      if (this.child === child) this.child = null;
    });
    this.exited = done.then(
      () => {},
      () => {},
    );
    return done;
  }

  /**
   * Remove our policy-rc.d (once). From the `exit` hook while apt-get still runs (a second Ctrl-C, a crash), it stays,
   * said so: the install goes on without us, and must still start no service; `cleanup` removes it later.
   */
  end(atExit = false): void {
    this.step?.cancel();
    this.step = null;
    process.off('exit', this.onExit);
    if (!this.ownPolicy) return;
    if (atExit && this.child && this.child.exitCode === null && this.child.signalCode === null) {
      this.log(
        `fencepost: apt-get is still running: ${POLICY_RC_D} stays until it ends; \`fencepost cleanup\` removes it`,
      );
      return;
    }
    this.ownPolicy = false;
    fs.rmSync(POLICY_RC_D, { force: true });
  }
}

/**
 * `cleanup`: our policy-rc.d left by a harness that is gone (kill -9 mid-install), once no apt-get or dpkg runs. A
 * policy-rc.d that is not ours is never touched. Whether it removed one.
 */
export function removeLeftoverPolicy(log: (line: string) => void): boolean {
  let text: string;
  try {
    text = fs.readFileSync(POLICY_RC_D, 'utf8');
  } catch {
    return false;
  }
  const m = OURS.exec(text);
  if (!m) return false;
  if (isAlive(Number(m[1]))) return false;
  const busy = packageToolsRunning();
  if (busy.length) {
    log(`left alone: ${POLICY_RC_D} of a fencepost that is gone, while ${busy.join(', ')} still run`);
    return false;
  }
  fs.rmSync(POLICY_RC_D, { force: true });
  log(`removed ${POLICY_RC_D}, left by fencepost pid ${m[1]} (which is gone): package installs start services again`);
  return true;
}

/** apt-get and dpkg processes of the machine (their comm), if any. */
function packageToolsRunning(): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(e)) continue;
    try {
      const comm = fs.readFileSync(`/proc/${e}/comm`, 'utf8').trim();
      if (comm === 'apt-get' || comm === 'dpkg' || comm === 'apt') out.push(`${comm} (pid ${e})`);
    } catch {
      // gone
    }
  }
  return out;
}
