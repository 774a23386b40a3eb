/**
 * The `unit` tier runs its files in parallel and provisions nothing (vitest.config.ts sets FENCEPOST_TEST_TIER
 * there). A test that boots servers from it would race other clusters for 2 cores and might find no binaries,
 * so the kits that boot a cluster stop it at once with the rule to follow, instead of flaking later.
 */
export function requireServersTier(what: string): void {
  if (process.env.FENCEPOST_TEST_TIER !== 'unit') return;
  throw new Error(
    `test-tier: ${what} boots real servers, but this file runs in the parallel \`unit\` tier. ` +
      'Name it *.servers.test.ts (or put it under test/integration/) so it runs in the serial `servers` tier.',
  );
}
