import { describe, expect, it } from 'vitest';
import { portableArgv } from './bundle-lock.ts';

describe("a bundle's portable argv", () => {
  it("drops the machine's folders, names the bundle's lock and keeps only the file name of a path", () => {
    const argv = [
      '--lock',
      '/home/u/locks/my-lock.ts',
      '--results=/home/u/results',
      '--target',
      '/home/u/target.json',
      '--fencing',
      '--scenario',
      '/home/u/s.json',
      '--ttl=800',
      '--think',
      '40',
    ];
    expect(portableArgv(argv, 'lock/my-lock.ts')).toEqual([
      '--lock=lock/my-lock.ts',
      '--fencing',
      '--scenario=s.json',
      '--ttl=800',
      '--think=40',
    ]);
  });
});
