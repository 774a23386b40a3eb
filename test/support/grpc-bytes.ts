/**
 * HTTP/2 frames, gRPC messages and etcd's protobuf messages built byte by byte for the gRPC framing's tests: what a
 * grpc-js client and etcd put on the wire, small enough to read. Header blocks use HPACK literals without indexing
 * (RFC 7541 §6.2.2), raw strings: any decoder must read them; Huffman and the dynamic table are tested on bytes a
 * real HTTP/2 client wrote (grpc-framing.test.ts).
 */
export const PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1');
export const END_STREAM = 0x1;
export const END_HEADERS = 0x4;

export function h2Frame(type: number, flags: number, stream: number, payload: Buffer = Buffer.alloc(0)): Buffer {
  const header = Buffer.alloc(9);
  header.writeUIntBE(payload.length, 0, 3);
  header[3] = type;
  header[4] = flags;
  header.writeUInt32BE(stream, 5);
  return Buffer.concat([header, payload]);
}

export const settings = () => h2Frame(4, 0, 0);

/** A HEADERS frame (END_HEADERS) whose block names each field as a raw literal without indexing. */
export function headers(stream: number, fields: Record<string, string>, flags = 0): Buffer {
  const block = Buffer.concat(
    Object.entries(fields).map(([name, value]) =>
      Buffer.concat([Buffer.from([0x00]), rawString(name), rawString(value)]),
    ),
  );
  return h2Frame(1, END_HEADERS | flags, stream, block);
}

export const request = (stream: number, path: string) =>
  headers(stream, { ':method': 'POST', ':scheme': 'http', ':path': path, 'content-type': 'application/grpc' });

/** One gRPC message (uncompressed) in one DATA frame. */
export const data = (stream: number, message: Buffer, flags = 0) => h2Frame(0, flags, stream, grpcMessage(message));

export function grpcMessage(message: Buffer): Buffer {
  const prefix = Buffer.alloc(5);
  prefix.writeUInt32BE(message.length, 1);
  return Buffer.concat([prefix, message]);
}

function rawString(s: string): Buffer {
  if (s.length > 126) throw new Error('test strings are short');
  return Buffer.concat([Buffer.from([s.length]), Buffer.from(s, 'latin1')]);
}

/** Protobuf: a varint field and a length-delimited one. */
export function pbVarint(field: number, value: bigint): Buffer {
  return Buffer.concat([varint(BigInt(field << 3)), varint(value)]);
}

export function pbBytes(field: number, value: Buffer | string): Buffer {
  const b = typeof value === 'string' ? Buffer.from(value) : value;
  return Buffer.concat([varint(BigInt((field << 3) | 2)), varint(BigInt(b.length)), b]);
}

function varint(v: bigint): Buffer {
  const out: number[] = [];
  let x = BigInt.asUintN(64, v);
  do {
    const byte = Number(x & 0x7fn);
    x >>= 7n;
    out.push(x ? byte | 0x80 : byte);
  } while (x);
  return Buffer.from(out);
}

/** fencepost's acquire: if the key was never created, put it with our lease; else read it. */
export function acquireTxn(key: string, owner: string, lease: bigint): Buffer {
  const compare = Buffer.concat([pbVarint(1, 0n), pbVarint(2, 1n), pbBytes(3, key)]); // EQUAL, CREATE
  const put = Buffer.concat([pbBytes(1, key), pbBytes(2, owner), pbVarint(3, lease)]);
  const range = pbBytes(1, key);
  return Buffer.concat([pbBytes(1, compare), pbBytes(2, pbBytes(2, put)), pbBytes(3, pbBytes(1, range))]);
}

/** fencepost's release: if the key's create revision is ours, delete it. */
export function releaseTxn(key: string, revision: bigint): Buffer {
  const compare = Buffer.concat([pbVarint(2, 1n), pbBytes(3, key), pbVarint(5, revision)]);
  return Buffer.concat([pbBytes(1, compare), pbBytes(2, pbBytes(3, pbBytes(1, key)))]);
}

export const txnResponse = (succeeded: boolean, revision = 7n) =>
  Buffer.concat([pbBytes(1, pbVarint(3, revision)), succeeded ? pbVarint(2, 1n) : Buffer.alloc(0)]);

export const keepAlive = (lease: bigint) => pbVarint(1, lease);
export const keepAliveResponse = (lease: bigint, ttl: bigint) =>
  Buffer.concat([pbBytes(1, pbVarint(3, 9n)), pbVarint(2, lease), pbVarint(3, ttl)]);

/** grpc-go's trailers after an answer: `grpc-status: 0`. */
export const trailers = (stream: number) => headers(stream, { 'grpc-status': '0' }, END_STREAM);
export const responseHeaders = (stream: number) =>
  headers(stream, { ':status': '200', 'content-type': 'application/grpc' });
