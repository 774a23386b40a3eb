/**
 * The Postgres `application_name` of the sessions a client slot opens with LockContext.postgresUrl (a lock that
 * lives in Postgres: advisory-lock). The kill-session fault finds the holder's lock session by it; the harness puts
 * it in the connection string it hands the client (harness/client-specs.ts), so a plugin's sessions carry it too.
 */
export function lockSessionName(slot: number): string {
  return `fencepost-lock-client-${slot}`;
}
