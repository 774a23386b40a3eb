// etcd's clientv3/concurrency.Mutex (Debian's golang-etcd-server-dev, etcd 3.4) behind the lock-client protocol,
// used as the package's own example shows: clientv3.New, concurrency.NewSession, NewMutex(s, prefix), Lock(ctx),
// Unlock(ctx) — the client's defaults for everything else. One session per process: its lease is kept alive by
// the session's own goroutine (so the harness never needs to renew), with the run's TTL rounded up to seconds.
//
// Fencing token: m.Header().Revision, the revision of the response that granted the lock (the package documents
// Header as "the response header received from etcd on acquiring the lock"). A waiter is granted only after every
// earlier key's delete, at a revision above that delete, and etcd's revision never goes back, so each holder's
// token is larger than the one before.
//
// Protocol: one JSON request per stdin line, one reply per stdout line (docs/protocol.md).
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"log"
	"os"
	"strconv"
	"time"

	"go.etcd.io/etcd/clientv3"
	"go.etcd.io/etcd/clientv3/concurrency"
)

type request struct {
	ID        int64  `json:"id"`
	Op        string `json:"op"`
	Key       string `json:"key"`
	Endpoints struct {
		Etcd     []string `json:"etcd"`
		EtcdAuth *struct {
			Username string `json:"username"`
			Password string `json:"password"`
		} `json:"etcdAuth"`
	} `json:"endpoints"`
	TTLMs            int64 `json:"ttlMs"`
	AcquireTimeoutMs int64 `json:"acquireTimeoutMs"`
}

type reply map[string]interface{}

type lockClient struct {
	cli            *clientv3.Client
	session        *concurrency.Session
	acquireTimeout time.Duration
	mutexes        map[string]*concurrency.Mutex
}

// The lock's prefix: under fencepost/, the only keys the run's etcd role may touch.
const prefix = "fencepost/locks/"

func connect(r request) (*lockClient, error) {
	cfg := clientv3.Config{Endpoints: r.Endpoints.Etcd}
	if a := r.Endpoints.EtcdAuth; a != nil {
		cfg.Username, cfg.Password = a.Username, a.Password
	}
	cli, err := clientv3.New(cfg)
	if err != nil {
		return nil, err
	}
	ttlS := int((r.TTLMs + 999) / 1000)
	if ttlS < 1 {
		ttlS = 1
	}
	s, err := concurrency.NewSession(cli, concurrency.WithTTL(ttlS))
	if err != nil {
		cli.Close()
		return nil, err
	}
	return &lockClient{cli, s, time.Duration(r.AcquireTimeoutMs) * time.Millisecond, map[string]*concurrency.Mutex{}}, nil
}

func (c *lockClient) acquire(key string) reply {
	m := concurrency.NewMutex(c.session, prefix+key)
	ctx, cancel := context.WithTimeout(context.Background(), c.acquireTimeout)
	defer cancel()
	if err := m.Lock(ctx); err != nil {
		// Lock deletes its waiting key when its wait is cut short, and only a successful delete resets Key() to
		// "\x00": then the lock is definitely not ours. Any other failure (the first Txn's outcome unknown, the
		// cleanup failed) may leave our key in the queue: unknown.
		if ctx.Err() != nil && m.Key() == "\x00" {
			return reply{"result": "not-acquired", "reason": fmt.Sprintf("Mutex.Lock: %v (after %v)", err, c.acquireTimeout)}
		}
		return reply{"result": "error", "error": "Mutex.Lock: " + err.Error()}
	}
	c.mutexes[key] = m
	return reply{"result": "held", "token": strconv.FormatInt(m.Header().Revision, 10)}
}

func (c *lockClient) renew(key string) reply {
	m := c.mutexes[key]
	if m == nil {
		return reply{"result": "lost"}
	}
	select {
	case <-c.session.Done():
		return reply{"result": "lost"} // the keep-alive stopped: the lease, and our key with it, is gone or going
	default:
	}
	ctx, cancel := context.WithTimeout(context.Background(), c.acquireTimeout)
	defer cancel()
	resp, err := c.cli.Txn(ctx).If(m.IsOwner()).Commit()
	if err != nil {
		return reply{"result": "error", "error": "IsOwner txn: " + err.Error()}
	}
	if resp.Succeeded {
		return reply{"result": "held"}
	}
	return reply{"result": "lost"}
}

func (c *lockClient) release(key string) reply {
	m := c.mutexes[key]
	if m == nil {
		return reply{"result": "released", "held": false}
	}
	delete(c.mutexes, key)
	ctx, cancel := context.WithTimeout(context.Background(), c.acquireTimeout)
	defer cancel()
	if err := m.Unlock(ctx); err != nil {
		return reply{"result": "error", "error": "Mutex.Unlock: " + err.Error()}
	}
	return reply{"result": "released"}
}

func main() {
	log.SetOutput(os.Stderr)
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	out := json.NewEncoder(os.Stdout)
	var c *lockClient
	for in.Scan() {
		var r request
		if err := json.Unmarshal(in.Bytes(), &r); err != nil {
			log.Printf("unreadable request %q: %v", in.Text(), err)
			continue
		}
		var rep reply
		switch {
		case r.Op == "connect":
			var err error
			if c, err = connect(r); err != nil {
				rep = reply{"error": err.Error()}
			} else {
				rep = reply{"ok": true}
			}
		case c == nil:
			rep = reply{"result": "error", "error": r.Op + " before a successful connect"}
		case r.Op == "acquire":
			rep = c.acquire(r.Key)
		case r.Op == "renew":
			rep = c.renew(r.Key)
		case r.Op == "release":
			rep = c.release(r.Key)
		case r.Op == "close":
			c.session.Close()
			c.cli.Close()
			rep = reply{"result": "closed"}
		default:
			rep = reply{"result": "error", "error": "unknown op " + r.Op}
		}
		rep["id"] = r.ID
		if err := out.Encode(rep); err != nil {
			log.Fatalf("stdout: %v", err)
		}
		if r.Op == "close" {
			return
		}
	}
}
