import { describe, expect, it } from 'vitest';
import { FramingError } from './framing.ts';
import { HpackDecoder } from './hpack.ts';
import { huffmanDecode } from './hpack-huffman.ts';

/** RFC 7541 Appendix C's examples, byte for byte: each block decoded in order on one decoder, as a connection does. */
const hex = (s: string) => Buffer.from(s.replace(/\s/g, ''), 'hex');
const pairs = (fields: Array<{ name: string; value: string }>) => fields.map((f) => `${f.name}: ${f.value}`);

const C3_OR_C4_FIELDS = [
  [':method: GET', ':scheme: http', ':path: /', ':authority: www.example.com'],
  [':method: GET', ':scheme: http', ':path: /', ':authority: www.example.com', 'cache-control: no-cache'],
  [':method: GET', ':scheme: https', ':path: /index.html', ':authority: www.example.com', 'custom-key: custom-value'],
];
const C3_OR_C4_TABLES = [
  { entries: [':authority: www.example.com'], size: 57 },
  { entries: ['cache-control: no-cache', ':authority: www.example.com'], size: 110 },
  { entries: ['custom-key: custom-value', 'cache-control: no-cache', ':authority: www.example.com'], size: 164 },
];

describe('HpackDecoder on RFC 7541 Appendix C', () => {
  it.each([
    [
      'C.3, requests without Huffman coding',
      [
        '8286 8441 0f77 7777 2e65 7861 6d70 6c65 2e63 6f6d',
        '8286 84be 5808 6e6f 2d63 6163 6865',
        '8287 85bf 400a 6375 7374 6f6d 2d6b 6579 0c63 7573 746f 6d2d 7661 6c75 65',
      ],
    ],
    [
      'C.4, requests with Huffman coding',
      [
        '8286 8441 8cf1 e3c2 e5f2 3a6b a0ab 90f4 ff',
        '8286 84be 5886 a8eb 1064 9cbf',
        '8287 85bf 4088 25a8 49e9 5ba9 7d7f 8925 a849 e95b b8e8 b4bf',
      ],
    ],
  ])('%s: each field, and the dynamic table after each block', (_, blocks) => {
    const decoder = new HpackDecoder();
    blocks.forEach((block, i) => {
      expect(pairs(decoder.decode(hex(block)))).toEqual(C3_OR_C4_FIELDS[i]);
      const { entries, size } = decoder.table;
      expect({ entries: pairs([...entries]), size }).toEqual(C3_OR_C4_TABLES[i]);
    });
  });

  it('C.5, responses in a 256-octet table: the oldest entries are evicted as new ones come', () => {
    const decoder = new HpackDecoder(256);
    const date = (s: string) => `date: Mon, 21 Oct 2013 20:13:${s} GMT`;
    expect(
      pairs(
        decoder.decode(
          hex(`4803 3330 3258 0770 7269 7661 7465 611d 4d6f 6e2c 2032 3120 4f63 7420 3230 3133 2032 303a 3133 3a32
               3120 474d 546e 1768 7474 7073 3a2f 2f77 7777 2e65 7861 6d70 6c65 2e63 6f6d`),
        ),
      ),
    ).toEqual([':status: 302', 'cache-control: private', date('21'), 'location: https://www.example.com']);
    expect(decoder.table.size).toBe(222);
    expect(pairs(decoder.decode(hex('4803 3330 37c1 c0bf')))).toEqual([
      ':status: 307',
      'cache-control: private',
      date('21'),
      'location: https://www.example.com',
    ]);
    expect(pairs([...decoder.table.entries])[0]).toBe(':status: 307');
    expect(decoder.table.size).toBe(222);
    const third = decoder.decode(
      hex(`88c1 611d 4d6f 6e2c 2032 3120 4f63 7420 3230 3133 2032 303a 3133 3a32 3220 474d 54c0 5a04 677a 6970
           7738 666f 6f3d 4153 444a 4b48 514b 425a 584f 5157 454f 5049 5541 5851 5745 4f49 553b 206d 6178 2d61
           6765 3d33 3630 303b 2076 6572 7369 6f6e 3d31`),
    );
    expect(pairs(third)).toEqual([
      ':status: 200',
      'cache-control: private',
      date('22'),
      'location: https://www.example.com',
      'content-encoding: gzip',
      'set-cookie: foo=ASDJKHQKBZXOQWEOPIUAXQWEOIU; max-age=3600; version=1',
    ]);
    expect(decoder.table.entries.map((e) => e.name)).toEqual(['set-cookie', 'content-encoding', 'date']);
    expect(decoder.table.size).toBe(215);
  });

  it('a table size update evicts at once, and an index past both tables is not HPACK', () => {
    const decoder = new HpackDecoder();
    decoder.decode(hex('8286 8441 0f77 7777 2e65 7861 6d70 6c65 2e63 6f6d'));
    decoder.decode(hex('20')); // size update to 0
    expect(decoder.table).toEqual({ entries: [], size: 0 });
    expect(() => decoder.decode(hex('be'))).toThrow(FramingError);
  });
});

describe('huffmanDecode', () => {
  it("decodes C.4.1's authority and refuses padding that is not EOS", () => {
    expect(huffmanDecode(hex('f1e3 c2e5 f23a 6ba0 ab90 f4ff')).toString()).toBe('www.example.com');
    expect(() => huffmanDecode(hex('f1e3 c2e5 f23a 6ba0 ab90 f4fe'))).toThrow(FramingError);
  });
});
