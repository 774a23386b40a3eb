/*
 * fencepost clock shim. LD_PRELOAD it to move a process's wall clock by an offset that the
 * harness can change while the process runs.
 *
 * Why not libfaketime: Debian's build resolves the real functions with dlsym(RTLD_NEXT), which
 * allocates; jemalloc (redis-server) reads the clock while it initialises, so the first clock call
 * recursed into a half-built allocator and redis-server hung at start-up. Calling the syscall needs
 * nothing, so nothing can recurse. The price is a real syscall instead of the vDSO per call.
 *
 * Why an mmapped file: a change must be seen at the very next clock read, without a signal or any
 * cooperation from the process. A MAP_SHARED mapping is the page-cache page the harness pwrite()s.
 *
 * Why only CLOCK_REALTIME*: an NTP step moves the wall clock, never the monotonic ones. Lease code
 * that measures with monotonic time (etcd, the JVM's nanoTime) is meant to be immune, and skewing
 * those clocks would test a fault that cannot happen.
 *
 * The file holds one native-endian int64 of nanoseconds. If FENCEPOST_CLOCK_FILE is unset, or the
 * file is missing or shorter than 8 bytes at the first clock call, the offset is 0 for the life
 * of the process: the harness creates the file before it starts the process.
 */
#define _GNU_SOURCE
/* glibc's prototype for gettimeofday changed (struct timezone * became void *); hiding it lets
 * our definition compile against either. */
#define gettimeofday fencepost_hidden_gettimeofday
#include <sys/time.h>
#undef gettimeofday
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define NS_PER_S 1000000000LL

static const volatile int64_t no_offset = 0;
static const volatile int64_t *offset_ns; /* NULL until the first clock call */

static const volatile int64_t *map_offset_file(void) {
  const char *path = getenv("FENCEPOST_CLOCK_FILE");
  if (path == NULL || path[0] == '\0') return &no_offset;
  int fd = (int)syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return &no_offset;
  const volatile int64_t *p = &no_offset;
  struct stat st;
  /* Touching a mapping past the end of the file is SIGBUS, so a short file counts as missing. */
  if (fstat(fd, &st) == 0 && st.st_size >= 8) {
    void *m = mmap(NULL, 8, PROT_READ, MAP_SHARED, fd, 0);
    if (m != MAP_FAILED) p = m;
  }
  close(fd);
  return p;
}

static int64_t current_offset(void) {
  const volatile int64_t *p = __atomic_load_n(&offset_ns, __ATOMIC_ACQUIRE);
  if (p == NULL) {
    /* Threads may race here (the JVM starts many at once): each maps, one wins, losers unmap. */
    const volatile int64_t *mine = map_offset_file();
    const volatile int64_t *expected = NULL;
    if (__atomic_compare_exchange_n(&offset_ns, &expected, mine, 0, __ATOMIC_ACQ_REL,
                                    __ATOMIC_ACQUIRE)) {
      p = mine;
    } else {
      if (mine != &no_offset) munmap((void *)mine, 8);
      p = expected;
    }
  }
  /* The kernel does not promise that an 8-byte pwrite() is a single store; re-reading until two
   * reads agree keeps us from using a value caught in the middle of the copy. */
  int64_t a = *p, b;
  while ((b = *p) != a) a = b;
  return a;
}

static void shift(struct timespec *ts) {
  int64_t off = current_offset();
  if (off == 0) return;
  int64_t ns = (int64_t)ts->tv_sec * NS_PER_S + ts->tv_nsec + off;
  int64_t sec = ns / NS_PER_S, rem = ns % NS_PER_S;
  if (rem < 0) { rem += NS_PER_S; sec -= 1; } /* tv_nsec must stay in [0, 1e9) */
  ts->tv_sec = (time_t)sec;
  ts->tv_nsec = (long)rem;
}

int clock_gettime(clockid_t id, struct timespec *ts) {
  int rc = (int)syscall(SYS_clock_gettime, id, ts);
  if (rc == 0 && (id == CLOCK_REALTIME || id == CLOCK_REALTIME_COARSE)) shift(ts);
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
