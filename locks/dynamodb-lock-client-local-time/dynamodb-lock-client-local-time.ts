import { dynamodbLockClientStrategy } from '../dynamodb-lock-client/dynamodb-lock-client.ts';

/**
 * dynamodb-lock-client's FailOpen client exactly as locks/dynamodb-lock-client runs it, with its documented option
 * `trustLocalTime: true` (README: "if set to true, when the client retrieves an existing lock, it will use local time
 * to determine if leaseDurationMs has elapsed"): every acquisition, heartbeat and release stamps the record with the
 * writer's wall clock (`lockAcquiredTimeUnixMs`), and a waiter waits `max(0, leaseDurationMs − (its now − stamp))`
 * instead of a whole lease on a timer.
 */
export default dynamodbLockClientStrategy('dynamodb-lock-client-local-time', true);
