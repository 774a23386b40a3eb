import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { HarnessError } from '../../common/errors.ts';
import { runObjectName } from '../../common/run-object-name.ts';
import { CGROUP_FS, cgroup2Mount, removeCgroup } from '../../common/cgroup2.ts';
import {
  GRUDGE_CHAIN,
  MARK_BASE,
  RUN_COMMENT,
  dropCounts,
  grudgeText,
  healText,
  markRuleText,
  tableText,
  type DropCount,
  type NetMember,
} from './nft-ruleset.ts';

/** The record in the run's pid folder that names the table and cgroup of the run, for `cleanup` after kill -9. */
export const SERVER_NET_FILE = 'server-net.record';

/** The name of a run's nftables table and server cgroup folder (common/run-object-name.ts). */
export const netName = runObjectName;

/**
 * What a host lacks for server partitions, as one sentence with what to do; null when it has everything. Without
 * `nft`: all but the nft tool, which the run provisions like the servers (apt when root) before it asks again.
 */
export function serverNetMissing(need: { nft: boolean } = { nft: true }): string | null {
  if (process.platform !== 'linux') return 'server partitions need Linux (nftables and cgroup2)';
  if (process.getuid?.() !== 0)
    return 'server partitions need root: they put each server in a cgroup of its own and add an nftables table (run as root, e.g. sudo npm run jepsen -- … with --results="$(mktemp -d)")';
  if (need.nft) {
    try {
      execFileSync('nft', ['--version'], { stdio: 'ignore' });
    } catch {
      return 'server partitions need the nft tool: apt-get install -y nftables';
    }
  }
  if (!cgroup2Mount(fs.readFileSync('/proc/self/mounts', 'utf8')))
    return `server partitions need a cgroup2 file system mounted at or under ${CGROUP_FS} (mount -t cgroup2 none ${CGROUP_FS}/unified)`;
  return null;
}

function nft(input: string): void {
  execFileSync('nft', ['-f', '-'], { input, stdio: ['pipe', 'ignore', 'pipe'] });
}

function tableExists(table: string): boolean {
  try {
    execFileSync('nft', ['list', 'table', 'inet', table], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/**
 * The run's network for server↔server partitions: one cgroup2 per server under `<cgroup2>/fencepost-<run>`, and
 * the nftables table `inet fencepost-<run>` that marks and drops their links (nft-ruleset.ts). Created before any
 * server starts (a server's sockets belong to the cgroup it was in when it made them), removed after the servers
 * stopped, on every path out: the normal end, Ctrl-C, a crash, and `cleanup` after kill -9 (removeLeftoverNet).
 */
export class ServerNet {
  private readonly members = new Map<string, { cgroupPath: string; level: number; mark: number; dir: string }>();

  private constructor(
    readonly table: string,
    /** Absolute folder of the run's parent cgroup. */
    readonly cgroupDir: string,
    private readonly mount: string,
  ) {}

  /** Refuses (exit 254) with what is missing before anything is created. */
  static create(runDir: string, pidsDir: string): ServerNet {
    const missing = serverNetMissing();
    if (missing) throw new HarnessError('missing-dependency', missing);
    const mount = cgroup2Mount(fs.readFileSync('/proc/self/mounts', 'utf8'))!;
    const name = netName(runDir);
    const net = new ServerNet(name, path.join(mount, name), mount);
    // Recorded first: whatever exists of it from here on, cleanup can find and prove ours.
    fs.writeFileSync(
      path.join(pidsDir, SERVER_NET_FILE),
      JSON.stringify({ table: name, cgroup: net.cgroupDir, runDir: fs.realpathSync(runDir) }),
    );
    try {
      fs.mkdirSync(net.cgroupDir);
      nft(tableText(name, tableComment(runDir)));
    } catch (err) {
      // Half-made is not left behind: the caller registers the teardown only for a network that exists.
      removeNet(name, net.cgroupDir);
      throw new HarnessError(
        'missing-dependency',
        `could not set up the server network (${name}): ${(err as Error).message.trim()}`,
        { hint: 'check that `nft list ruleset` works and that cgroup2 is writable here' },
      );
    }
    return net;
  }

  /**
   * The cgroup a server must start in (the local backend moves it there before it execs), created with its mark
   * rule on first use; the same folder at every restart.
   */
  cgroupFor(node: string): string {
    const known = this.members.get(node);
    if (known) return known.dir;
    const dir = path.join(this.cgroupDir, node.replace(/[^A-Za-z0-9_-]/g, ''));
    if (!fs.existsSync(dir)) fs.mkdirSync(dir);
    const m = {
      dir,
      cgroupPath: path.relative(CGROUP_FS, dir),
      level: path.relative(this.mount, dir).split(path.sep).length,
      mark: MARK_BASE + this.members.size + 1,
    };
    nft(markRuleText(this.table, { name: node, ports: [], ...m }));
    this.members.set(node, m);
    return dir;
  }

  /** A server the table knows, with the ports the others dial to reach it now. */
  member(node: string, ports: number[]): NetMember {
    const m = this.members.get(node);
    if (!m) throw new Error(`${node} was not started in a cgroup of the run's server network`);
    return { name: node, cgroupPath: m.cgroupPath, level: m.level, mark: m.mark, ports };
  }

  /** Put a grudge in effect (replacing any other). */
  cut(members: readonly NetMember[], cuts: readonly [string, string][]): void {
    nft(grudgeText(this.table, members, cuts));
  }

  /** What the drops of the grudge in effect have held so far. */
  counts(): DropCount[] {
    const out = execFileSync('nft', ['-j', 'list', 'chain', 'inet', this.table, GRUDGE_CHAIN], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    return dropCounts(out.toString());
  }

  /** Lift the grudge; returns what its drops held. Never throws for a table already gone. */
  heal(): DropCount[] {
    let counts: DropCount[] = [];
    try {
      counts = this.counts();
      nft(healText(this.table));
    } catch {
      // removed already (teardown raced the heal)
    }
    return counts;
  }

  /** Remove the table and every cgroup (after the servers stopped). Never throws; says what it could not remove. */
  dispose(): string | null {
    return removeNet(this.table, this.cgroupDir);
  }
}

function tableComment(runDir: string): string {
  return `${RUN_COMMENT}${fs.realpathSync(runDir)}`;
}

function removeNet(table: string, cgroupDir: string): string | null {
  const left: string[] = [];
  if (tableExists(table)) {
    try {
      execFileSync('nft', ['delete', 'table', 'inet', table], { stdio: 'ignore' });
    } catch (err) {
      left.push(`nftables table inet ${table} (${(err as Error).message})`);
    }
  }
  if (!removeCgroup(cgroupDir)) left.push(`cgroup ${cgroupDir} (still busy)`);
  return left.length ? `could not remove ${left.join(' and ')}` : null;
}

/**
 * `cleanup` for a run whose harness is gone: its table and cgroups, if it recorded any — only under the names
 * recomputed from the run dir itself (a record naming anything else is left alone and said so). Returns how many
 * objects it removed.
 */
export function removeLeftoverNet(runDir: string, pidsDir: string, log: (line: string) => void): number {
  const file = path.join(pidsDir, SERVER_NET_FILE);
  if (!fs.existsSync(file)) return 0;
  let rec: { table?: unknown; cgroup?: unknown };
  try {
    rec = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    log(`left alone: ${file} is not readable as a record of ours`);
    return 0;
  }
  const name = netName(runDir);
  const mount = cgroup2Mount(fs.existsSync('/proc/self/mounts') ? fs.readFileSync('/proc/self/mounts', 'utf8') : '');
  const cgroup = mount ? path.join(mount, name) : null;
  if (rec.table !== name || (cgroup && rec.cgroup !== cgroup)) {
    log(
      `left alone: ${file} names ${String(rec.table)} / ${String(rec.cgroup)}, not this run's ${name}: not ours to remove`,
    );
    return 0;
  }
  const hadTable = process.getuid?.() === 0 && tableExists(name);
  const hadCgroup = cgroup !== null && fs.existsSync(cgroup);
  if (!hadTable && !hadCgroup) {
    fs.rmSync(file, { force: true });
    return 0;
  }
  const problem = removeNet(name, cgroup ?? '/nonexistent');
  if (problem) {
    log(`cleanup: ${problem} of ${runDir}`);
    return 0;
  }
  fs.rmSync(file, { force: true });
  log(
    `removed ${[hadTable ? `nftables table inet ${name}` : '', hadCgroup ? `cgroup ${cgroup}` : ''].filter(Boolean).join(' and ')} of ${runDir}`,
  );
  return (hadTable ? 1 : 0) + (hadCgroup ? 1 : 0);
}
