import fs from 'node:fs';
import path from 'node:path';
import type { ExposedBy } from '../../examples/broken/exposed-by.ts';

/** The gallery of broken locks: every `examples/broken/<name>.ts` but the twins and the type. */
export const GALLERY = path.resolve('examples/broken');

export interface GalleryCase {
  name: string;
  /** What the file says catches it; null when it exports none (the cases' own test fails on that). */
  by: ExposedBy | null;
  /** Whether its `.fixed.ts` twin is beside it. */
  hasTwin: boolean;
}

/**
 * The cases are the files: a broken lock added to the folder is a case of the gallery's test without touching it,
 * caught by the scenario its `exposedBy.script` names.
 */
export async function galleryCases(): Promise<GalleryCase[]> {
  const names = fs
    .readdirSync(GALLERY)
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.fixed.ts') && f !== 'exposed-by.ts')
    .sort()
    .map((f) => f.slice(0, -'.ts'.length));
  return Promise.all(
    names.map(async (name) => {
      const mod = (await import(path.join(GALLERY, `${name}.ts`))) as { exposedBy?: ExposedBy };
      return { name, by: mod.exposedBy ?? null, hasTwin: fs.existsSync(path.join(GALLERY, `${name}.fixed.ts`)) };
    }),
  );
}

/** The scenario file of a case, resolved; null when the file exports no `exposedBy` (its test fails on that). */
export function scenarioOf(c: GalleryCase): string | null {
  return c.by ? path.resolve(GALLERY, c.by.script.scenario) : null;
}
