import { StatusLine } from './status-line.ts';

/**
 * Progress, nemesis events and warnings go to stderr; the closing summary to stdout (conclude-run.ts). In a terminal
 * the progress line stays at the bottom and each sentence takes a row of its own above it (status-line.ts).
 */
export const consoleStatus = new StatusLine(process.stderr);
export const consoleLog = (line: string) => consoleStatus.say(line);
