/** The built-in lock strategies (one file each under workloads/strategies/), in the order the matrix shows them. */
export const BUILTIN_LOCKS = ['none', 'redis', 'redlock', 'redlock-npm', 'etcd', 'zookeeper', 'postgres'] as const;
export type BuiltinLock = (typeof BUILTIN_LOCKS)[number];

export function isPluginPath(lock: string): boolean {
  return /^(\.{1,2}\/|\/)/.test(lock) || /\.[cm]?[jt]s$/.test(lock);
}
