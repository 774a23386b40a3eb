/**
 * Which protocols the proxy can frame into requests and replies, for the modes that aim at one request. A proxy
 * is told its protocol when it starts; a per-request mode on a proxy without a framer is refused, naming why.
 */
import { type Aim, ReplyAim } from './reply-aim.ts';
import { CallAim } from './call-aim.ts';
import type { Framing } from './framing.ts';
import { grpcFraming } from './grpc-framing.ts';
import { postgresFraming } from './postgres-framing.ts';
import { respFraming } from './resp-framing.ts';
import { zookeeperFraming } from './zookeeper-framing.ts';

export type ProxyProtocol = 'resp' | 'postgres' | 'zookeeper' | 'etcd-grpc';

/**
 * Protocols named here have no framer, with the reason a per-request mode gives when refused. etcd was one until
 * grpc-framing.ts: its calls share one HTTP/2 connection as streams, so its replies pair by call (call-aim.ts).
 */
const UNFRAMED_BECAUSE: Partial<Record<ProxyProtocol, string>> = {};

const FRAMINGS: Partial<Record<ProxyProtocol, Framing>> = {
  resp: respFraming,
  postgres: postgresFraming,
  zookeeper: zookeeperFraming,
  'etcd-grpc': grpcFraming,
};

/** The protocol's framing, or undefined when the proxy cannot frame it. */
export function framingOf(protocol: ProxyProtocol | undefined): Framing | undefined {
  return protocol === undefined ? undefined : FRAMINGS[protocol];
}

/** A new connection's pairing of replies with requests, or undefined when the proxy cannot frame the protocol. */
export function openAim(protocol: ProxyProtocol | undefined): Aim | undefined {
  const framing = framingOf(protocol);
  if (!framing) return undefined;
  return framing.pairsBy === 'call' ? new CallAim(framing.open()) : new ReplyAim(framing.open());
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
