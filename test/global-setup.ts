import { provision } from '../cluster/provision.ts';
import { foreignLibraries } from '../locks/registry.ts';

/**
 * `npm test` alone must pass on a fresh Debian machine: install the servers the `servers` (and `docker`) tests
 * boot, through the same provisioning code the CLI uses (apt when root). The `unit` tier has no global setup.
 */
export default async function setup(): Promise<void> {
  // The lock libraries too: the foreign rows' server tests (locks/*.servers.test.ts) run their real glue. And, as
  // root (server partitions need root; a user who is not cannot run them), nftables: its tests then run, not skip.
  const asRoot = process.getuid?.() === 0;
  await provision(
    ['redis', 'etcd', 'zk', 'pg', 'cc', ...foreignLibraries(), ...(asRoot ? (['nft'] as const) : [])],
    (line) => console.log(line),
  );
}
