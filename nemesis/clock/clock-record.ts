/**
 * The byte layout of a clock file: the other half of the `struct record` at the top of shim.c, which documents
 * every field; change both together. Native endian, because the shim reads it as a C struct.
 */
import { endianness } from 'node:os';
import type { Segment } from './clock-segment.ts';

export const RECORD_BYTES = 96;
export const RECORD_MAGIC = 0x4b435046; // "FPCK" little-endian
export const RECORD_VERSION = 1;

/** Byte offsets of the fields. */
export const AT = {
  offsetNs: 0,
  magic: 8,
  version: 12,
  seq: 16,
  reads: 24,
  waits: 32,
  scope: 40,
  segments: 48,
} as const;
const SEGMENT_BYTES = 24;

/** What a rate does to the process: `wall` moves clock values only; `process` also stretches its waits. */
export type ClockScope = 'wall' | 'process';
const SCOPES: readonly ClockScope[] = ['wall', 'process'];

/** The clock families the shim moves, in the record's segment order. */
export const CLOCK_FAMILIES = ['realtime', 'monotonic'] as const;
export type ClockFamily = (typeof CLOCK_FAMILIES)[number];

/** The fields the harness writes (the shim writes only the counters). */
export interface ClockSettings {
  readonly offsetNs: bigint;
  readonly scope: ClockScope;
  readonly segments: Readonly<Record<ClockFamily, Segment>>;
}

/** The counters the shim writes: clock reads served moved, and waits it stretched or shrank. */
export interface ClockCounters {
  readonly reads: bigint;
  readonly waits: bigint;
}

const LE = endianness() === 'LE';
const i64 = (b: Buffer, at: number) => (LE ? b.readBigInt64LE(at) : b.readBigInt64BE(at));
const u64 = (b: Buffer, at: number) => (LE ? b.readBigUInt64LE(at) : b.readBigUInt64BE(at));
const u32 = (b: Buffer, at: number) => (LE ? b.readUInt32LE(at) : b.readUInt32BE(at));
const putI64 = (b: Buffer, v: bigint, at: number) => (LE ? b.writeBigInt64LE(v, at) : b.writeBigInt64BE(v, at));
const putU64 = (b: Buffer, v: bigint, at: number) => (LE ? b.writeBigUInt64LE(v, at) : b.writeBigUInt64BE(v, at));
const putU32 = (b: Buffer, v: number, at: number) => (LE ? b.writeUInt32LE(v, at) : b.writeUInt32BE(v, at));

/** A fresh record: real time, scope wall, counters at 0. */
export function initialRecord(settings: ClockSettings): Buffer {
  const b = Buffer.alloc(RECORD_BYTES);
  putU32(b, RECORD_MAGIC, AT.magic);
  putU32(b, RECORD_VERSION, AT.version);
  const { offset, tail } = encodeSettings(settings);
  b.set(offset, AT.offsetNs);
  b.set(tail, AT.scope);
  return b;
}

/**
 * The harness's fields as two byte runs: the offset at 0, and scope + segments from `AT.scope` to the end. Writing
 * them never touches the counters the shim is adding to.
 */
export function encodeSettings(s: ClockSettings): { offset: Buffer; tail: Buffer } {
  const offset = Buffer.alloc(8);
  putI64(offset, s.offsetNs, 0);
  const tail = Buffer.alloc(RECORD_BYTES - AT.scope);
  putU32(tail, SCOPES.indexOf(s.scope), 0);
  CLOCK_FAMILIES.forEach((family, i) => {
    const at = AT.segments - AT.scope + i * SEGMENT_BYTES;
    const seg = s.segments[family];
    putI64(tail, seg.baseMonoNs, at);
    putI64(tail, seg.baseDriftNs, at + 8);
    putI64(tail, seg.ratePpb, at + 16);
  });
  return { offset, tail };
}

export function decodeSettings(b: Buffer): ClockSettings {
  const seg = (i: number): Segment => {
    const at = AT.segments + i * SEGMENT_BYTES;
    return { baseMonoNs: i64(b, at), baseDriftNs: i64(b, at + 8), ratePpb: i64(b, at + 16) };
  };
  const scope = SCOPES[u32(b, AT.scope)];
  if (scope === undefined) throw new Error(`clock record: unknown scope ${u32(b, AT.scope)}`);
  return { offsetNs: i64(b, AT.offsetNs), scope, segments: { realtime: seg(0), monotonic: seg(1) } };
}

export function decodeCounters(b: Buffer): ClockCounters {
  return { reads: u64(b, AT.reads), waits: u64(b, AT.waits) };
}

export function decodeSeq(b: Buffer): bigint {
  return u64(b, AT.seq);
}

export function encodeSeq(seq: bigint): Buffer {
  const b = Buffer.alloc(8);
  putU64(b, seq, 0);
  return b;
}

/** Throws unless `b` is a record this code and the shim agree on. */
export function checkRecord(b: Buffer, path: string): void {
  if (b.length < RECORD_BYTES || u32(b, AT.magic) !== RECORD_MAGIC || u32(b, AT.version) !== RECORD_VERSION) {
    throw new Error(`clock record ${path} is not a version-${RECORD_VERSION} record of ${RECORD_BYTES} bytes`);
  }
}
