import { describe, expect, it } from 'vitest';
import { zkDigestAcl } from './zk-session.ts';

describe('zkDigestAcl', () => {
  it("names the identity as ZooKeeper's digest scheme does, user:base64(sha1(user:password)), with every permission", () => {
    // Expected digest from `echo -n fencepost:s3cret | openssl sha1 -binary | base64`.
    const [acl, ...rest] = zkDigestAcl({ username: 'fencepost', password: 's3cret' });
    expect(rest).toEqual([]);
    // Permission.ALL = READ | WRITE | CREATE | DELETE | ADMIN = 31. (The library's field is `permission`; its
    // published types call it `perms`, hence the object match.)
    expect(acl).toMatchObject({
      permission: 31,
      id: { scheme: 'digest', id: 'fencepost:f4mZwyysSVmBSez9WRT3YuCpU08=' },
    });
  });
});
