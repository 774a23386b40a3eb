import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * Every page under docs/ is listed in the docs index (docs/README.md), so a reader who starts there can find it:
 * npm-lock-rows.md alone documented the `stillHeld` and `libraryCrash` hooks, and no page linked it (issue 50).
 */
const DOCS = fileURLToPath(new URL('../docs/', import.meta.url));

/** The pages a markdown text links by a relative `page.md` (an anchor after it allowed). */
function linkedPages(markdown: string): Set<string> {
  return new Set([...markdown.matchAll(/\]\(([\w.-]+\.md)(?:#[^)]*)?\)/g)].map((m) => m[1]));
}

describe('the docs index', () => {
  it('reads the pages a text links, anchors and all, not the pages of another folder', () => {
    expect([...linkedPages('[a](a.md) [b](b.md#x-y) [c](../README.md) [d](https://x/d.md)')]).toEqual(['a.md', 'b.md']);
  });

  it('lists every page of docs/', () => {
    const listed = linkedPages(fs.readFileSync(`${DOCS}README.md`, 'utf8'));
    const pages = fs.readdirSync(DOCS).filter((f) => f.endsWith('.md') && f !== 'README.md');
    expect(pages.filter((p) => !listed.has(p))).toEqual([]);
  });
});
