import { isRecord } from '../common/is-record.ts';

/**
 * Reads the fields of one object of a JSON file the user wrote, each error naming the field's path
 * (`servers.redis.endpoints[1].port`) and what it must be, so that one message says what to fix. Fields the reader
 * was not asked for are refused too (`rest`): a misspelt `"i-own-ths"` must not be ignored on a file that decides
 * what fencepost may touch.
 */
export class JsonFields {
  private readonly read = new Set<string>();

  constructor(
    readonly at: string,
    private readonly obj: Record<string, unknown>,
    private readonly fail: (message: string) => never,
  ) {}

  static of(at: string, value: unknown, fail: (message: string) => never): JsonFields {
    if (!isRecord(value)) fail(`${at || 'the file'} must be a JSON object`);
    return new JsonFields(at, value as Record<string, unknown>, fail);
  }

  path(key: string): string {
    return this.at ? `${this.at}.${key}` : key;
  }

  has(key: string): boolean {
    return this.obj[key] !== undefined;
  }

  raw(key: string): unknown {
    this.read.add(key);
    return this.obj[key];
  }

  string(key: string, rule?: { pattern: RegExp; says: string }): string {
    const v = this.raw(key);
    if (typeof v !== 'string' || v === '') this.fail(`${this.path(key)} must be a non-empty string`);
    if (rule && !rule.pattern.test(v as string))
      this.fail(`${this.path(key)} must be ${rule.says}, got ${JSON.stringify(v)}`);
    return v as string;
  }

  optionalString(key: string, rule?: { pattern: RegExp; says: string }): string | null {
    return this.has(key) ? this.string(key, rule) : (this.raw(key), null);
  }

  int(key: string, min: number, max: number, fallback?: number): number {
    const v = this.raw(key);
    if (v === undefined && fallback !== undefined) return fallback;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max)
      this.fail(`${this.path(key)} must be a whole number from ${min} to ${max}, got ${JSON.stringify(v)}`);
    return v as number;
  }

  number(key: string, min: number, max: number): number | null {
    const v = this.raw(key);
    if (v === undefined) return null;
    if (typeof v !== 'number' || !Number.isFinite(v) || v < min || v > max)
      this.fail(`${this.path(key)} must be a number from ${min} to ${max}, got ${JSON.stringify(v)}`);
    return v as number;
  }

  bool(key: string, fallback: boolean): boolean {
    const v = this.raw(key);
    if (v === undefined) return fallback;
    if (typeof v !== 'boolean') this.fail(`${this.path(key)} must be true or false, got ${JSON.stringify(v)}`);
    return v as boolean;
  }

  oneOf<C extends string>(key: string, choices: readonly C[], fallback?: C): C {
    const v = this.raw(key);
    if (v === undefined && fallback !== undefined) return fallback;
    if (typeof v !== 'string' || !(choices as readonly string[]).includes(v))
      this.fail(`${this.path(key)} must be one of ${choices.join(', ')}, got ${JSON.stringify(v)}`);
    return v as C;
  }

  /** A list of non-empty strings (an argv, a host list); `min` entries at least. */
  strings(key: string, min = 1): string[] {
    const v = this.raw(key);
    if (!Array.isArray(v) || v.length < min || v.some((s) => typeof s !== 'string' || s === ''))
      this.fail(`${this.path(key)} must be a list of ${min > 0 ? `at least ${min} ` : ''}non-empty strings`);
    return v as string[];
  }

  array(key: string): unknown[] {
    const v = this.raw(key);
    if (!Array.isArray(v) || v.length === 0) this.fail(`${this.path(key)} must be a non-empty list`);
    return v as unknown[];
  }

  object(key: string): JsonFields {
    return JsonFields.of(this.path(key), this.raw(key), this.fail);
  }

  optionalObject(key: string): JsonFields | null {
    return this.has(key) ? this.object(key) : (this.raw(key), null);
  }

  /** The keys of this object, for maps (adapters by name, faults by name). */
  keys(): string[] {
    for (const k of Object.keys(this.obj)) this.read.add(k);
    return Object.keys(this.obj);
  }

  /** Refuses every field not read: a typo is an error, not an option quietly off. */
  rest(): void {
    const unknown = Object.keys(this.obj).filter((k) => !this.read.has(k));
    if (unknown.length)
      this.fail(`${unknown.map((k) => this.path(k)).join(', ')}: not a field fencepost knows (a typo?)`);
  }
}
