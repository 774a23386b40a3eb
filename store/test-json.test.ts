import { describe, expect, it } from 'vitest';
import { faultSummary, normalizeTestJson, rerunCommand } from './test-json.ts';

describe('normalizeTestJson', () => {
  it('reads the orchestrator shape', () => {
    const t = normalizeTestJson({
      argv: ['--lock=etcd'],
      seed: 7,
      config: { lock: 'etcd', ttlMs: 500 },
      versions: { etcd: '3.4' },
      startedAt: 'x',
      lock: 'etcd',
      faults: ['kill'],
      strategy: { token: 'monotonic' },
    });
    expect(t).toMatchObject({
      argv: ['--lock=etcd'],
      seed: 7,
      lock: 'etcd',
      faults: ['kill'],
      token: 'monotonic',
      interrupted: false,
      versions: { etcd: '3.4' },
    });
    expect(t.config.ttlMs).toBe(500);
  });

  it('survives garbage: nothing throws, unknowns stay unknown', () => {
    for (const raw of [undefined, null, 3, 'x', [], { argv: 'no', seed: 'no', versions: 5, config: [] }]) {
      const t = normalizeTestJson(raw, 'redis');
      expect(t.lock).toBe('redis');
      expect(t.seed).toBeNull();
      expect(t.argv).toEqual([]);
    }
  });

  it("reads how the clients reached the servers: 'direct' when it says so, else proxied (a format 0 record says nothing)", () => {
    expect(normalizeTestJson({ format: 1, clientNetwork: 'direct' }).clientNetwork).toBe('direct');
    expect(normalizeTestJson({ format: 1, clientNetwork: 'proxied' }).clientNetwork).toBe('proxied');
    expect(normalizeTestJson({ format: 0, lock: 'redis' }).clientNetwork).toBe('proxied');
  });
});

describe('rerunCommand', () => {
  const base = normalizeTestJson({
    argv: ['--lock=redis', '--nemesis=pause-holder'],
    seed: 99,
    config: {},
    lock: 'redis',
  });

  it('appends the seed the run used even when argv had none', () => {
    expect(rerunCommand(base)).toBe('npm run jepsen -- --lock=redis --nemesis=pause-holder --seed=99');
  });

  it('replaces a seed given either way, and adds --lock if argv relied on the default', () => {
    expect(rerunCommand({ ...base, argv: ['--seed', '5', '--ttl=100'] })).toBe(
      'npm run jepsen -- --lock=redis --ttl=100 --seed=99',
    );
    expect(rerunCommand({ ...base, argv: ['--seed=5'] })).toBe('npm run jepsen -- --lock=redis --seed=99');
  });

  it('quotes arguments a shell would split or expand', () => {
    expect(rerunCommand({ ...base, argv: ["--lock=./my lock's.ts"] })).toBe(
      `npm run jepsen -- '--lock=./my lock'\\''s.ts' --seed=99`,
    );
  });
});

describe('faultSummary', () => {
  it('prefers the resolved faults, then the asked-for list, then what was observed', () => {
    expect(faultSummary(normalizeTestJson({ faults: ['clock'], config: { nemesis: null } }), [])).toBe('clock');
    expect(faultSummary(normalizeTestJson({ config: { nemesis: [] } }), [])).toBe('none');
    expect(faultSummary(normalizeTestJson({ config: { nemesis: null } }), ['kill', 'kill'])).toBe(
      "kill (the strategy's default set)",
    );
  });
});
