import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { headingAnchor } from '../common/heading-anchor.ts';

/**
 * Every doc a comment, a message, a hint or a workflow cites must exist — anchor included — and so must every
 * relative link of the docs themselves. Code cited the README by section title, and three titles it cited were gone
 * ("A lock in any language"); now it cites pages by path (`docs/protocol.md#timeouts`), and this test resolves them.
 */
const ROOT = path.resolve(import.meta.dirname, '..');
const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], {
  cwd: ROOT,
  encoding: 'utf8',
})
  .split('\n')
  .filter((f) => f && fs.existsSync(path.join(ROOT, f)))
  .filter((f) => !f.startsWith('test/corpus/') && f !== 'package-lock.json')
  .filter((f) => /\.(ts|js|mjs|cjs|py|go|java|ya?ml|json|sh|md)$|^\.ci\/run$|\/run$/.test(f));
const text = new Map(files.map((f) => [f, fs.readFileSync(path.join(ROOT, f), 'utf8')]));

const slug = headingAnchor;

function anchors(file: string): Set<string> {
  const md = fs.readFileSync(path.join(ROOT, file), 'utf8').replace(/```[\s\S]*?```/g, '');
  return new Set([...md.matchAll(/^#{1,6} (.+)$/gm)].map((m) => slug(m[1])));
}

/** `file[#anchor]` → what is wrong with it, or null. */
function problem(file: string, anchor: string | undefined): string | null {
  if (!fs.existsSync(path.join(ROOT, file))) return `${file} does not exist`;
  if (anchor && !anchors(file).has(anchor)) return `${file} has no heading #${anchor}`;
  return null;
}

describe('doc paths', () => {
  it('every docs/… page, DEVELOPMENT.md and CONTRIBUTING.md a file cites exists, with its anchor', () => {
    const cited: string[] = [];
    const bad: string[] = [];
    for (const [file, body] of text) {
      for (const m of body.matchAll(
        /(?<![\w/.-])((?:docs\/[\w.-]+\.md)|DEVELOPMENT\.md|CONTRIBUTING\.md)(?:#([\w-]+))?/g,
      )) {
        cited.push(m[1]);
        const p = problem(m[1], m[2]);
        if (p) bad.push(`${file}: ${m[0]}: ${p}`);
      }
    }
    expect(cited.length).toBeGreaterThan(20);
    expect(bad).toEqual([]);
  });

  it('no file cites a README section by title any more (they went stale): cite docs/<page>.md', () => {
    const bad: string[] = [];
    for (const [file, body] of text)
      for (const m of (file === 'test/doc-paths.test.ts' ? '' : body).matchAll(
        /README,? ["*][A-Z][^"*\n]{2,60}["*]|README's "[^"]+"/g,
      ))
        bad.push(`${file}: ${m[0]}`);
    expect(bad).toEqual([]);
  });

  it('every relative link in the markdown pages resolves, anchors included', () => {
    const bad: string[] = [];
    for (const [file, body] of text) {
      if (!file.endsWith('.md')) continue;
      for (const m of body.replace(/```[\s\S]*?```/g, '').matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = m[1];
        if (/^(https?:|mailto:)/.test(target)) continue;
        const [p, anchor] = target.split('#');
        const resolved = p ? path.relative(ROOT, path.resolve(path.dirname(path.join(ROOT, file)), p)) : file;
        const why =
          resolved.endsWith('.md') || !p
            ? problem(resolved, anchor)
            : fs.existsSync(path.join(ROOT, resolved))
              ? null
              : `${resolved} does not exist`;
        if (why) bad.push(`${file}: (${target}): ${why}`);
      }
    }
    expect(bad).toEqual([]);
  });

  it('keeps the README a front door: at most 300 lines and 20 KB, no dates', () => {
    const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    expect(readme.split('\n').length).toBeLessThanOrEqual(300);
    expect(Buffer.byteLength(readme)).toBeLessThanOrEqual(20 * 1024);
    // A date in the prose is a lab notebook's; the run folder's name in the sample summary is not prose.
    const prose = readme.replace(/```[\s\S]*?```/g, '');
    expect(prose.match(/\b20\d\d-\d\d-\d\d\b/g) ?? []).toEqual([]);
  });
});
