import Docker from 'dockerode';
import { HarnessError } from '../../common/errors.ts';

/** The exact commands that give this machine an engine the backend can use (host networking only, no NAT rules). */
export const START_ENGINE_HINT = [
  'start a Docker engine, then re-run:',
  '    apt-get install -y docker.io        # once, as root (Debian/Ubuntu)',
  '    dockerd --bridge=none --iptables=false --ip-masq=false >/var/log/fencepost-dockerd.log 2>&1 &',
  '  or run with --backend=local.',
].join('\n');

/** What to do when the socket is there but refuses us: the engine is up, the user is not allowed in. */
export const SOCKET_PERMISSION_HINT = [
  'add yourself to the docker group, then log in again (or run `newgrp docker` in this shell):',
  '    sudo usermod -aG docker $USER',
  '  or run as root, or with --backend=local.',
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

/** Why no engine could be used: nothing answers, or the socket answers but refuses this user. */
export type EngineProblem = { kind: 'absent' | 'permission'; detail: string };

/**
 * The problem behind a failed ping, from the error's code: EACCES/EPERM on the socket means an engine is there
 * and this user may not use it — telling them to start one would send them the wrong way.
 */
export function engineProblem(err: unknown): EngineProblem {
  const code = (err as { code?: string } | null)?.code;
  if (code === 'EACCES' || code === 'EPERM')
    return { kind: 'permission', detail: `${engineAddress()}: permission denied` };
  return { kind: 'absent', detail: `no Docker engine answers at ${engineAddress()}${code ? ` (${code})` : ''}` };
}

/** A client of the engine, or why there is none; bounded by `timeoutMs` so a hung engine can't hang us. */
export async function probeDockerEngine(timeoutMs = 2000): Promise<{ docker: Docker } | { problem: EngineProblem }> {
  const docker = new Docker();
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      docker.ping(),
      new Promise(
        (_, reject) =>
          (timer = setTimeout(
            () => reject(Object.assign(new Error('timeout'), { code: `no answer in ${timeoutMs} ms` })),
            timeoutMs,
          )),
      ),
    ]);
    configureTestcontainers();
    return { docker };
  } catch (err) {
    return { problem: engineProblem(err) };
  } finally {
    clearTimeout(timer);
  }
}

/** A client of the Docker engine if one answers within `timeoutMs` and lets us in, else null. */
export async function findDockerEngine(timeoutMs = 2000): Promise<Docker | null> {
  const found = await probeDockerEngine(timeoutMs);
  return 'docker' in found ? found.docker : null;
}

/** The exit-254 error for a problem, with the commands that fix it. */
export function engineError(problem: EngineProblem): HarnessError {
  return problem.kind === 'permission'
    ? new HarnessError(
        'missing-dependency',
        `--backend=docker: ${problem.detail} — the Docker engine is running, but this user may not use it.`,
        { hint: SOCKET_PERMISSION_HINT },
      )
    : new HarnessError('missing-dependency', `--backend=docker: ${problem.detail}.`, { hint: START_ENGINE_HINT });
}

/**
 * The engine, or a `missing-dependency` error (exit 254) with the commands that fix it. The harness doesn't start
 * dockerd itself: a daemon outlives the run and changes the machine for every user, which is the user's call.
 */
export async function connectDockerEngine(): Promise<Docker> {
  const found = await probeDockerEngine();
  if ('problem' in found) throw engineError(found.problem);
  return found.docker;
}
