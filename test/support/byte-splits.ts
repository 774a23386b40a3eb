import type { Frame, Framer } from '../../nemesis/proxy/framing.ts';

/**
 * Feeds `bytes` to a fresh framer in every way TCP could cut them in two (at each byte boundary) and once a byte
 * at a time, and returns what each feeding framed, named by how it was cut: a framer is right only if all agree.
 */
export function frameEveryWay(open: () => Framer, bytes: Buffer): Map<string, Frame[]> {
  const results = new Map<string, Frame[]>();
  for (let cut = 0; cut <= bytes.length; cut++) {
    const framer = open();
    results.set(`cut at ${cut}`, [...framer.feed(bytes.subarray(0, cut)), ...framer.feed(bytes.subarray(cut))]);
  }
  const framer = open();
  const oneByOne: Frame[] = [];
  for (let i = 0; i < bytes.length; i++) oneByOne.push(...framer.feed(bytes.subarray(i, i + 1)));
  results.set('a byte at a time', oneByOne);
  return results;
}
