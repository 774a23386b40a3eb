import Docker from 'dockerode';
import { HarnessError } from '../../errors.ts';

/** The exact commands that give this machine an engine the backend can use (host networking only, no NAT rules). */
export const START_ENGINE_HINT = [
  'start a Docker engine, then re-run:',
  '    apt-get install -y docker.io        # once, as root (Debian/Ubuntu)',
  '    dockerd --bridge=none --iptables=false --ip-masq=false >/var/log/fencepost-dockerd.log 2>&1 &',
  '  or run with --backend=local.',
].join('\n');

/**
 * testcontainers is told to talk to the engine on loopback and not to start Ryuk (its reaper image would come
 * from a registry): containers carry fencepost labels and `cleanup` removes those whose harness is gone.
 */
function configureTestcontainers(): void {
  process.env.TESTCONTAINERS_RYUK_DISABLED ??= 'true';
  process.env.TESTCONTAINERS_HOST_OVERRIDE ??= '127.0.0.1';
}

/** Where dockerode connects (DOCKER_HOST or the default socket), for messages. */
export function engineAddress(): string {
  return process.env.DOCKER_HOST ?? '/var/run/docker.sock';
}

/** A client of the Docker engine if one answers within `timeoutMs`, else null. */
export async function findDockerEngine(timeoutMs = 2000): Promise<Docker | null> {
  const docker = new Docker();
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([docker.ping(), new Promise((_, reject) => (timer = setTimeout(() => reject(new Error('timeout')), timeoutMs)))]);
    configureTestcontainers();
    return docker;
  } catch {
    return null;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The engine, or a `missing-dependency` error (exit 254) with the commands to start one. The harness doesn't start
 * dockerd itself: a daemon outlives the run and changes the machine for every user, which is the user's call.
 */
export async function connectDockerEngine(): Promise<Docker> {
  const docker = await findDockerEngine();
  if (!docker) throw new HarnessError('missing-dependency', `--backend=docker: no Docker engine answers at ${engineAddress()}.`, { hint: START_ENGINE_HINT });
  return docker;
}
