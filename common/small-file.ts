import fs from 'node:fs';

/**
 * Reads a small file a user names (a target file, its CA), refusing anything else with why: a fifo, a device, a
 * folder, or a file past `maxBytes`. The open is non-blocking, so a fifo nobody writes cannot hang the process in
 * `open()` where no signal reaches it (audit R14: 11 min, deaf to SIGINT and SIGTERM); the checks are on the opened
 * descriptor, so the file cannot be swapped between them and the read. Throws an Error whose message says what it is.
 */
export function readSmallFile(file: string, maxBytes: number): string {
  const fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile()) throw new Error(`not a regular file (${kindOf(st)})`);
    if (st.size > maxBytes) throw new Error(`${st.size} bytes, more than the ${maxBytes} such a file needs`);
    return fs.readFileSync(fd, 'utf8');
  } finally {
    fs.closeSync(fd);
  }
}

function kindOf(st: fs.Stats): string {
  if (st.isFIFO()) return 'a fifo';
  if (st.isDirectory()) return 'a folder';
  if (st.isSocket()) return 'a socket';
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'a device';
  return 'not a file';
}
