import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The one node image of the Docker backend: every server of the cluster, from Debian bookworm's packages (the
 * same ones the local backend runs). One image, different commands per node, like Jepsen's DB nodes.
 */
export const NODE_PACKAGES = [
  'redis-server',
  'etcd-server',
  'etcd-client',
  'zookeeper',
  'postgresql',
  'pgbouncer',
] as const;

/** Labels both builders put on the image: what the backend needs to know about its insides. */
export const LABEL = {
  /** uid:gid of the image's `postgres` user (Postgres refuses root; its data dir must be owned by it). */
  postgresUser: 'fencepost.postgres-user',
  /** /usr/lib/postgresql/<v>/bin inside the image (the host may have another major version, or none). */
  postgresBin: 'fencepost.postgres-bin',
} as const;

const here = path.dirname(fileURLToPath(import.meta.url));

/** Bump when what goes into the image changes in a way the package list doesn't show (labels, removed files). */
export const RECIPE_VERSION = 1;

/**
 * `fencepost-node:<hash>`: the hash covers the package list, the recipe version and the Dockerfile, so a changed
 * recipe is a new tag and an old cached image is never mistaken for the current one.
 */
export function nodeImageTag(): string {
  const h = crypto.createHash('sha256');
  h.update(`${NODE_PACKAGES.join(' ')}\n${RECIPE_VERSION}\n`);
  h.update(fs.readFileSync(path.join(here, 'Dockerfile')));
  return `fencepost-node:${h.digest('hex').slice(0, 12)}`;
}
