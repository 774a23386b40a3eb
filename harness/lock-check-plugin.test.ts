import { describe, expect, it } from 'vitest';
import { HarnessError } from '../common/errors.ts';
import { loadPluginForCheck, pluginStepOf } from './lock-check-plugin.ts';

/** What `lock-check <plugin>` is refused with, or null when the plugin loads. */
async function refusal(lock: string): Promise<{ message: string; exitCode: number } | null> {
  try {
    await loadPluginForCheck(lock);
    return null;
  } catch (err) {
    if (!(err instanceof HarnessError)) throw err;
    return { message: err.message, exitCode: err.exitCode };
  }
}

describe('lock-check of a plugin module: the steps before the protocol', () => {
  it('loads a plugin as a run loads it', async () => {
    const strategy = await loadPluginForCheck('./test/fixtures/plugins/single-redis.ts');
    expect(strategy.name).toBe('single-redis');
    expect(strategy.moduleUrl).toMatch(/^file:\/\/.*\/test\/fixtures\/plugins\/single-redis\.ts$/);
  });

  it('names the load step for a file that is not there, or a module whose import throws (exit 254)', async () => {
    expect(await refusal('./test/fixtures/plugins/no-such-plugin.ts')).toEqual({
      message: 'lock-check ./test/fixtures/plugins/no-such-plugin.ts: FAIL at step "load the module": no such file',
      exitCode: 254,
    });
    const r = await refusal('./test/fixtures/plugins/throws-at-import.ts');
    expect(r?.exitCode).toBe(254);
    expect(r?.message).toBe(
      'lock-check ./test/fixtures/plugins/throws-at-import.ts: FAIL at step "load the module": the module failed to load: throws-at-import fixture: a missing configuration at import',
    );
  });

  it("names the declaration step for a default export that is not a LockStrategy, with the loader's reasons", async () => {
    const r = await refusal('./test/fixtures/plugins/not-a-strategy.ts');
    expect(r?.exitCode).toBe(254);
    expect(r?.message).toMatch(
      /^lock-check \.\/test\/fixtures\/plugins\/not-a-strategy\.ts: FAIL at step "its default export is a LockStrategy": .*connect/,
    );
    expect(r?.message).not.toContain('--lock=');
  });

  it("tells the steps apart by the loader's words", () => {
    expect(pluginStepOf('--lock=./x.ts is not a LockStrategy: connect must be a function.')).toBe('declare');
    expect(pluginStepOf('--lock=./x.ts: the module failed to load: boom')).toBe('load');
  });
});
