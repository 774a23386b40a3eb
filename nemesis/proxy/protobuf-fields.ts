/**
 * The few protobuf wire-format reads the gRPC framing needs to tell one etcd call from another (a Txn that puts the
 * lock key from one that deletes it) and to read what it asked for (the key, the lease). No schema: a message is read
 * as its fields, each a varint (as a bigint: etcd's lease ids are int64, beyond a double's 53 bits), a length-
 * delimited run of bytes (a string, bytes, or a nested message), or a fixed-width number (skipped).
 */
import { FramingError } from './framing.ts';

export interface ProtoField {
  readonly field: number;
  readonly value: bigint | Buffer;
}

const VARINT = 0;
const FIXED64 = 1;
const LENGTH_DELIMITED = 2;
const FIXED32 = 5;

export function protoFields(message: Buffer): ProtoField[] {
  const fields: ProtoField[] = [];
  const r = { at: 0 };
  while (r.at < message.length) {
    const key = varint(message, r);
    const field = Number(key >> 3n);
    const wire = Number(key & 7n);
    if (wire === VARINT) fields.push({ field, value: varint(message, r) });
    else if (wire === LENGTH_DELIMITED) {
      const n = Number(varint(message, r));
      if (r.at + n > message.length) throw new FramingError('protobuf', r.at, `a field of ${n} bytes cut short`);
      fields.push({ field, value: message.subarray(r.at, r.at + n) });
      r.at += n;
    } else if (wire === FIXED64) r.at += 8;
    else if (wire === FIXED32) r.at += 4;
    else throw new FramingError('protobuf', r.at, `wire type ${wire}`);
  }
  if (r.at > message.length) throw new FramingError('protobuf', r.at, 'a fixed-width field cut short');
  return fields;
}

/** The first value of `field`, as a nested message's or a string's bytes. */
export function bytesField(fields: readonly ProtoField[], field: number): Buffer | undefined {
  const f = fields.find((x) => x.field === field && x.value instanceof Buffer);
  return f?.value as Buffer | undefined;
}

/** The first value of `field`, as a varint (absent: protobuf's default, 0). */
export function varintField(fields: readonly ProtoField[], field: number): bigint {
  const f = fields.find((x) => x.field === field && typeof x.value === 'bigint');
  return (f?.value as bigint | undefined) ?? 0n;
}

function varint(b: Buffer, r: { at: number }): bigint {
  let value = 0n;
  for (let shift = 0n; shift < 70n; shift += 7n) {
    if (r.at >= b.length) throw new FramingError('protobuf', r.at, 'a varint cut short');
    const byte = b[r.at++];
    value |= BigInt(byte & 0x7f) << shift;
    if (!(byte & 0x80)) return BigInt.asIntN(64, value);
  }
  throw new FramingError('protobuf', r.at, 'a varint longer than 10 bytes');
}
