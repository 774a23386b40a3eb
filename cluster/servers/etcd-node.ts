import { Etcd3 } from 'etcd3';
import { ServerNode, type Command, type ServerNodeOptions } from '../server-node.ts';

export interface EtcdNodeOptions extends ServerNodeOptions {
  peerPort: number;
  /** `name=http://127.0.0.1:peerPort,…` for all members. */
  initialCluster: string;
  clusterToken: string;
}

export class EtcdNode extends ServerNode {
  protected override readonly serverUser = 'etcd';
  private readonly etcdOpts: EtcdNodeOptions;

  constructor(opts: EtcdNodeOptions) {
    super(opts);
    this.etcdOpts = opts;
  }

  get endpoint(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** etcd member name: the node name without brackets (etcd[1] → etcd1). */
  get memberName(): string {
    return this.name.replace(/[[\]]/g, '');
  }

  protected command(): Command {
    const peer = `http://127.0.0.1:${this.etcdOpts.peerPort}`;
    return {
      file: 'etcd',
      args: [
        '--name',
        this.memberName,
        '--data-dir',
        this.dataDir,
        '--listen-client-urls',
        this.endpoint,
        '--advertise-client-urls',
        this.endpoint,
        '--listen-peer-urls',
        peer,
        '--initial-advertise-peer-urls',
        peer,
        '--initial-cluster',
        this.etcdOpts.initialCluster,
        '--initial-cluster-token',
        this.etcdOpts.clusterToken,
        // Ignored when the data dir already has a member: a restart with data rejoins.
        '--initial-cluster-state',
        'new',
        // Loopback is fast: shorter elections make leader kills and pauses heal within a short run.
        '--heartbeat-interval',
        '50',
        '--election-timeout',
        '500',
        '--logger',
        'zap',
      ],
      user: this.serverUser,
    };
  }

  client(): Etcd3 {
    return new Etcd3({ hosts: [this.endpoint], dialTimeout: 1000 });
  }

  protected async probe(): Promise<void> {
    const c = this.client();
    try {
      // A linearizable read needs a leader: this succeeds only once the cluster has formed.
      await Promise.race([
        c.get('fencepost/ready').string(),
        new Promise((_, reject) => setTimeout(() => reject(new Error('get timed out after 1 s')), 1000)),
      ]);
    } finally {
      c.close();
    }
  }

  /** Status of this member: its id and the id of the leader it sees. */
  async status(): Promise<{ memberId: string; leader: string; version: string }> {
    const c = this.client();
    try {
      const s = await c.maintenance.status();
      return { memberId: String(s.header.member_id), leader: String(s.leader), version: s.version };
    } finally {
      c.close();
    }
  }

  async version(): Promise<string> {
    return (await this.status()).version;
  }
}
