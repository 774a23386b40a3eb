/**
 * How a client reaches the run's DynamoDB: aws-sdk's `endpoint`, `region`, `accessKeyId` and `secretAccessKey` as they
 * are (spread them into its client's options), and the run's own lock table with its string hash key. The server is
 * dynalite, which checks only that requests name the run's key id (dynalite-guard.ts says what that does not check).
 */
export interface DynamoEndpoint {
  endpoint: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  table: string;
  partitionKey: string;
}
