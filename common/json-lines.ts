/**
 * JSON.parse that also remembers the line of every value, by its path (`cells[2].expect` → 7), so an error about a
 * user's file can name the line to fix. A syntax error says its line and column instead of an offset.
 */
export interface LocatedJson {
  value: unknown;
  /** 1-based line where the value at each path starts; the root is ''. */
  lineOf: Map<string, number>;
}

export class JsonSyntaxError extends Error {
  constructor(
    message: string,
    readonly line: number,
    readonly column: number,
  ) {
    super(message);
    this.name = 'JsonSyntaxError';
  }
}

/** Deeper than any file of ours needs; the parser recurses, and a 100 000-deep file must be an answer, not a stack overflow. */
export const MAX_JSON_DEPTH = 64;

export function parseJsonWithLines(text: string): LocatedJson {
  const p = new LineParser(text);
  const v = p.value('');
  p.skip();
  if (p.i < text.length) p.fail('unexpected text after the JSON value');
  return { value: v, lineOf: p.lineOf };
}

/** A recursive-descent JSON reader that keeps its line and column as it goes. */
class LineParser {
  readonly lineOf = new Map<string, number>();
  i = 0;
  private depth = 0;
  private line = 1;
  private lineStart = 0;

  constructor(private readonly text: string) {}

  fail(what: string): never {
    const near = this.i < this.text.length ? `"${this.text[this.i]}"` : 'the end of the file';
    throw new JsonSyntaxError(`${what} at ${near}`, this.line, this.i - this.lineStart + 1);
  }

  skip(): void {
    const { text } = this;
    while (this.i < text.length && ' \t\r\n'.includes(text[this.i])) {
      if (text[this.i] === '\n') {
        this.line++;
        this.lineStart = this.i + 1;
      }
      this.i++;
    }
  }

  value(at: string): unknown {
    this.skip();
    this.lineOf.set(at, this.line);
    const c = this.text[this.i];
    const nests = c === '{' || c === '[';
    if (nests && ++this.depth > MAX_JSON_DEPTH) this.fail(`nesting deeper than ${MAX_JSON_DEPTH} levels`);
    try {
      return c === '{' ? this.object(at) : c === '[' ? this.array(at) : c === '"' ? this.str() : this.scalar();
    } finally {
      if (nests) this.depth--;
    }
  }

  private str(): string {
    const { text } = this;
    const start = this.i;
    this.i++;
    while (this.i < text.length && text[this.i] !== '"') {
      if (text[this.i] === '\n') this.fail('a line break inside a string');
      this.i += text[this.i] === '\\' ? 2 : 1;
    }
    if (this.i >= text.length) this.fail('an unterminated string');
    this.i++;
    return JSON.parse(text.slice(start, this.i)) as string;
  }

  private object(at: string): Record<string, unknown> {
    const { text } = this;
    this.i++;
    const out: Record<string, unknown> = {};
    this.skip();
    if (text[this.i] === '}') return (this.i++, out);
    for (;;) {
      this.skip();
      if (text[this.i] !== '"') this.fail('expected a "quoted" key');
      const key = this.str();
      this.skip();
      if (text[this.i] !== ':') this.fail(`expected ":" after "${key}"`);
      this.i++;
      // defineProperty: a "__proto__" key is a key, as in JSON.parse, not the object's prototype.
      Object.defineProperty(out, key, {
        value: this.value(at ? `${at}.${key}` : key),
        enumerable: true,
        writable: true,
        configurable: true,
      });
      this.skip();
      if (text[this.i] === ',') this.i++;
      else if (text[this.i] === '}') return (this.i++, out);
      else this.fail('expected "," or "}"');
    }
  }

  private array(at: string): unknown[] {
    const { text } = this;
    this.i++;
    const out: unknown[] = [];
    this.skip();
    if (text[this.i] === ']') return (this.i++, out);
    for (;;) {
      out.push(this.value(`${at}[${out.length}]`));
      this.skip();
      if (text[this.i] === ',') this.i++;
      else if (text[this.i] === ']') return (this.i++, out);
      else this.fail('expected "," or "]"');
    }
  }

  private scalar(): unknown {
    const m = /^(?:true|false|null|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)/.exec(this.text.slice(this.i, this.i + 64));
    if (!m) return this.fail('expected a value');
    this.i += m[0].length;
    return JSON.parse(m[0]) as unknown;
  }
}
