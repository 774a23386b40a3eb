import { describe, expect, it } from 'vitest';
import { accessKeyIdOf, signedDynamoHeaders } from './sigv4.ts';

describe('accessKeyIdOf', () => {
  it('reads the key id out of the Credential of a SigV4 Authorization header', () => {
    const header =
      'AWS4-HMAC-SHA256 Credential=AKIA0123456789ABCDEF/20261206/us-east-1/dynamodb/aws4_request, SignedHeaders=host;x-amz-date;x-amz-target, Signature=00ff';
    expect(accessKeyIdOf(header)).toBe('AKIA0123456789ABCDEF');
  });

  it('finds Credential wherever it stands among the parameters', () => {
    expect(accessKeyIdOf('AWS4-HMAC-SHA256 SignedHeaders=host, Credential=AKIAX/20261206/x/y/z, Signature=1')).toBe(
      'AKIAX',
    );
  });

  it('is null without a header, for another scheme, or without a Credential', () => {
    expect(accessKeyIdOf(undefined)).toBeNull();
    expect(accessKeyIdOf('Basic Zm9vOmJhcg==')).toBeNull();
    expect(accessKeyIdOf('AWS4-HMAC-SHA256 SignedHeaders=host, Signature=1')).toBeNull();
  });
});

describe('signedDynamoHeaders', () => {
  it("signs as aws-sdk v2's V4 signer does (the same signature for the same request, key and instant)", () => {
    // aws-sdk 2.1693.0's AWS.Signers.V4 on this request gave this Authorization (2026-12-06, by hand).
    const h = signedDynamoHeaders(
      { accessKeyId: 'AKIATEST', secretAccessKey: 'secret', region: 'us-east-1' },
      '127.0.0.1:8000',
      'DescribeTable',
      '{"TableName":"abc"}',
      new Date('2026-12-06T15:00:00.000Z'),
    );
    expect(h.authorization).toBe(
      'AWS4-HMAC-SHA256 Credential=AKIATEST/20261206/us-east-1/dynamodb/aws4_request, SignedHeaders=host;x-amz-date;x-amz-target, Signature=3b9e4d6ef41a80edb0fee7242f0e178488cba687afecd81f43d93379f4f7212e',
    );
    expect(h['x-amz-date']).toBe('20261206T150000Z');
    expect(h['x-amz-target']).toBe('DynamoDB_20120810.DescribeTable');
    expect(accessKeyIdOf(h.authorization)).toBe('AKIATEST');
  });
});
