import fs from 'node:fs';

/**
 * Something a run needs on the machine, and the Debian packages that provide it: what provision.ts checks and
 * installs. The servers' are provision.ts's own; a lock row in another language declares its library's in its
 * folder (`locks/<name>/row.ts`, its `foreign` field), and the caller that runs the row passes it down.
 */
export interface RequirementSpec {
  /** What it is, as the missing-dependency message names it. */
  readonly what: string;
  readonly packages: readonly string[];
  readonly present: () => boolean;
  /**
   * An apt source the packages come from that a Debian machine may not list (valkey-server: bookworm-backports).
   * Provisioning never adds it to the user's machine: without a candidate for the packages it refuses, printing it.
   */
  readonly aptSource?: { readonly line: string; readonly file: string };
}

export function onPath(bin: string): boolean {
  return (process.env.PATH ?? '/usr/bin:/bin').split(':').some((dir) => {
    try {
      fs.accessSync(`${dir}/${bin}`, fs.constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

const PY_DIST = '/usr/lib/python3/dist-packages';

/**
 * Whether Debian's own python3 finds `file` among its packages (`redis/lock.py`): checked where /usr/bin/python3
 * looks, since a pyenv python3 earlier on PATH does not see Debian's modules.
 */
export function debianPythonHas(file: string): boolean {
  return fs.existsSync('/usr/bin/python3') && fs.existsSync(`${PY_DIST}/${file}`);
}
