import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { mappedRooms, ROOMS, roomsMarkdown, withoutSentence } from './rooms.ts';

const ROOT = path.join(import.meta.dirname, '..');

describe("the rooms' map", () => {
  it('says what every room owns, and of no room that is gone', () => {
    const rooms = mappedRooms(ROOT);
    expect(withoutSentence(rooms), 'rooms without a sentence in ROOMS (matrix/rooms.ts)').toEqual([]);
    expect(withoutSentence(Object.keys(ROOMS), Object.fromEntries(rooms.map((r) => [r, '']))), 'gone').toEqual([]);
  });

  it('names a room without a sentence', () => {
    expect(withoutSentence(['common/', 'faults/', 'cli.ts'], { 'common/': 'x', 'cli.ts': 'y' })).toEqual(['faults/']);
  });

  it('lists the rooms of the code and of its data, not the pages', () => {
    const rooms = mappedRooms(ROOT);
    for (const r of ['repro/', 'scenario/', 'scenarios/', 'target/', 'locks/', 'cli.ts', 'index.ts'])
      expect(rooms).toContain(r);
    for (const r of ['docs/', 'results/', '.github/', 'eslint.config.js', 'vitest.config.ts'])
      expect(rooms).not.toContain(r);
  });

  it('puts each room on its floor, lowest first, and the rooms outside the floors last', () => {
    const lines = roomsMarkdown(ROOT).split('\n');
    expect(lines.slice(0, 3)).toEqual([
      '| floor | room | what it owns | imports |',
      '|---|---|---|---|',
      `| 0 | \`common/\` | ${ROOMS['common/']} | — |`,
    ]);
    expect(lines).toContain(`| 12 | \`cli.ts\` | ${ROOMS['cli.ts']} | \`cli/\`, \`common/\`, \`harness/\` |`);
    expect(lines).toContain(`| 13 | \`bin/\` | ${ROOMS['bin/']} | \`cli.ts\` |`);
    expect(lines.at(-1)).toBe(`| — | \`test/\` | ${ROOMS['test/']} | — |`);
  });
});
