import { Etcd3 } from 'etcd3';
import type { LockContext } from '../strategy.ts';

/** Unary calls get a deadline so a partitioned or paused cluster gives an error (recorded as info), not a hang. */
export const CALL_DEADLINE_MS = 2_000;

/** An etcd3 client for a run's members as fencepost's own etcd locks connect: auth, a target's TLS, call deadlines. */
export function etcdClientFor(ctx: LockContext): Etcd3 {
  return new Etcd3({
    hosts: ctx.etcd,
    dialTimeout: 1_000,
    // etcd3 authenticates once, then re-authenticates when a member answers "invalid auth token" (a restarted
    // member has forgotten the simple tokens it held).
    ...(ctx.etcdAuth ? { auth: ctx.etcdAuth } : {}),
    // A target's members over TLS: through a local proxy the address dialled is 127.0.0.1, so the name checked
    // against their certificate is given apart.
    ...(ctx.etcdTls
      ? {
          credentials: { rootCertificate: Buffer.from(ctx.etcdTls.ca ?? '') },
          ...(ctx.etcdTls.servername
            ? { grpcOptions: { 'grpc.ssl_target_name_override': ctx.etcdTls.servername } }
            : {}),
        }
      : {}),
    defaultCallOptions: (call) => (call.isStream ? {} : { deadline: Date.now() + CALL_DEADLINE_MS }),
  });
}
