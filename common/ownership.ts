import fs from 'node:fs';

/**
 * Whether a file or folder is this user's own, judged without following a symlink: a regular file or a folder
 * (as asked), owned by our uid, and — for `private` — writable by nobody else. What `cleanup` acts on and what the
 * harness writes into must pass this: on a shared machine, a name alone proves nothing (another user can create
 * `/var/tmp/fencepost-rootfs-x`, or a pid file, first).
 *
 * Returns null when it is ours, else why not, for the message that says what was left alone.
 */
export function notOurs(file: string, kind: 'file' | 'dir', opts: { private?: boolean } = {}): string | null {
  let st: fs.Stats;
  try {
    st = fs.lstatSync(file);
  } catch (err) {
    return `cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`;
  }
  if (st.isSymbolicLink()) return 'is a symlink';
  if (kind === 'dir' ? !st.isDirectory() : !st.isFile())
    return `is not a ${kind === 'dir' ? 'folder' : 'regular file'}`;
  const uid = process.getuid?.();
  if (uid !== undefined && st.uid !== uid) return `belongs to uid ${st.uid}, not to us (uid ${uid})`;
  if (opts.private && (st.mode & 0o022) !== 0) return `is writable by others (mode ${(st.mode & 0o777).toString(8)})`;
  return null;
}
