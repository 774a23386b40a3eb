import { describe, expect, it } from 'vitest';
import { escapeHtml, jsonBlock, scriptJson } from './html.ts';

describe('escapeHtml', () => {
  it('escapes the five characters that can end text or an attribute', () => {
    expect(escapeHtml(`<script>alert("x")</script> & 'y'`)).toBe(
      '&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;y&#39;',
    );
  });
  it('renders null and undefined as empty and numbers as text', () => {
    expect(escapeHtml(undefined)).toBe('');
    expect(escapeHtml(null)).toBe('');
    expect(escapeHtml(42)).toBe('42');
  });
});

describe('scriptJson', () => {
  const hostile = {
    note: '</script><script>window.__pwned=1</script>',
    comment: '<!-- x -->',
    amp: 'a&b',
    line: 'a\u2028b\u2029c',
  };

  it('never contains < (so neither </script> nor <!--) and round-trips through JSON.parse', () => {
    const text = scriptJson(hostile);
    expect(text).not.toContain('<');
    expect(text).not.toContain('\u2028');
    expect(text).toContain('\\u003c/script\\u003e');
    expect(JSON.parse(text)).toEqual(hostile);
  });

  it('writes bigints as decimal strings (64-bit tokens)', () => {
    expect(JSON.parse(scriptJson({ token: 2n ** 63n }))).toEqual({ token: '9223372036854775808' });
  });

  it('jsonBlock is a JSON script element with an escaped id', () => {
    expect(jsonBlock('d"x', { a: '<b>' })).toBe(
      '<script type="application/json" id="d&quot;x">{"a":"\\u003cb\\u003e"}</script>',
    );
  });
});
