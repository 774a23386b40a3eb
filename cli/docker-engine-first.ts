/**
 * A command that starts servers with --backend=docker: no engine is a usage error (254), said before any run folder
 * is made or any body loads. Each such command's `run` calls it first (run, doctor, lock-check, a nightly that runs).
 */
export async function dockerEngineFirst(backend: 'local' | 'docker'): Promise<void> {
  if (backend !== 'docker') return;
  const { connectDockerEngine } = await import('../cluster/docker/engine.ts');
  await connectDockerEngine();
}
