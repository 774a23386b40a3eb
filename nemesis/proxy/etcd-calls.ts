/**
 * What the proxy reads of etcd's gRPC calls (etcdserverpb, api/etcdserverpb/rpc.proto): enough to aim at the call a
 * lock recipe's acquire, renewal or release makes, and to know from its answer whether the server acted.
 *
 * A request's `detail` is its method with what it does: `/etcdserverpb.KV/Txn put <key>` (a txn whose success branch
 * puts: an acquire), `/etcdserverpb.KV/Txn delete <key>` (a release), `/etcdserverpb.KV/DeleteRange <key>`,
 * `/etcdserverpb.Lease/LeaseKeepAlive <lease>`; a fault aims by a part of it (`KV/Txn put`). An answer's `detail`:
 * `succeeded at revision <r>` or `failed at revision <r>` for a Txn, `deleted <n>` for a DeleteRange, `alive TTL <s>` or `expired` for a keep-alive.
 */
import type { Frame } from './framing.ts';
import { bytesField, protoFields, varintField } from './protobuf-fields.ts';

type Facts = Pick<Frame, 'detail' | 'key' | 'value' | 'lease' | 'revision'>;

const TXN = '/etcdserverpb.KV/Txn';
const DELETE_RANGE = '/etcdserverpb.KV/DeleteRange';
const KEEP_ALIVE = '/etcdserverpb.Lease/LeaseKeepAlive';
/** RequestOp's fields (one of), by number. */
const REQUEST_OPS: Record<number, string> = { 1: 'range', 2: 'put', 3: 'delete', 4: 'txn' };

/** What a request message says, by its method (`:path`). */
export function requestFacts(path: string, message: Buffer): Facts {
  const fields = protoFields(message);
  if (path === TXN) {
    // TxnRequest.success (2): the ops a txn runs when its compares hold — what it came to do.
    const op = bytesField(fields, 2);
    if (!op) return { detail: `${path} (no success ops)` };
    const [first] = protoFields(op);
    const kind = REQUEST_OPS[first?.field] ?? 'op';
    if (!(first?.value instanceof Buffer)) return { detail: `${path} ${kind}` };
    // PutRequest: key 1, value 2, lease 3; DeleteRangeRequest and RangeRequest: key 1.
    const inner = protoFields(first.value);
    const key = bytesField(inner, 1)?.toString('utf8') ?? '';
    const facts: Facts = { detail: `${path} ${kind} ${key}`, key, ...compareRevision(fields) };
    if (kind !== 'put') return facts;
    return { ...facts, value: bytesField(inner, 2)?.toString('utf8') ?? '', lease: String(varintField(inner, 3)) };
  }
  if (path === DELETE_RANGE) {
    const key = bytesField(fields, 1)?.toString('utf8') ?? '';
    return { detail: `${path} ${key}`, key };
  }
  if (path === KEEP_ALIVE) {
    const lease = String(varintField(fields, 1));
    return { detail: `${path} ${lease}`, lease };
  }
  return { detail: path };
}

/** What an answer says, by its call's method; undefined where the proxy reads nothing of it. */
export function answerDetail(path: string | undefined, message: Buffer): string | undefined {
  const fields = protoFields(message);
  // Each response's header is field 1; what follows it differs.
  if (path === TXN) {
    // ResponseHeader (1): revision 3, the store's revision once the txn was applied — its put's, when it put.
    const header = bytesField(fields, 1);
    const revision = header ? varintField(protoFields(header), 3) : 0n;
    return `${varintField(fields, 2) ? 'succeeded' : 'failed'} at revision ${revision}`;
  }
  if (path === DELETE_RANGE) return `deleted ${varintField(fields, 2)}`;
  if (path === KEEP_ALIVE) {
    const ttl = varintField(fields, 3);
    return ttl > 0n ? `alive TTL ${ttl}` : 'expired';
  }
  return undefined;
}

/** Compare: target 2 (CREATE is 1), create_revision 5. A compare on CREATE with a revision other than 0 names one. */
const CREATE_TARGET = 1n;

/** The create revision the txn's first compare on CREATE requires, when it requires one (not 0: "absent"). */
function compareRevision(txn: ReturnType<typeof protoFields>): Pick<Facts, 'revision'> {
  const compare = bytesField(txn, 1);
  if (!compare) return {};
  const fields = protoFields(compare);
  const revision = varintField(fields, 5);
  return varintField(fields, 2) === CREATE_TARGET && revision > 0n ? { revision: String(revision) } : {};
}
