import type Docker from 'dockerode';
import { buildNodeImageOffline } from './build-image.ts';
import { LABEL, nodeImageTag } from './image-recipe.ts';
import { HarnessError } from '../../common/errors.ts';
import { provision } from '../provision.ts';

export interface NodeImage {
  tag: string;
  postgresUser: { uid: number; gid: number };
  postgresBin: string;
}

async function inspect(docker: Docker, tag: string): Promise<NodeImage | null> {
  let labels: Record<string, string>;
  try {
    labels = (await docker.getImage(tag).inspect()).Config?.Labels ?? {};
  } catch (err) {
    if ((err as { statusCode?: number }).statusCode === 404) return null;
    throw err;
  }
  const [uid, gid] = (labels[LABEL.postgresUser] ?? '').split(':').map(Number);
  const bin = labels[LABEL.postgresBin];
  if (!Number.isInteger(uid) || !Number.isInteger(gid) || !bin) {
    throw new HarnessError(
      'missing-dependency',
      `image ${tag} lacks the labels ${LABEL.postgresUser} and ${LABEL.postgresBin}.`,
      {
        hint: `remove it (docker rmi ${tag}) and build it again: node --import tsx cluster/docker/build-image.ts`,
      },
    );
  }
  return { tag, postgresUser: { uid, gid }, postgresBin: bin };
}

/**
 * The node image, built once and cached by tag. When it is missing and we are root on Debian, build it with the
 * offline builder (debootstrap from apt's own mirror — no registry needed); otherwise say how to get it.
 */
export async function ensureNodeImage(docker: Docker, log: (line: string) => void): Promise<NodeImage> {
  const tag = nodeImageTag();
  const found = await inspect(docker, tag);
  if (found) return found;
  if (process.getuid?.() !== 0) {
    throw new HarnessError(
      'missing-dependency',
      `the node image ${tag} is not built yet (building it offline needs root).`,
      {
        hint: `as root: node --import tsx cluster/docker/build-image.ts\n  or, where a registry is reachable: docker build -t ${tag} cluster/docker/`,
      },
    );
  }
  await provision(['debootstrap'], log);
  await buildNodeImageOffline(tag, log);
  const built = await inspect(docker, tag);
  if (!built) throw new HarnessError('missing-dependency', `built ${tag}, but the engine doesn't list it.`);
  return built;
}
