import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/**
 * `npm run bench -- <name> [args…]` runs `bench/<name>.ts`'s `run(args)`. Each benchmark is one file that
 * exports `run`; this dispatcher knows none of them by name, so adding one is adding a file.
 */
const here = path.dirname(fileURLToPath(import.meta.url));
const available = (): string[] =>
  readdirSync(here)
    .filter((f) => f.endsWith('.ts') && f !== 'run.ts' && !f.endsWith('.test.ts') && !f.endsWith('.d.ts'))
    .map((f) => f.slice(0, -'.ts'.length))
    .sort();

const [name, ...args] = process.argv.slice(2);
if (!name || !/^[a-z0-9][a-z0-9-]*$/.test(name) || !existsSync(path.join(here, `${name}.ts`))) {
  console.error(`${name ? `no benchmark "${name}"` : 'which benchmark?'}\nusage: npm run bench -- <${available().join('|')}> [args…]`);
  process.exit(254);
}
const mod = (await import(pathToFileURL(path.join(here, `${name}.ts`)).href)) as { run?: (args: string[]) => unknown };
if (typeof mod.run !== 'function') {
  console.error(`bench/${name}.ts exports no run(args) function`);
  process.exit(254);
}
await mod.run(args);
