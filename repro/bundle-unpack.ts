import fs from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';

/**
 * The most a bundle's .tgz may unpack to. A real bundle is ~5 kB (a window of history, a scenario, a README, at most
 * a lock's code); 10 MiB is room for a long window and a compiled program, and keeps a 1 MiB .tgz of zeros from
 * filling the disk with 1 GiB (audit R12). The .tgz itself is held to the same bound.
 */
export const MAX_BUNDLE_BYTES = 10 * 1024 * 1024;
/** The most entries a bundle's .tgz may hold: four files, lock/ and a lock's few files; far more is not a bundle. */
export const MAX_BUNDLE_ENTRIES = 256;

/**
 * A bundle's .tgz unpacked into a fresh folder under `tmp`: every entry must sit inside one top folder, with no
 * absolute path, no `..` and no link (a tarball from elsewhere must not write outside its folder), and the whole
 * within MAX_BUNDLE_BYTES and MAX_BUNDLE_ENTRIES, judged from the listing before anything is written. Returns the
 * fresh folder (the caller removes it however the replay ends) and the bundle folder in it; a refusal is `bad`'s
 * error, with nothing left behind.
 */
export async function unpackBundle(
  tgz: string,
  tmp: string,
  bad: (problem: string) => Error,
): Promise<{ into: string; dir: string }> {
  if (fs.statSync(tgz).size > MAX_BUNDLE_BYTES) throw bad(`the .tgz is larger than ${mib(MAX_BUNDLE_BYTES)}`);
  let listing: string;
  try {
    listing = (await execa('tar', ['-tvzf', tgz], { maxBuffer: 4 << 20 })).stdout;
  } catch (err) {
    throw bad(`not a readable .tgz (${(err as { shortMessage?: string }).shortMessage ?? String(err)})`);
  }
  const lines = listing.split('\n').filter(Boolean);
  if (lines.length > MAX_BUNDLE_ENTRIES) throw bad(`it holds more than ${MAX_BUNDLE_ENTRIES} entries: not a bundle`);
  const bytes = lines.reduce((n, l) => n + entrySize(l), 0);
  if (bytes > MAX_BUNDLE_BYTES)
    throw bad(`it unpacks to more than ${mib(MAX_BUNDLE_BYTES)} (${bytes} bytes): not a bundle`);
  const names = (await execa('tar', ['-tzf', tgz])).stdout.split('\n').filter(Boolean);
  const tops = new Set(names.map((n) => n.split('/')[0]));
  const unsafe = names.find((n) => path.isAbsolute(n) || n.split('/').includes('..'));
  const link = lines.find((l) => !/^[-d]/.test(l));
  if (!names.length || tops.size !== 1 || unsafe || link)
    throw bad(
      unsafe
        ? `an entry escapes its folder: ${unsafe}`
        : link
          ? `it holds a link or device: ${link}`
          : 'a bundle .tgz holds one folder',
    );
  const into = fs.mkdtempSync(path.join(tmp, 'fencepost-replay-'));
  try {
    await execa('tar', ['-xzf', tgz, '-C', into, '--no-same-owner', '--no-same-permissions']);
  } catch (err) {
    fs.rmSync(into, { recursive: true, force: true });
    throw bad(`unpacking it failed (${(err as { shortMessage?: string }).shortMessage ?? String(err)})`);
  }
  return { into, dir: path.join(into, [...tops][0]) };
}

/**
 * An entry's size from a `tar -tv` line: GNU tar writes `mode owner/group size date time name`, bsdtar (macOS)
 * `mode links owner group size month day time name`. A line neither reads as is counted as too large.
 */
export function entrySize(line: string): number {
  const f = line.trim().split(/\s+/);
  const size = f[1]?.includes('/') ? f[2] : f[4];
  return size && /^\d+$/.test(size) ? Number(size) : MAX_BUNDLE_BYTES + 1;
}

const mib = (n: number) => `${n / 1024 / 1024} MiB`;
