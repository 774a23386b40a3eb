import type { FinalRead } from '../history/bank.ts';
import type { Journal } from '../history/journal.ts';
import type { AnyCluster } from '../cluster/cluster.ts';
import { sealRunHistory } from '../store/run-dir.ts';
import { Resource } from '../workloads/resource.ts';

/** The harness's own read of the final state and the ledger: the lost-update checker's ground truth. */
async function finalReads(journal: Journal, cluster: AnyCluster, accounts: number): Promise<void> {
  const resource = await Resource.connect(cluster.pg!.connectionConfig());
  try {
    for (let account = 0; account < accounts; account++) {
      journal.append({ process: 'harness', type: 'invoke', f: 'final-read', value: { account } });
      const final: FinalRead = await resource.finalRead(account);
      journal.append({ process: 'harness', type: 'ok', f: 'final-read', value: final });
    }
  } finally {
    await resource.close();
  }
}

/**
 * The history's normal end, once the clients stopped and before the servers stop: the harness's final read of every
 * account, then the journal closed and sealed, so the run's files are what `check <run-dir>` reads of it.
 */
export async function sealHistory(journal: Journal, cluster: AnyCluster, accounts: number, runDir: string) {
  await finalReads(journal, cluster, accounts);
  journal.close();
  sealRunHistory(runDir);
}
