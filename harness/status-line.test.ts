import { describe, expect, it } from 'vitest';
import { StatusLine } from './status-line.ts';

/** A terminal's rows as a person would see them: `\r\x1b[2K` erases the row, `\n` starts the next. */
function screen(written: string): string[] {
  const rows = [''];
  const clear = '\r\u001b[2K';
  for (const part of written.split(new RegExp(`(${clear.replace('[', '\\[')}|\n)`))) {
    if (part === clear) rows[rows.length - 1] = '';
    else if (part === '\n') rows.push('');
    else rows[rows.length - 1] += part;
  }
  return rows;
}

function recorder(isTTY: boolean, columns?: number) {
  let written = '';
  return { stream: { isTTY, columns, write: (t: string) => (written += t) }, written: () => written };
}

describe('the progress line in a terminal', () => {
  it('keeps every sentence on a row of its own, the progress line redrawn under the last one', () => {
    const out = recorder(true, 80);
    const status = new StatusLine(out.stream);
    status.show('    1/30 s  120 ops/s');
    status.say('fencepost: pause-holder: paused client 2 (pid 1234) for 3000 ms');
    status.show('    2/30 s  118 ops/s');
    status.say('fencepost: pause-holder: resumed client 2');
    status.show('    3/30 s  121 ops/s');
    status.end();
    expect(screen(out.written())).toEqual([
      'fencepost: pause-holder: paused client 2 (pid 1234) for 3000 ms',
      'fencepost: pause-holder: resumed client 2',
      '    3/30 s  121 ops/s',
      '',
    ]);
  });

  it('cuts the progress line to the width, so a redraw never leaves a wrapped row behind', () => {
    const out = recorder(true, 20);
    const status = new StatusLine(out.stream);
    status.show('x'.repeat(50));
    expect(screen(out.written())).toEqual([`${'x'.repeat(18)}…`]);
  });

  it('a sentence before any progress is a plain line', () => {
    const out = recorder(true, 80);
    new StatusLine(out.stream).say('fencepost: 5 nodes ready in 2100 ms');
    expect(out.written()).toBe('fencepost: 5 nodes ready in 2100 ms\n');
  });
});

describe('the progress when piped (no terminal)', () => {
  it('is one line per print, with no control characters', () => {
    const out = recorder(false);
    const status = new StatusLine(out.stream);
    status.show('   10/30 s  120 ops/s');
    status.say('fencepost: pause-holder: resumed client 2');
    status.show('   20/30 s  118 ops/s');
    status.end();
    expect(out.written()).toBe(
      '   10/30 s  120 ops/s\nfencepost: pause-holder: resumed client 2\n   20/30 s  118 ops/s\n',
    );
  });
});
