import type { VerdictWord } from '../checkers/verdict.ts';

/**
 * The verdict word in colour — VALID green, INVALID red, UNKNOWN yellow — as k6 and vitest colour theirs, and only
 * where a person reads it: the stream is a terminal and the user has not asked for none. Piped output (CI logs,
 * `> verdict.txt`, a script's grep) stays plain text, byte for byte.
 */

/** ANSI SGR: bold and the colour, then a reset. */
const SGR: Readonly<Record<VerdictWord, string>> = { VALID: '1;32', INVALID: '1;31', UNKNOWN: '1;33' };

/**
 * Whether to colour what is written to `stream`: a TTY, and NO_COLOR absent or empty — https://no-color.org: "when
 * present and not an empty string (regardless of its value), prevents the addition of ANSI color".
 */
export function wantsColour(
  stream: { readonly isTTY?: boolean },
  env: Readonly<Record<string, string | undefined>> = process.env,
): boolean {
  return stream.isTTY === true && (env.NO_COLOR === undefined || env.NO_COLOR === '');
}

/** `word` in its colour when `colour`, else as it is. */
export function paintVerdict(word: VerdictWord, colour: boolean): string {
  return colour ? `\x1b[${SGR[word]}m${word}\x1b[0m` : word;
}
