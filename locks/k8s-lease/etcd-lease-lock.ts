import type { Etcd3 } from 'etcd3';
import { recordBytes, type ElectionRecord } from './election-record.ts';

/**
 * client-go's resourcelock.LeaseLock with etcd in the API server's place: one key holds the record as JSON, and the
 * key's mod revision is the Lease's resourceVersion. Like LeaseLock it remembers the object it last read or wrote
 * (`ll.lease`), and `update` sends that version back: a txn `If(mod_revision == remembered) Then(put)`, so an update
 * over a record someone else changed since is refused — the API server's optimistic concurrency (409 Conflict).
 * What it does not emulate: the API server's caching, admission and latency; etcd answers directly.
 */
export class EtcdLeaseLock {
  /** The mod revision of the record as this lock last read or wrote it (LeaseLock's `ll.lease`), or null before. */
  private modRevision: string | null = null;

  constructor(
    private readonly client: Etcd3,
    readonly key: string,
  ) {}

  /** Get: the record and its stored bytes, or null when there is none (NotFound). */
  async get(): Promise<{ record: ElectionRecord; raw: string } | null> {
    const res = await this.client.get(this.key).exec();
    const kv = res.kvs[0];
    if (!kv) return null;
    this.modRevision = kv.mod_revision;
    const raw = kv.value.toString();
    return { record: JSON.parse(raw) as ElectionRecord, raw };
  }

  /** Create: true when the record is now ours to update, false when one exists already (AlreadyExists). */
  async create(record: ElectionRecord): Promise<boolean> {
    const res = await this.client
      .if(this.key, 'Create', '==', 0)
      .then(this.client.put(this.key).value(recordBytes(record)))
      .commit();
    // The txn is one revision: the key it wrote has mod_revision == the header's revision.
    if (res.succeeded) this.modRevision = res.header.revision;
    return res.succeeded;
  }

  /**
   * Update: true when the record was still the one last read or written, false on a conflict (someone wrote between).
   * Without a read or write before it, it fails as LeaseLock does ("lease not initialized").
   */
  async update(record: ElectionRecord): Promise<boolean> {
    if (this.modRevision === null) throw new Error('lease not initialized, call get or create first');
    const res = await this.client
      .if(this.key, 'Mod', '==', this.modRevision)
      .then(this.client.put(this.key).value(recordBytes(record)))
      .commit();
    if (res.succeeded) this.modRevision = res.header.revision;
    return res.succeeded;
  }
}
