// Apache Curator's InterProcessMutex (Debian's libcurator-recipes-java 5.4, with Debian's ZooKeeper 3.8 jar) behind
// the lock-client protocol, used as Curator's documentation shows: CuratorFrameworkFactory.newClient with the
// getting-started ExponentialBackoffRetry(1000, 3), start(), new InterProcessMutex(client, path),
// acquire(time, unit), release(). The session timeout is the run's TTL (--ttl), as for every ZooKeeper lock here;
// the connection timeout is Curator's default.
//
// Fencing token: the czxid of our lock node. InterProcessMutex holders take turns in the nodes' sequence order,
// which is their creation order, and the leader assigns zxids in that order, so each holder's czxid exceeds every
// earlier one's (the same token as the kazoo and TS zookeeper rows). Curator does not hand the node out; the
// class's own hook for subclasses, the protected getLockPath() ("our" node for the calling thread), does — one
// checkExists() after the grant reads its Stat. getParticipantNodes() would list every contender's node, and
// which one is ours would be a guess by sort order.
//
// Protocol: one JSON request per stdin line, one reply per stdout line (docs/protocol.md).
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.api.ACLProvider;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Id;
import org.apache.zookeeper.data.Stat;
import org.apache.zookeeper.server.auth.DigestAuthenticationProvider;

public class CuratorMutexLock {
  static final String LOCK_ROOT = "/fencepost/locks/";
  static final ObjectMapper JSON = new ObjectMapper();

  /** Not acquired, definitely: Curator's acquire(time, unit) returned false (it removed its node). */
  static final class NotAcquired extends Exception {
    NotAcquired(String m) {
      super(m);
    }
  }

  /** InterProcessMutex with its node path readable: getLockPath() is protected, there for subclasses. */
  static final class FencedMutex extends InterProcessMutex {
    FencedMutex(CuratorFramework client, String path) {
      super(client, path);
    }

    String ourNode() {
      return getLockPath();
    }
  }

  final CuratorFramework client;
  final long acquireTimeoutMs;
  final Map<String, FencedMutex> mutexes = new HashMap<>();
  final Map<String, Long> tokens = new HashMap<>();

  CuratorMutexLock(JsonNode req) throws Exception {
    JsonNode endpoints = req.get("endpoints");
    CuratorFrameworkFactory.Builder builder =
        CuratorFrameworkFactory.builder()
            .connectString(endpoints.get("zookeeper").asText())
            .sessionTimeoutMs(req.get("ttlMs").asInt())
            .retryPolicy(new ExponentialBackoffRetry(1000, 3));
    JsonNode auth = endpoints.get("zookeeperAuth");
    if (auth != null && !auth.isNull()) {
      // The run's digest identity on the session and, through Curator's ACLProvider, on every node it creates
      // (the lock's parents too): no one else may read, change or delete them.
      String userPass = auth.get("username").asText() + ":" + auth.get("password").asText();
      // A mutable list: ZooKeeper's create() asks the ACL list contains(null), which List.of() answers with an NPE.
      List<ACL> acl = new ArrayList<>();
      acl.add(new ACL(ZooDefs.Perms.ALL, new Id("digest", DigestAuthenticationProvider.generateDigest(userPass))));
      builder
          .authorization("digest", userPass.getBytes(StandardCharsets.UTF_8))
          .aclProvider(
              new ACLProvider() {
                public List<ACL> getDefaultAcl() {
                  return acl;
                }

                public List<ACL> getAclForPath(String path) {
                  return acl;
                }
              });
    }
    client = builder.build();
    client.start();
    // Curator connects in the background; its documented wait for the first connection.
    if (!client.blockUntilConnected(Math.max(5_000, 3 * req.get("ttlMs").asInt()), TimeUnit.MILLISECONDS)) {
      client.close();
      throw new IllegalStateException("no ZooKeeper connection to " + endpoints.get("zookeeper").asText());
    }
    acquireTimeoutMs = req.get("acquireTimeoutMs").asLong();
  }

  ObjectNode acquire(String key) throws Exception {
    FencedMutex m = mutexes.computeIfAbsent(key, k -> new FencedMutex(client, LOCK_ROOT + k));
    if (!m.acquire(acquireTimeoutMs, TimeUnit.MILLISECONDS))
      throw new NotAcquired("InterProcessMutex.acquire returned false after " + acquireTimeoutMs + " ms");
    Stat stat = client.checkExists().forPath(m.ourNode());
    if (stat == null)
      throw new IllegalStateException("lock node " + m.ourNode() + " vanished right after the grant (session expired?)");
    tokens.put(key, stat.getCzxid());
    return JSON.createObjectNode().put("result", "held").put("token", Long.toString(stat.getCzxid()));
  }

  ObjectNode renew(String key) throws Exception {
    // ZooKeeper has nothing to extend (the session heartbeats); "still held" = our node still exists.
    FencedMutex m = mutexes.get(key);
    String node = m == null ? null : m.ourNode();
    Stat stat = node == null ? null : client.checkExists().forPath(node);
    boolean held = stat != null && tokens.containsKey(key) && stat.getCzxid() == tokens.get(key);
    return JSON.createObjectNode().put("result", held ? "held" : "lost");
  }

  ObjectNode release(String key) throws Exception {
    FencedMutex m = mutexes.get(key);
    ObjectNode r = JSON.createObjectNode().put("result", "released");
    if (m == null || !m.isAcquiredInThisProcess()) return r.put("held", false);
    tokens.remove(key);
    m.release();
    return r;
  }

  public static void main(String[] args) throws Exception {
    // Replies own stdout; anything else that prints (a library) goes to stderr, the client's log.
    PrintStream replies = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), true, "UTF-8");
    System.setOut(System.err);
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    CuratorMutexLock lock = null;
    for (String line; (line = in.readLine()) != null; ) {
      if (line.isBlank()) continue;
      JsonNode req = JSON.readTree(line);
      String op = req.path("op").asText();
      ObjectNode rep;
      try {
        if (op.equals("connect")) {
          lock = new CuratorMutexLock(req);
          rep = JSON.createObjectNode().put("ok", true);
        } else if (lock == null) {
          throw new IllegalStateException(op + " before a successful connect");
        } else if (op.equals("acquire")) {
          rep = lock.acquire(req.get("key").asText());
        } else if (op.equals("renew")) {
          rep = lock.renew(req.get("key").asText());
        } else if (op.equals("release")) {
          rep = lock.release(req.get("key").asText());
        } else if (op.equals("close")) {
          lock.client.close();
          rep = JSON.createObjectNode().put("result", "closed");
        } else {
          throw new IllegalArgumentException("unknown op " + op);
        }
      } catch (NotAcquired e) {
        rep = JSON.createObjectNode().put("result", "not-acquired").put("reason", e.getMessage());
      } catch (Exception e) {
        e.printStackTrace(System.err);
        String text = e.getClass().getSimpleName() + ": " + e.getMessage();
        rep = op.equals("connect") ? JSON.createObjectNode().put("error", text) : JSON.createObjectNode().put("result", "error").put("error", text);
      }
      rep.set("id", req.get("id"));
      replies.println(JSON.writeValueAsString(rep));
      if (op.equals("close")) break;
    }
    // Curator's and ZooKeeper's threads must not keep the process alive after close or end of input.
    System.exit(0);
  }
}
