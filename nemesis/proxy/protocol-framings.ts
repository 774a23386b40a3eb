/**
 * Which protocols the proxy can frame into requests and replies, for the modes that aim at one request. A proxy
 * is told its protocol when it starts; a per-request mode on a proxy without a framer is refused, naming why.
 */
import type { Framing } from './framing.ts';
import { postgresFraming } from './postgres-framing.ts';
import { respFraming } from './resp-framing.ts';
import { zookeeperFraming } from './zookeeper-framing.ts';

export type ProxyProtocol = 'resp' | 'postgres' | 'zookeeper' | 'etcd-grpc';

/**
 * etcd is not framed: its clients multiplex every call (lease keep-alives, watches, the lock's own Txn) as HTTP/2
 * streams on one connection, with HPACK-compressed headers and flow control. Framing it would mean reading HTTP/2
 * frames (9-byte header: length, type, flags, stream id), tracking HPACK state to learn each stream's `:path`
 * (`/etcdserverpb.KV/Txn`), and pairing replies by stream id rather than by order; dropping one reply would mean
 * dropping its stream's HEADERS/DATA frames while keeping the connection's own (SETTINGS, PING, WINDOW_UPDATE) —
 * and the connection-level flow-control window then counts bytes the client never got.
 */
const UNFRAMED_BECAUSE: Record<string, string> = {
  'etcd-grpc':
    'etcd speaks gRPC over HTTP/2, whose calls share one connection as streams; the proxy has no HTTP/2 framer',
};

const FRAMINGS: Partial<Record<ProxyProtocol, Framing>> = {
  resp: respFraming,
  postgres: postgresFraming,
  zookeeper: zookeeperFraming,
};

/** The protocol's framing, or undefined when the proxy cannot frame it. */
export function framingOf(protocol: ProxyProtocol | undefined): Framing | undefined {
  return protocol === undefined ? undefined : FRAMINGS[protocol];
}

/** Why a per-request mode cannot run on a proxy for `protocol`: the error a caller sees. */
export function unframedError(protocol: ProxyProtocol | undefined, mode: string): Error {
  const why =
    protocol === undefined
      ? 'the proxy was started without a protocol (TcpProxy.start({ protocol }))'
      : (UNFRAMED_BECAUSE[protocol] ?? `no framer for ${protocol}`);
  return new Error(
    `proxy mode ${mode} aims at one request, so it needs the protocol's request framing: ${why}. Framed protocols: ${Object.keys(FRAMINGS).join(', ')}`,
  );
}
