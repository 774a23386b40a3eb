import type Docker from 'dockerode';
import { it } from 'vitest';
import { engineError, probeDockerEngine } from '../../cluster/docker/engine.ts';

/**
 * The engine the docker tests use, or null: then they skip, saying why and how to get one — unless
 * FENCEPOST_REQUIRE_DOCKER=1 (CI, where .ci/run starts dockerd), where a missing engine is a failing test, so a
 * daemon that didn't come up can't pass as "skipped".
 */
export async function engineForTests(what: string): Promise<Docker | null> {
  const found = await probeDockerEngine(5000);
  if ('docker' in found) return found.docker;
  const err = engineError(found.problem);
  if (process.env.FENCEPOST_REQUIRE_DOCKER === '1') {
    it(`a Docker engine answers (FENCEPOST_REQUIRE_DOCKER=1, needed by ${what})`, () => {
      throw new Error(`${err.message}\n  ${err.hint}`);
    });
  } else {
    console.warn(`${what} skipped: ${err.message}\n  To run them, ${err.hint}`);
  }
  return null;
}
