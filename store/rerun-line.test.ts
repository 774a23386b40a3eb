import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../harness/run-argv.ts';
import { rerunLine } from './rerun-line.ts';

describe('rerunLine', () => {
  it('replaces a space-form --seed instead of leaving its value behind as a stray argument', () => {
    const config = resolveConfig(['--lock=redis', '--seed', '5', '--ttl=100']);
    const line = rerunLine(config);
    expect(line).toBe('npm run jepsen -- --lock=redis --ttl=100 --seed=5');
    // The line must be one the CLI accepts and that resolves to the same run.
    const again = resolveConfig(line.replace('npm run jepsen -- ', '').split(' '));
    expect({ lock: again.lock, seed: again.seed, ttlMs: again.ttlMs }).toEqual({ lock: 'redis', seed: 5, ttlMs: 100 });
  });

  it('adds the seed the harness chose and the lock argv relied on', () => {
    expect(rerunLine({ argv: ['--nemesis=none'], lock: 'redlock', seed: 42 })).toBe(
      'npm run jepsen -- --lock=redlock --nemesis=none --seed=42',
    );
  });

  it('keeps every other argument as the run spelled it, space forms and flags alike', () => {
    expect(
      rerunLine({ argv: ['--ttl', '800', '--seed=3', '--watchdog', '--lock', 'etcd'], lock: 'etcd', seed: 9 }),
    ).toBe('npm run jepsen -- --ttl 800 --watchdog --lock etcd --seed=9');
  });
});
