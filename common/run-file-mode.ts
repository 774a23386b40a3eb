/**
 * The mode a run's own files are created with (its history, record, results, report, logs): readable by their
 * owner only. A live history is a real-time feed of who holds the lock and when each fault starts — on a shared
 * machine, enough to steer a verdict. The umask can only take bits away; to share a run, chmod its files (or copy
 * them) yourself. Here, below history/ and store/, because the journal writes with it too.
 */
export const RUN_FILE_MODE = 0o600;
