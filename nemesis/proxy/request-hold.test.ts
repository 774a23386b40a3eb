import { describe, expect, it } from 'vitest';
import type { Frame } from './framing.ts';
import { RequestHold } from './request-hold.ts';
import { respFraming } from './resp-framing.ts';

const GET = '*2\r\n$3\r\nGET\r\n$1\r\nk\r\n'; // 20 bytes
const SET = '*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n'; // 27 bytes

/** Feeds `chunks` through a RESP request framer and a hold aimed at `command`: what passed, what was held, the catch. */
function run(chunks: string[], command: string | null) {
  const framer = respFraming.open().requests;
  const hold = new RequestHold();
  const out = { pass: '', hold: '', caught: undefined as Frame | undefined };
  for (const c of chunks) {
    const chunk = Buffer.from(c, 'latin1');
    const split = hold.read(chunk, framer.feed(chunk), command !== null && !out.caught, (f) => f.name === command);
    out.pass += split.pass.toString('latin1');
    out.hold += split.hold.toString('latin1');
    out.caught ??= split.caught;
  }
  return { ...out, hold: out.hold, release: () => hold.release().toString('latin1') };
}

describe('RequestHold', () => {
  it('passes everything at once while no hold is armed, even a request cut mid-frame', () => {
    expect(run([GET.slice(0, 5), GET.slice(5)], null)).toMatchObject({ pass: GET, hold: '', caught: undefined });
  });

  it('lets the GET before it through and holds the SET from its first byte, with all after it', () => {
    const r = run([GET + SET, GET], 'SET');
    expect(r.pass).toBe(GET);
    expect(r.hold).toBe(SET + GET);
    expect(r.caught).toEqual({ start: 20, end: 47, name: 'SET', detail: 'k', value: 'v' });
  });

  it("keeps a request's first bytes back until it is whole, so a SET cut across chunks is held whole", () => {
    const r = run([GET + SET.slice(0, 10), SET.slice(10, 20), SET.slice(20)], 'SET');
    expect(r.pass).toBe(GET);
    expect(r.hold).toBe(SET);
    expect(r.caught?.start).toBe(20);
  });

  it('a GET cut across chunks waits to be whole, then passes: the armed hold is not its', () => {
    const r = run([GET.slice(0, 7), GET.slice(7)], 'SET');
    expect(r).toMatchObject({ pass: GET, hold: '', caught: undefined });
  });

  it('release gives back what waited to be whole and ends the hold', () => {
    const r = run([GET + SET.slice(0, 10)], 'SET');
    expect(r.pass).toBe(GET);
    expect(r.release()).toBe(SET.slice(0, 10));
  });
});
