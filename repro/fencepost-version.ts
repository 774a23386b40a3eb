import fs from 'node:fs';

/** This fencepost's version (its package.json): a bundle records which fencepost wrote it. */
export const FENCEPOST_VERSION: string = (
  JSON.parse(fs.readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
).version;
