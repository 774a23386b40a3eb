import { describe, expect, it } from 'vitest';
import { MEMORY_DIR_MIN_FREE_BYTES, memoryDirRefusal } from './memory-dir.ts';

const TMPFS = 0x01021994;
const EXT4 = 0xef53;
const GiB = 2 ** 30;

describe('memoryDirRefusal', () => {
  it('takes a writable tmpfs with room', () => {
    expect(memoryDirRefusal({ type: TMPFS, freeBytes: 24 * GiB, writable: true })).toBeNull();
    expect(memoryDirRefusal({ type: TMPFS, freeBytes: MEMORY_DIR_MIN_FREE_BYTES, writable: true })).toBeNull();
  });

  it('refuses, saying why: missing, on disk, read-only, or too small (a container’s 64 MB /dev/shm)', () => {
    expect(memoryDirRefusal(null)).toBe('/dev/shm does not exist');
    expect(memoryDirRefusal({ type: EXT4, freeBytes: 100 * GiB, writable: true })).toBe('/dev/shm is not a tmpfs');
    expect(memoryDirRefusal({ type: TMPFS, freeBytes: 24 * GiB, writable: false })).toBe('/dev/shm is not writable');
    expect(memoryDirRefusal({ type: TMPFS, freeBytes: 64 * 2 ** 20, writable: true })).toBe(
      '/dev/shm has 64 MB free, under 512 MB',
    );
    expect(memoryDirRefusal({ type: TMPFS, freeBytes: MEMORY_DIR_MIN_FREE_BYTES - 1, writable: true })).not.toBeNull();
  });
});
