import { execFileSync } from 'node:child_process';
import { installCommand, REQUIREMENTS } from './provision.ts';

/**
 * Servers no run needs unless an option asks for them (valkey-server: `--redis-server=valkey`): `doctor` says
 * whether each is there, and how to install it, instead of installing it (its archive may be one the machine lacks).
 */
export interface OptionalServer {
  server: string;
  /** What asks for it. */
  for: string;
  /** Its `--version`'s version, or null when it is not installed. */
  version: string | null;
  /** How to install it, when it is not. */
  install?: string;
}

/** The version in a server binary's `--version` line ("Valkey server v=8.0.1 sha=00000000:0 …"), or its whole line. */
export function binaryVersion(text: string): string {
  return /\bv=(\S+)/.exec(text)?.[1] ?? text.trim();
}

export function optionalServers(): OptionalServer[] {
  const valkey = REQUIREMENTS.valkey;
  if (!valkey.present())
    return [
      { server: 'valkey-server', for: '--redis-server=valkey', version: null, install: installCommand([valkey]) },
    ];
  let version: string;
  try {
    // Prints and exits: it starts no server.
    version = binaryVersion(execFileSync('valkey-server', ['--version'], { encoding: 'utf8', timeout: 5000 }));
  } catch (err) {
    version = `unknown (${(err as Error).message.split('\n')[0]})`;
  }
  return [{ server: 'valkey-server', for: '--redis-server=valkey', version }];
}

/** One line per optional server for doctor's table. */
export function formatOptional(servers: readonly OptionalServer[]): string[] {
  return servers.map((s) =>
    s.version !== null
      ? `${s.server} ${s.version} is installed (optional, for ${s.for}; not booted here)`
      : `${s.server} is not installed (optional, for ${s.for}); to install it:\n  ${s.install}`,
  );
}
