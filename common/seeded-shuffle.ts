/**
 * `items` in a seeded random order (Fisher–Yates, drawing from `random` from the last position down). A new array;
 * `items` is not touched. The draws are part of what a seed replays: the fault schedule, a grudge's sides and a
 * fault's picks all shuffle through here, so changing the order of draws changes what every stored seed replays.
 */
export function seededShuffle<T>(random: () => number, items: readonly T[]): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}
