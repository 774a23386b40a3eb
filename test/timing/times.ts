import fs from 'node:fs';
import { timesText, type TimedReport } from './file-times.ts';

/**
 * `npm run test:times -- [report.json] [--before=<earlier report.json>] [--top=N]`: each tier's wall and summed time
 * and the N slowest files of a vitest JSON report (default test-output/vitest.json, what `.ci/run` writes), beside an
 * earlier report's seconds when given, and each file that stays slow with its reason (slow-for-a-reason.ts).
 */
function main(argv: readonly string[]): number {
  let file = 'test-output/vitest.json';
  let before: string | undefined;
  let top = 15;
  for (const a of argv) {
    if (a.startsWith('--before=')) before = a.slice('--before='.length);
    else if (a.startsWith('--top=') && /^\d+$/.test(a.slice(6))) top = Number(a.slice(6));
    else if (!a.startsWith('--')) file = a;
    else {
      console.error(
        `test:times: unknown option ${a}\nusage: npm run test:times -- [report.json] [--before=<report.json>] [--top=N]`,
      );
      return 254;
    }
  }
  const read = (f: string): TimedReport | null => {
    try {
      return JSON.parse(fs.readFileSync(f, 'utf8')) as TimedReport;
    } catch (e) {
      console.error(
        `test:times: cannot read ${f} (${(e as Error).message}); run \`npm test -- --reporter=json --outputFile.json=${f}\` first`,
      );
      return null;
    }
  };
  const after = read(file);
  const earlier = before === undefined ? undefined : read(before);
  if (!after || earlier === null) return 254;
  console.log(timesText(after, top, earlier));
  return 0;
}

process.exitCode = main(process.argv.slice(2));
