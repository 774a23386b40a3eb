import fs from 'node:fs';
import path from 'node:path';
import zookeeper from 'node-zookeeper-client';
import { ZK_USER } from '../credentials.ts';
import { fourLetter } from './four-letter.ts';
import { ServerNode, type Command, type ServerNodeOptions } from '../server-node.ts';

export const ZK_JAR = '/usr/share/java/zookeeper.jar';
/** Small tick so session timeouts of a few seconds are allowed (min session timeout = 2 ticks). */
export const ZK_TICK_MS = 250;

export interface ZkNodeOptions extends ServerNodeOptions {
  /** 1-based server id (ZooKeeper's myid). */
  myid: number;
  /** `server.N=127.0.0.1:peer:election` lines for every member. */
  serverLines: string[];
  /** The run's digest password of ZK_USER (cluster/credentials.ts): the ACL of every lock node names it. */
  password: string;
}

export class ZkNode extends ServerNode {
  protected override readonly serverUser = 'zookeeper';
  private readonly zkOpts: ZkNodeOptions;

  constructor(opts: ZkNodeOptions) {
    super(opts);
    this.zkOpts = opts;
  }

  private get configFile(): string {
    return path.join(this.home, 'zoo.cfg');
  }

  protected override async prepare(): Promise<void> {
    fs.writeFileSync(path.join(this.dataDir, 'myid'), `${this.zkOpts.myid}\n`);
    fs.writeFileSync(
      this.configFile,
      [
        `tickTime=${ZK_TICK_MS}`,
        'initLimit=20',
        'syncLimit=4',
        `dataDir=${this.dataDir}`,
        `clientPort=${this.port}`,
        'clientPortAddress=127.0.0.1',
        `minSessionTimeout=${2 * ZK_TICK_MS}`,
        'maxSessionTimeout=60000',
        'admin.enableServer=false',
        // mntr: its zk_uptime is the server's elapsed-time clock, the one sessions expire by (clock-rate's probe).
        '4lw.commands.whitelist=srvr,ruok,stat,mntr',
        'quorumListenOnAllIPs=false',
        ...this.zkOpts.serverLines,
        '',
      ].join('\n'),
    );
  }

  protected command(): Command {
    return {
      file: 'java',
      args: [
        // A ZooKeeper test node needs little: a small serial-GC heap and the C1 JIT start fastest on 2 cores.
        '-Xms32m',
        '-Xmx256m',
        '-XX:+UseSerialGC',
        '-XX:TieredStopAtLevel=1',
        '-Xshare:auto',
        `-Dfencepost.node=${this.dir}`,
        '-Dzookeeper.admin.enableServer=false',
        '-cp',
        ZK_JAR,
        'org.apache.zookeeper.server.quorum.QuorumPeerMain',
        this.configFile,
      ],
      user: this.serverUser,
    };
  }

  /** The lock clients' digest identity. */
  get userAuth(): { username: string; password: string } {
    return { username: ZK_USER, password: this.zkOpts.password };
  }

  /** Its quorum and election ports (its own `server.N=` line): where the other servers reach it. */
  get peerPorts(): number[] {
    const own = this.zkOpts.serverLines.find((l) => l.startsWith(`server.${this.zkOpts.myid}=`));
    return (own?.split('=')[1] ?? '').split(':').slice(1).map(Number).filter(Number.isInteger);
  }

  get connectString(): string {
    return `127.0.0.1:${this.port}`;
  }

  protected async probe(): Promise<void> {
    // `srvr` answers "not currently serving requests" until the ensemble has a quorum; then a real client call.
    const srvr = await fourLetter(this.port, 'srvr', 500);
    if (!/Mode: (leader|follower|standalone)/.test(srvr)) throw new Error(srvr.trim() || 'empty srvr reply');
    await new Promise<void>((resolve, reject) => {
      const client = zookeeper.createClient(this.connectString, { sessionTimeout: 2000, retries: 0, spinDelay: 100 });
      const timer = setTimeout(() => {
        client.close();
        reject(new Error('client connect timed out after 1.5 s'));
      }, 1500);
      client.once('connected', () => {
        client.exists('/zookeeper', (err) => {
          clearTimeout(timer);
          client.close();
          if (err) reject(err);
          else resolve();
        });
      });
      client.connect();
    });
  }

  /** `leader`, `follower`, or null when not serving. */
  async mode(): Promise<string | null> {
    try {
      return /Mode: (\w+)/.exec(await fourLetter(this.port, 'srvr'))?.[1] ?? null;
    } catch {
      return null;
    }
  }

  /**
   * `mntr`'s zk_uptime: ms of the server's `Time.currentElapsedTime()` (System.nanoTime) since it started serving —
   * the clock its session expiry runs on, read from outside — and the harness's time half-way through the read.
   * Undefined when the node did not answer.
   */
  async uptimeSample(): Promise<{ uptimeMs: number; atMs: number } | undefined> {
    if (!this.running || this.paused) return undefined;
    try {
      const before = performance.now();
      const mntr = await fourLetter(this.port, 'mntr', 500);
      const after = performance.now();
      const uptime = /^zk_uptime\s+(\d+)/m.exec(mntr)?.[1];
      return uptime === undefined ? undefined : { uptimeMs: Number(uptime), atMs: (before + after) / 2 };
    } catch {
      return undefined;
    }
  }

  async version(): Promise<string> {
    const srvr = await fourLetter(this.port, 'srvr');
    return /Zookeeper version: ([^,-\s]+)/.exec(srvr)?.[1] ?? 'unknown';
  }
}
