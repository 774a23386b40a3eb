/*
 * fencepost clock shim. LD_PRELOAD it to move a process's clocks — a wall-clock offset (a jump) and a
 * rate per clock family — that the harness can change while the process runs.
 *
 * Why not libfaketime: Debian's build resolves the real functions with dlsym(RTLD_NEXT), which
 * allocates; jemalloc (redis-server) reads the clock while it initialises, so the first clock call
 * recursed into a half-built allocator and redis-server hung at start-up. Calling the syscall needs
 * nothing, so nothing can recurse. The price is a real syscall instead of the vDSO per call. For the
 * same reason the waits below call their syscalls directly.
 *
 * Why an mmapped file: a change must be seen at the very next clock read, without a signal or any
 * cooperation from the process. A MAP_SHARED mapping is the page-cache page the harness pwrite()s.
 *
 * The record (native endian; clock-record.ts is its other half and must change with it):
 *   off size
 *    0   8  int64  offset_ns   the jump added to the REALTIME family. Files of 8..95 bytes are the
 *                              old layout (this field only) and still work: offset only, no rates.
 *    8   4  uint32 magic       0x4b435046 ("FPCK" little-endian)
 *   12   4  uint32 version     1
 *   16   8  uint64 seq         seqlock: odd while the harness writes, +2 per change
 *   24   8  uint64 reads       clock reads this file's processes served moved (offset or rate active)
 *   32   8  uint64 waits       waits they stretched or shrank (scope process, monotonic rate != 1)
 *   40   4  uint32 scope       0 = wall (clock values only), 1 = process (waits scaled too)
 *   44   4  uint32 unused
 *   48  24  segment[0]        REALTIME family: CLOCK_REALTIME(_COARSE), gettimeofday, time
 *   72  24  segment[1]        MONOTONIC family: CLOCK_MONOTONIC(_COARSE)
 *             a segment = { int64 base_mono_ns, int64 base_drift_ns, int64 rate_ppb }
 * reads and waits are the only fields the shim writes (atomic adds, outside the seqlock); the
 * harness never writes them.
 *
 * The maths (clock-segment.ts computes exactly the same, integers only, so the two cannot disagree
 * by a rounding): with m the real CLOCK_MONOTONIC now and x = max(0, m - base_mono_ns),
 *   drift(m)     = base_drift_ns + trunc(x * (rate_ppb - 1e9) / 1e9)   (128-bit product)
 *   MONOTONIC    = m + drift_mono(m)              = base_fake + x * r   with base_fake = base_mono + base_drift
 *   REALTIME     = real_realtime + offset_ns + drift_rt(m)
 * A rate change writes base_mono_ns = now and base_drift_ns = drift(now) under the old segment, so the
 * new segment starts where the old one's fake time was: no discontinuity. A jump moves offset_ns.
 * Every segment is measured on the real monotonic clock because that is the one clock the harness
 * (Node: process.hrtime) can read to the nanosecond; a base taken on another clock than the reader's
 * would make the join inexact. The wall clock therefore runs at r relative to real elapsed time,
 * and a real step of the host's wall clock still passes through, as it does for the offset.
 *
 * Why monotonic never goes backwards: r >= 0 (the harness refuses less; a negative rate_ppb read
 * here counts as 0), so each segment is non-decreasing in m. The harness makes seq odd, *then*
 * reads its base_mono_ns, then writes and makes seq even. A reader reads the real clock between two
 * reads of an even, equal seq, so an old-segment reading used some m <= base_mono_ns and gave at most
 * drift(base) (the new segment's start), and a new-segment reading uses m >= base_mono_ns.
 * The COARSE clocks are served from their precise clocks (more resolution than asked for is allowed,
 * and a process never sees a coarse value that lags a precise one it was served before).
 * CLOCK_MONOTONIC_RAW and CLOCK_BOOTTIME pass through: the harness cannot read them to set a base.
 *
 * Scope process: relative waits (nanosleep, clock_nanosleep, usleep, sleep, poll, ppoll, select,
 * pselect, epoll_wait, epoll_pwait) last their timeout in *fake* monotonic time: the shim waits in
 * slices of at most SLICE_NS real, re-reading the record and the fake clock after each, so a rate
 * change (a heal) reaches a process already waiting within one slice. Under r = 0 a timed wait
 * therefore lasts as long as the freeze does (plus one slice), never forever on its own; a wait with
 * no timeout was never bounded and is not touched. An absolute clock_nanosleep deadline is read on
 * the fake clock.
 *
 * pthread_cond_timedwait (the JVM's Thread.sleep, Object.wait and timed parks all end there) takes an
 * absolute deadline the caller computed from its fake clock; handed to the kernel as it is, it meets
 * the real clock: a process whose clock is ahead oversleeps by the whole drift (under r = 2 a JVM's
 * 250 ms Thread.sleep took 0.5, 1, 2, 4, 8 … s real, each longer by the drift gathered so far — a
 * ZooKeeper server's pings and session checks with it — and still the drift after the rate went
 * back to 1), one whose clock is behind spins (a 300 ms Thread.sleep at r = 0.5 cost 1.27 M clock
 * reads). So while the condition's clock family is moved by a rate, its deadline is read on the fake
 * clock and waited for in real slices, as the relative waits are, through pthread_cond_clockwait on
 * the real monotonic clock (a symbol this file does not interpose, so nothing needs dlsym). A slice
 * that ends before the fake deadline returns 0, a spurious wakeup, which every caller must already
 * take (it re-checks its predicate and waits again): looping here instead could miss a signal sent
 * between two slices. An offset alone (a jump, no rate) leaves the deadline as it is: that is what a
 * real wall-clock step does to a wait already computed. Timers (timer_settime, setitimer, timerfd),
 * sem_timedwait and pthread_mutex_timedlock are NOT scaled.
 *
 * If FENCEPOST_CLOCK_FILE is unset, or the file is missing or shorter than 8 bytes at the first
 * clock call, nothing moves for the life of the process: the harness creates the file first.
 */
#define _GNU_SOURCE
/* glibc's prototype for gettimeofday changed (struct timezone * became void *); hiding it lets
 * our definition compile against either. */
#define gettimeofday fencepost_hidden_gettimeofday
#include <sys/time.h>
#undef gettimeofday
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/select.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define NS_PER_S 1000000000LL
#define UNIT_PPB 1000000000LL
#define RECORD_MAGIC 0x4b435046u
#define RECORD_VERSION 1u
#define RECORD_BYTES 96
#define SCOPE_PROCESS 1u
#define SLICE_NS 100000000LL /* 100 ms: how late a rate change may reach a stretched wait */
#define KERNEL_SIGSET_BYTES (_NSIG / 8)

struct segment {
  int64_t base_mono_ns;
  int64_t base_drift_ns;
  int64_t rate_ppb;
};

struct record {
  int64_t offset_ns;
  uint32_t magic;
  uint32_t version;
  uint64_t seq;
  uint64_t reads;
  uint64_t waits;
  uint32_t scope;
  uint32_t unused;
  struct segment seg[2];
};
_Static_assert(sizeof(struct record) == RECORD_BYTES, "record layout");

enum { SEG_REALTIME = 0, SEG_MONOTONIC = 1 };

/* What the process maps: the full record, the old 8-byte offset, or nothing. */
struct mapping {
  volatile struct record *rec;  /* NULL unless a full record */
  const volatile int64_t *legacy; /* NULL unless an old offset-only file */
  int writable;                 /* reads/waits can be counted (the file was opened O_RDWR) */
};

static const struct mapping no_mapping = {NULL, NULL, 0};
static const struct mapping *mapped; /* NULL until the first clock call */
static struct mapping the_mapping;

static void map_clock_file(struct mapping *out) {
  *out = no_mapping;
  const char *path = getenv("FENCEPOST_CLOCK_FILE");
  if (path == NULL || path[0] == '\0') return;
  /* Read-write so the counters can grow; a process under another account (Postgres when the
   * harness is root) may only read it, and then runs uncounted. */
  int writable = 1;
  int fd = (int)syscall(SYS_openat, AT_FDCWD, path, O_RDWR | O_CLOEXEC);
  if (fd < 0) {
    writable = 0;
    fd = (int)syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
  }
  if (fd < 0) return;
  struct stat st;
  /* Touching a mapping past the end of the file is SIGBUS, so a short file counts as missing. */
  if (fstat(fd, &st) == 0 && st.st_size >= 8) {
    size_t len = st.st_size >= RECORD_BYTES ? RECORD_BYTES : 8;
    void *m = mmap(NULL, len, writable ? PROT_READ | PROT_WRITE : PROT_READ, MAP_SHARED, fd, 0);
    if (m != MAP_FAILED) {
      volatile struct record *r = m;
      if (len == RECORD_BYTES && r->magic == RECORD_MAGIC && r->version == RECORD_VERSION) {
        out->rec = r;
        out->writable = writable;
      } else {
        out->legacy = m;
      }
    }
  }
  close(fd);
}

static const struct mapping *mapping(void) {
  const struct mapping *p = __atomic_load_n(&mapped, __ATOMIC_ACQUIRE);
  if (p != NULL) return p;
  /* Threads may race here (the JVM starts many at once): each maps, one wins, losers unmap. */
  struct mapping mine;
  map_clock_file(&mine);
  static int claimed;
  if (__atomic_exchange_n(&claimed, 1, __ATOMIC_ACQ_REL) == 0) {
    the_mapping = mine;
    __atomic_store_n(&mapped, &the_mapping, __ATOMIC_RELEASE);
    return &the_mapping;
  }
  if (mine.rec != NULL) munmap((void *)mine.rec, RECORD_BYTES);
  if (mine.legacy != NULL) munmap((void *)mine.legacy, 8);
  while ((p = __atomic_load_n(&mapped, __ATOMIC_ACQUIRE)) == NULL) syscall(SYS_sched_yield);
  return p;
}

/* One consistent copy of the record, with the real reading of `clock` taken inside the seqlock
 * window (see the header for why that ordering keeps monotonic clocks monotonic). */
struct snapshot {
  int64_t offset_ns;
  uint32_t scope;
  struct segment seg[2];
};

static int64_t ts_ns(const struct timespec *ts) { return (int64_t)ts->tv_sec * NS_PER_S + ts->tv_nsec; }

static void ns_ts(int64_t ns, struct timespec *ts) {
  int64_t sec = ns / NS_PER_S, rem = ns % NS_PER_S;
  if (rem < 0) { rem += NS_PER_S; sec -= 1; } /* tv_nsec must stay in [0, 1e9) */
  ts->tv_sec = (time_t)sec;
  ts->tv_nsec = (long)rem;
}

static int read_real(clockid_t id, int64_t *ns) {
  struct timespec ts;
  if (syscall(SYS_clock_gettime, id, &ts) != 0) return -1;
  *ns = ts_ns(&ts);
  return 0;
}

/* A writer that died between making seq odd and even would leave readers spinning: after this long
 * (real time) they use what is there. A time, not a count of yields: on a loaded machine the harness
 * can be descheduled mid-write for longer than 100000 yields take, and a reader that gave up then
 * read a torn record (the monotonic clock was seen to step back). */
#define SEQ_GIVE_UP_NS 2000000000LL

/* Whether a reader has retried for SEQ_GIVE_UP_NS since its first retry (read on retries only). */
static int waited_too_long(int64_t *since) {
  int64_t now;
  if (read_real(CLOCK_MONOTONIC, &now) != 0) return 1;
  if (*since < 0) *since = now;
  return now - *since >= SEQ_GIVE_UP_NS;
}

static int snapshot_with(volatile struct record *rec, struct snapshot *s, clockid_t real_id, int64_t *real,
                         int64_t *mono) {
  int64_t since = -1;
  for (int tries = 0;; tries++) {
    uint64_t s1 = __atomic_load_n(&rec->seq, __ATOMIC_ACQUIRE);
    int give_up = tries > 0 && waited_too_long(&since);
    if ((s1 & 1) && !give_up) {
      syscall(SYS_sched_yield);
      continue;
    }
    s->offset_ns = rec->offset_ns;
    s->scope = rec->scope;
    for (int i = 0; i < 2; i++) {
      s->seg[i].base_mono_ns = rec->seg[i].base_mono_ns;
      s->seg[i].base_drift_ns = rec->seg[i].base_drift_ns;
      s->seg[i].rate_ppb = rec->seg[i].rate_ppb;
    }
    if (read_real(real_id, real) != 0) return -1;
    if (mono != NULL && read_real(CLOCK_MONOTONIC, mono) != 0) return -1;
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    if (__atomic_load_n(&rec->seq, __ATOMIC_RELAXED) == s1 || give_up) return 0;
  }
}

static int unit(const struct segment *g) { return g->rate_ppb == UNIT_PPB && g->base_drift_ns == 0; }

static int64_t drift(const struct segment *g, int64_t mono) {
  int64_t rate = g->rate_ppb < 0 ? 0 : g->rate_ppb;
  int64_t x = mono - g->base_mono_ns;
  if (x < 0) x = 0;
  __int128 d = (__int128)x * (rate - UNIT_PPB) / UNIT_PPB; /* C division truncates, as BigInt's does */
  return g->base_drift_ns + (int64_t)d;
}

static void count(const struct mapping *m, volatile uint64_t *field) {
  if (m->writable) __atomic_fetch_add(field, 1, __ATOMIC_RELAXED);
}

/* The fake monotonic now; also says the segment and scope in force. Returns -1 if the clock failed. */
static int fake_mono(const struct mapping *m, int64_t *fake, struct snapshot *s) {
  int64_t mono;
  if (snapshot_with(m->rec, s, CLOCK_MONOTONIC, &mono, NULL) != 0) return -1;
  *fake = mono + drift(&s->seg[SEG_MONOTONIC], mono);
  return 0;
}

static int fake_gettime(const struct mapping *m, clockid_t id, struct timespec *ts) {
  struct snapshot s;
  int64_t real, mono;
  if (id == CLOCK_MONOTONIC || id == CLOCK_MONOTONIC_COARSE) {
    if (snapshot_with(m->rec, &s, CLOCK_MONOTONIC, &real, NULL) != 0) return -1;
    const struct segment *g = &s.seg[SEG_MONOTONIC];
    if (!unit(g)) {
      real += drift(g, real);
      count(m, &m->rec->reads);
    }
  } else {
    /* REALTIME family; the monotonic reading is only needed while the rate is not 1. */
    uint64_t s0 = __atomic_load_n(&m->rec->seq, __ATOMIC_ACQUIRE);
    int need_mono = (s0 & 1) || m->rec->seg[SEG_REALTIME].rate_ppb != UNIT_PPB;
    if (snapshot_with(m->rec, &s, CLOCK_REALTIME, &real, need_mono ? &mono : NULL) != 0) return -1;
    const struct segment *g = &s.seg[SEG_REALTIME];
    if (!need_mono && g->rate_ppb != UNIT_PPB) { /* the rate changed under us: read again */
      return fake_gettime(m, id, ts);
    }
    if (!unit(g) || s.offset_ns != 0) {
      real += s.offset_ns + (need_mono ? drift(g, mono) : g->base_drift_ns);
      count(m, &m->rec->reads);
    }
  }
  ns_ts(real, ts);
  return 0;
}

static int64_t legacy_offset(const volatile int64_t *p) {
  /* The kernel does not promise that an 8-byte pwrite() is a single store; re-reading until two
   * reads agree keeps us from using a value caught in the middle of the copy. */
  int64_t a = *p, b;
  while ((b = *p) != a) a = b;
  return a;
}

int clock_gettime(clockid_t id, struct timespec *ts) {
  const struct mapping *m = mapping();
  int moved = id == CLOCK_REALTIME || id == CLOCK_REALTIME_COARSE || id == CLOCK_MONOTONIC ||
              id == CLOCK_MONOTONIC_COARSE;
  if (m->rec != NULL && moved) return fake_gettime(m, id, ts);
  int rc = (int)syscall(SYS_clock_gettime, id, ts);
  if (rc == 0 && m->legacy != NULL && (id == CLOCK_REALTIME || id == CLOCK_REALTIME_COARSE)) {
    int64_t off = legacy_offset(m->legacy);
    if (off != 0) ns_ts(ts_ns(ts) + off, ts);
  }
  return rc;
}

/* Node's Date.now() and Redis's mstime() read the clock through gettimeofday, not clock_gettime. */
int gettimeofday(struct timeval *tv, void *tz) {
  if (tz != NULL && syscall(SYS_gettimeofday, NULL, tz) != 0) return -1;
  if (tv == NULL) return 0;
  struct timespec ts;
  if (clock_gettime(CLOCK_REALTIME, &ts) != 0) return -1;
  tv->tv_sec = ts.tv_sec;
  tv->tv_usec = ts.tv_nsec / 1000;
  return 0;
}

time_t time(time_t *out) {
  struct timespec ts;
  if (clock_gettime(CLOCK_REALTIME, &ts) != 0) return (time_t)-1;
  if (out != NULL) *out = ts.tv_sec;
  return ts.tv_sec;
}

/* ---- waits (scope process) ------------------------------------------------------------------ */

/* The rate the process's waits follow, or UNIT_PPB when they are left alone. */
static int64_t wait_rate(const struct mapping *m) {
  if (m->rec == NULL) return UNIT_PPB;
  volatile struct record *r = m->rec;
  if (r->scope != SCOPE_PROCESS) return UNIT_PPB;
  int64_t rate = r->seg[SEG_MONOTONIC].rate_ppb;
  return rate < 0 ? 0 : rate;
}

/* One slice of a wait: `real_ns` of real time at most. Returns what the syscall returned; 0 means
 * "timed out, nothing happened", so the caller may wait again. */
typedef long (*wait_fn)(void *ctx, int64_t real_ns);

/*
 * Waits until `fake_ns` of fake monotonic time have passed or `fn` reports something. The remaining
 * fake time is turned into real time at the rate in force for each slice of at most SLICE_NS.
 */
static long stretched_wait(const struct mapping *m, int64_t fake_ns, wait_fn fn, void *ctx) {
  struct snapshot s;
  int64_t start;
  if (fake_mono(m, &start, &s) != 0) return fn(ctx, fake_ns);
  count(m, &m->rec->waits);
  for (;;) {
    int64_t now;
    if (fake_mono(m, &now, &s) != 0) return fn(ctx, 0);
    int64_t left = start + fake_ns - now;
    if (left <= 0) return fn(ctx, 0); /* one non-blocking look, as a wait that timed out gives */
    int64_t rate = s.scope == SCOPE_PROCESS ? (s.seg[SEG_MONOTONIC].rate_ppb < 0 ? 0 : s.seg[SEG_MONOTONIC].rate_ppb)
                                            : UNIT_PPB;
    int64_t real = SLICE_NS;
    if (rate > 0) {
      __int128 want = ((__int128)left * UNIT_PPB + rate - 1) / rate;
      if (want < real) real = (int64_t)want;
    }
    long rc = fn(ctx, real);
    if (rc != 0) return rc;
  }
}

static int64_t ms_ns(int ms) { return (int64_t)ms * 1000000LL; }

static int ns_ms_up(int64_t ns) { return (int)((ns + 999999) / 1000000); }

/* -- sleeps */

static long sleep_slice(void *ctx, int64_t real_ns) {
  (void)ctx;
  struct timespec ts;
  ns_ts(real_ns, &ts);
  long rc = syscall(SYS_clock_nanosleep, CLOCK_MONOTONIC, 0, &ts, NULL);
  return rc == 0 ? 0 : -1; /* errno (EINTR) is set */
}

/* The whole relative sleep; 0 or -1 with errno, like nanosleep. */
static int sleep_ns(const struct mapping *m, int64_t ns, struct timespec *rem) {
  if (wait_rate(m) == UNIT_PPB) {
    struct timespec req;
    ns_ts(ns, &req);
    return (int)syscall(SYS_clock_nanosleep, CLOCK_MONOTONIC, 0, &req, rem);
  }
  long rc = stretched_wait(m, ns, sleep_slice, NULL);
  if (rc != 0 && rem != NULL) rem->tv_sec = 0, rem->tv_nsec = 0; /* interrupted: the caller re-reads the clock */
  return rc == 0 ? 0 : -1;
}

int nanosleep(const struct timespec *req, struct timespec *rem) {
  if (req == NULL || req->tv_nsec < 0 || req->tv_nsec >= NS_PER_S || req->tv_sec < 0) {
    errno = req == NULL ? EFAULT : EINVAL;
    return -1;
  }
  return sleep_ns(mapping(), ts_ns(req), rem);
}

int clock_nanosleep(clockid_t id, int flags, const struct timespec *req, struct timespec *rem) {
  const struct mapping *m = mapping();
  int moved = id == CLOCK_REALTIME || id == CLOCK_MONOTONIC;
  int saved = errno, rc;
  if (!moved || m->rec == NULL || wait_rate(m) == UNIT_PPB || req == NULL) {
    if (moved && m->rec != NULL && (flags & TIMER_ABSTIME) && req != NULL) {
      /* An absolute deadline is on the fake clock: turn it into what is left of it. */
      struct timespec now;
      if (clock_gettime(id, &now) != 0) return errno;
      int64_t left = ts_ns(req) - ts_ns(&now);
      rc = left <= 0 ? 0 : sleep_ns(m, left, NULL);
    } else {
      rc = (int)syscall(SYS_clock_nanosleep, id, flags, req, rem);
    }
  } else {
    int64_t left = ts_ns(req);
    if (flags & TIMER_ABSTIME) {
      struct timespec now;
      if (clock_gettime(id, &now) != 0) return errno;
      left -= ts_ns(&now);
    }
    rc = left <= 0 ? 0 : sleep_ns(m, left, (flags & TIMER_ABSTIME) ? NULL : rem);
  }
  int err = rc == 0 ? 0 : errno;
  errno = saved; /* clock_nanosleep returns its error and leaves errno alone */
  return err;
}

int usleep(useconds_t us) { return sleep_ns(mapping(), (int64_t)us * 1000, NULL); }

unsigned int sleep(unsigned int s) {
  struct timespec rem = {0, 0};
  if (sleep_ns(mapping(), (int64_t)s * NS_PER_S, &rem) == 0) return 0;
  return (unsigned int)rem.tv_sec + (rem.tv_nsec > 0);
}

/* -- poll, ppoll */

struct poll_ctx {
  struct pollfd *fds;
  nfds_t n;
  const sigset_t *mask;
};

static long poll_slice(void *ctx, int64_t real_ns) {
  struct poll_ctx *c = ctx;
  struct timespec ts;
  ns_ts(real_ns, &ts);
  return syscall(SYS_ppoll, c->fds, c->n, &ts, c->mask, KERNEL_SIGSET_BYTES);
}

static int poll_ns(struct pollfd *fds, nfds_t n, int64_t ns /* < 0: forever */, const sigset_t *mask) {
  const struct mapping *m = mapping();
  struct poll_ctx c = {fds, n, mask};
  if (ns < 0) return (int)syscall(SYS_ppoll, fds, n, NULL, mask, KERNEL_SIGSET_BYTES);
  if (ns == 0 || wait_rate(m) == UNIT_PPB) return (int)poll_slice(&c, ns);
  return (int)stretched_wait(m, ns, poll_slice, &c);
}

int poll(struct pollfd *fds, nfds_t n, int timeout_ms) { return poll_ns(fds, n, timeout_ms < 0 ? -1 : ms_ns(timeout_ms), NULL); }

int ppoll(struct pollfd *fds, nfds_t n, const struct timespec *ts, const sigset_t *mask) {
  return poll_ns(fds, n, ts == NULL ? -1 : ts_ns(ts), mask);
}

/* -- epoll_wait, epoll_pwait (how libuv, and so Node, waits for its timers) */

struct epoll_ctx {
  int epfd;
  struct epoll_event *ev;
  int max;
  const sigset_t *mask;
};

static long epoll_slice(void *ctx, int64_t real_ns) {
  struct epoll_ctx *c = ctx;
  return syscall(SYS_epoll_pwait, c->epfd, c->ev, c->max, ns_ms_up(real_ns), c->mask, KERNEL_SIGSET_BYTES);
}

int epoll_pwait(int epfd, struct epoll_event *ev, int max, int timeout_ms, const sigset_t *mask) {
  const struct mapping *m = mapping();
  struct epoll_ctx c = {epfd, ev, max, mask};
  if (timeout_ms <= 0 || wait_rate(m) == UNIT_PPB)
    return (int)syscall(SYS_epoll_pwait, epfd, ev, max, timeout_ms, mask, KERNEL_SIGSET_BYTES);
  return (int)stretched_wait(m, ms_ns(timeout_ms), epoll_slice, &c);
}

int epoll_wait(int epfd, struct epoll_event *ev, int max, int timeout_ms) {
  return epoll_pwait(epfd, ev, max, timeout_ms, NULL);
}

/* -- select, pselect: the sets are rewritten by each slice, so each slice starts from a copy */

struct select_ctx {
  int n;
  fd_set *sets[3];
  fd_set saved[3];
  const sigset_t *mask;
};

static long select_slice(void *ctx, int64_t real_ns) {
  struct select_ctx *c = ctx;
  for (int i = 0; i < 3; i++)
    if (c->sets[i] != NULL) *c->sets[i] = c->saved[i];
  struct timespec ts;
  ns_ts(real_ns, &ts);
  struct {
    const sigset_t *ss;
    size_t len;
  } sig = {c->mask, KERNEL_SIGSET_BYTES};
  return syscall(SYS_pselect6, c->n, c->sets[0], c->sets[1], c->sets[2], &ts, c->mask ? &sig : NULL);
}

static int select_ns(int n, fd_set *r, fd_set *w, fd_set *e, int64_t ns, const sigset_t *mask) {
  const struct mapping *m = mapping();
  struct select_ctx c = {n, {r, w, e}, {{{0}}}, mask};
  for (int i = 0; i < 3; i++)
    if (c.sets[i] != NULL) c.saved[i] = *c.sets[i];
  if (ns < 0) {
    struct {
      const sigset_t *ss;
      size_t len;
    } sig = {mask, KERNEL_SIGSET_BYTES};
    return (int)syscall(SYS_pselect6, n, r, w, e, NULL, mask ? &sig : NULL);
  }
  if (ns == 0 || wait_rate(m) == UNIT_PPB || n > FD_SETSIZE) return (int)select_slice(&c, ns);
  return (int)stretched_wait(m, ns, select_slice, &c);
}

int select(int n, fd_set *r, fd_set *w, fd_set *e, struct timeval *tv) {
  int rc = select_ns(n, r, w, e, tv == NULL ? -1 : (int64_t)tv->tv_sec * NS_PER_S + (int64_t)tv->tv_usec * 1000, NULL);
  /* Linux's select says how much of the timeout was left; a stretched one reports none. */
  if (tv != NULL && rc == 0) tv->tv_sec = 0, tv->tv_usec = 0;
  return rc;
}

int pselect(int n, fd_set *r, fd_set *w, fd_set *e, const struct timespec *ts, const sigset_t *mask) {
  return select_ns(n, r, w, e, ts == NULL ? -1 : ts_ns(ts), mask);
}

/* -- pthread_cond_timedwait (the JVM's Thread.sleep, Object.wait and timed parks) */

/* Which clock a condition variable's deadlines are on: glibc keeps pthread_condattr_setclock's choice
 * in bit 1 of __wrefs ("Bit 1 is the clock ID (0 == CLOCK_REALTIME, 1 == CLOCK_MONOTONIC)",
 * nptl/pthread_cond_common.c, glibc 2.25 on); the bits above it count waiters. */
static clockid_t cond_clock(pthread_cond_t *c) {
  unsigned int wrefs = __atomic_load_n(&c->__data.__wrefs, __ATOMIC_RELAXED);
  return (wrefs & 2u) ? CLOCK_MONOTONIC : CLOCK_REALTIME;
}

/* The rate the family of `clk` runs at, or -1 when no rate moves it (unit segment: real speed, no drift). */
static int64_t family_rate(const struct mapping *m, clockid_t clk) {
  volatile struct record *r = m->rec;
  if (r == NULL) return -1;
  int seg = clk == CLOCK_MONOTONIC ? SEG_MONOTONIC : SEG_REALTIME;
  struct segment g = {r->seg[seg].base_mono_ns, r->seg[seg].base_drift_ns, r->seg[seg].rate_ppb};
  if (unit(&g)) return -1;
  return g.rate_ppb < 0 ? 0 : g.rate_ppb;
}

int pthread_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *mx, const struct timespec *abs) {
  const struct mapping *m = mapping();
  clockid_t clk = cond_clock(c);
  int64_t rate = family_rate(m, clk);
  if (rate < 0) return pthread_cond_clockwait(c, mx, clk, abs);
  struct timespec now;
  if (clock_gettime(clk, &now) != 0) return pthread_cond_clockwait(c, mx, clk, abs);
  int64_t left = ts_ns(abs) - ts_ns(&now);
  if (left <= 0) return ETIMEDOUT;
  int64_t real = SLICE_NS;
  if (rate > 0) {
    __int128 want = ((__int128)left * UNIT_PPB + rate - 1) / rate;
    if (want < real) real = (int64_t)want;
  }
  int64_t mono;
  if (read_real(CLOCK_MONOTONIC, &mono) != 0) return pthread_cond_clockwait(c, mx, clk, abs);
  struct timespec until;
  ns_ts(mono + real, &until);
  count(m, &m->rec->waits);
  int rc = pthread_cond_clockwait(c, mx, CLOCK_MONOTONIC, &until);
  if (rc != ETIMEDOUT) return rc;
  if (clock_gettime(clk, &now) != 0) return rc;
  return ts_ns(&now) >= ts_ns(abs) ? ETIMEDOUT : 0; /* short of the fake deadline: a spurious wakeup */
}
