/*
 * toolyard-codebox: the last step before a code-mode program's interpreter (docs/code-mode.md). It runs inside a
 * call that toolyard-confine has already confined (Landlock, subreaper, fresh HOME): it opens the program's MCP
 * channel, sets the program's resource limits, takes every socket away, and execs the interpreter.
 *
 *   toolyard-codebox [--channel DIR] [--data BYTES] [--cpu SECONDS] [--nproc N] [--fsize BYTES] [--nofile N]
 *                    -- FILE [ARG]...
 *
 * --channel: makes the FIFOs DIR/call and DIR/reply (the server, watching DIR, opens both as soon as they appear),
 *   then opens `call` for writing as fd 3 and `reply` for reading as fd 4: the channel is two pipes, no socket.
 * --nproc: RLIMIT_NPROC counts the tasks of the real uid in the caller's user namespace (and, in the initial one,
 *   in every namespace it owns), so the limit is N above the tasks the uid has there now. Under toolyard-confine's
 *   user namespace (the second wall) that count starts afresh in the call's namespace: only its tasks count.
 * The seccomp filter refuses socket() for every family (EACCES), socketpair() but AF_UNIX pairs, io_uring (its
 * operations would open sockets beside the filter), and the other syscall tables (x32, i386, arm32). Filters
 * stack: whatever toolyard-confine installed stays in force.
 *
 * Freestanding (no libc): raw syscalls for x86_64 and aarch64 (freestanding.h). Exit 125 on a setup failure, with
 * one line on stderr.
 */
#include "freestanding.h"

enum { S_IFIFO = 0010000, AF_UNIX = 1 };
enum { RLIMIT_CPU = 0, RLIMIT_FSIZE = 1, RLIMIT_DATA = 2, RLIMIT_CORE = 4, RLIMIT_NPROC = 6, RLIMIT_NOFILE = 7 };
enum { EXIT_SETUP = 125 };

static unsigned long slen(const char *s) {
  unsigned long n = 0;
  while (s[n]) n++;
  return n;
}
/* A decimal number, or -1. */
static i64 num(const char *s) {
  i64 v = 0;
  if (!*s) return -1;
  for (; *s; s++) {
    if (*s < '0' || *s > '9' || v > 100000000000000L) return -1;
    v = v * 10 + (*s - '0');
  }
  return v;
}

static void fail(const char *what, i64 err) {
  char b[160];
  unsigned long n = 0;
  const char *parts[] = {"toolyard-codebox: ", what, " failed: errno "};
  for (int k = 0; k < 3; k++)
    for (const char *p = parts[k]; *p && n < sizeof b - 24; p++) b[n++] = *p;
  u64 v = (u64)-err;
  char d[24];
  int i = 0;
  do d[i++] = (char)('0' + v % 10), v /= 10;
  while (v);
  while (i--) b[n++] = d[i];
  b[n++] = '\n';
  sys3(NR_write, 2, b, n);
  sys1(NR_exit_group, EXIT_SETUP);
  __builtin_unreachable();
}

struct rlimit { u64 cur, max; };
static void limit(int resource, u64 cur, u64 max) {
  struct rlimit r = {cur, max};
  i64 e = sys4(NR_prlimit64, 0, resource, &r, 0);
  if (e < 0) fail("prlimit", e);
}

/* The value after `key` on its line of a /proc status text, or -1. */
static i64 field(const char *text, const char *key) {
  unsigned long k = slen(key);
  for (const char *p = text; *p;) {
    int match = 1;
    for (unsigned long i = 0; i < k; i++)
      if (p[i] != key[i]) { match = 0; break; }
    if (match) {
      p += k;
      while (*p == ' ' || *p == '\t') p++;
      i64 v = 0;
      if (*p < '0' || *p > '9') return -1;
      while (*p >= '0' && *p <= '9') v = v * 10 + (*p++ - '0');
      return v;
    }
    while (*p && *p != '\n') p++;
    if (*p) p++;
  }
  return -1;
}

static char dents[16384];
static char status[4096];

/* The target of /proc/<pid>/ns/user ("user:[inode]") into `out`, or a negative errno (another uid's task,
   or one that is not dumpable, cannot be read). */
static i64 userns_of(const char *pid, char *out, unsigned long size) {
  char path[48] = "/proc/";
  unsigned long n = 6, l = slen(pid);
  if (l > 20) return -36;
  memcpy(path + n, pid, l), n += l;
  memcpy(path + n, "/ns/user", 9);
  i64 r = sys4(NR_readlinkat, AT_FDCWD, path, out, size - 1);
  if (r >= 0) out[r] = 0;
  return r;
}

/* Whether this process is in the initial user namespace: its uid map is the identity over every uid. */
static int initial_userns(void) {
  i64 fd = sys4(NR_openat, AT_FDCWD, "/proc/self/uid_map", O_RDONLY | O_CLOEXEC, 0);
  if (fd < 0) return 1;
  char map[256];
  i64 r = sys3(NR_read, fd, map, sizeof map - 1);
  sys1(NR_close, fd);
  if (r <= 0) return 1;
  map[r] = 0;
  /* "0 0 4294967295" with any spacing, one line. */
  const char *want[] = {"0", "0", "4294967295"};
  const char *p = map;
  for (int k = 0; k < 3; k++) {
    while (*p == ' ' || *p == '\t') p++;
    unsigned long w = slen(want[k]);
    for (unsigned long i = 0; i < w; i++)
      if (p[i] != want[k][i]) return 0;
    p += w;
    if (*p != ' ' && *p != '\t' && *p != '\n' && *p != 0) return 0;
  }
  while (*p == ' ' || *p == '\t' || *p == '\n') p++;
  return *p == 0;
}

static char own_userns[64];

/* Tasks (threads included) whose real uid is `uid`: what RLIMIT_NPROC compares with its limit. In a user namespace
   of its own (the second wall) the kernel counts only the tasks of that namespace, so only those count here; a task
   whose namespace cannot be read is left out, which can only make the limit lower. */
static i64 uid_tasks(u64 uid) {
  int scoped = !initial_userns();
  if (scoped && userns_of("self", own_userns, sizeof own_userns) < 0) scoped = 0;
  char theirs[64];
  i64 dir = sys4(NR_openat, AT_FDCWD, "/proc", O_RDONLY | O_CLOEXEC, 0);
  if (dir < 0) return dir;
  i64 total = 0;
  for (;;) {
    i64 got = sys3(NR_getdents64, dir, dents, sizeof dents);
    if (got <= 0) break;
    for (i64 off = 0; off < got;) {
      unsigned short reclen = *(unsigned short *)(dents + off + 16);
      const char *name = dents + off + 19;
      off += reclen;
      if (num(name) <= 0) continue;
      char path[48] = "/proc/";
      unsigned long n = 6, l = slen(name);
      if (l > 20) continue;
      memcpy(path + n, name, l), n += l;
      memcpy(path + n, "/status", 8);
      i64 fd = sys4(NR_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC, 0);
      if (fd < 0) continue;
      i64 r = sys3(NR_read, fd, status, sizeof status - 1);
      sys1(NR_close, fd);
      if (r <= 0) continue;
      status[r] = 0;
      if (field(status, "Uid:") != (i64)uid) continue;
      if (scoped && (userns_of(name, theirs, sizeof theirs) < 0 || !seq(theirs, own_userns))) continue;
      i64 threads = field(status, "Threads:");
      total += threads > 0 ? threads : 1;
    }
  }
  sys1(NR_close, dir);
  return total;
}

/* Opens DIR/name (a FIFO this process makes) as fd `want`, inherited by the interpreter. */
static void channel_end(const char *dir, const char *name, int flags, int want) {
  char path[4096];
  unsigned long n = slen(dir), l = slen(name);
  if (n + l + 2 > sizeof path) fail("channel path", -36);
  memcpy(path, dir, n), path[n++] = '/';
  memcpy(path + n, name, l + 1);
  i64 e = sys4(NR_mknodat, AT_FDCWD, path, S_IFIFO | 0600, 0);
  if (e < 0) fail("mkfifo", e);
  /* Opening a FIFO waits for the other end: the server opens both (read-write) when it sees them. */
  i64 fd = sys4(NR_openat, AT_FDCWD, path, flags, 0);
  if (fd < 0) fail("open channel", fd);
  if (fd != want) {
    e = sys3(NR_dup3, fd, want, 0);
    if (e < 0) fail("dup channel", e);
    sys1(NR_close, fd);
  }
}

/* The filter (classic BPF, freestanding.h): jumps are relative (target = next instruction + offset); the returns
   are the last five instructions. */
#define ALLOW 0x7fff0000U
#define ERRNO(e) (0x00050000U | (e))

static struct sock_filter filter[] = {
  {LD_ABS, 0, 0, 4},                 /* arch */
  {JEQ, 1, 0, AUDIT_ARCH},
  {RET, 0, 0, ERRNO(ENOSYS)},        /* another syscall table numbers differently */
  {LD_ABS, 0, 0, 0},                 /* nr */
#if defined(__x86_64__)
  {JGE, 8, 0, 0x40000000},           /* x32 */
#else
  {JGE, 8, 0, 0xffffffff},           /* never */
#endif
  {JEQ, 8, 0, SC_socket},
  {JEQ, 4, 0, SC_socketpair},
  {JEQ, 5, 0, SC_io_uring_setup},
  {JEQ, 4, 0, SC_io_uring_enter},
  {JEQ, 3, 0, SC_io_uring_register},
  {RET, 0, 0, ALLOW},
  {LD_ABS, 0, 0, 16},                /* socketpair's domain */
  {JEQ, 2, 1, AF_UNIX},
  {RET, 0, 0, ERRNO(ENOSYS)},        /* x32, io_uring */
  {RET, 0, 0, ERRNO(EACCES)},        /* socket, socketpair of another family */
  {RET, 0, 0, ALLOW},
};

__attribute__((used)) void cmain(long *sp) {
  int argc = (int)sp[0];
  char **argv = (char **)(sp + 1), **envp = argv + argc + 1;
  const char *channel = 0;
  i64 data = -1, cpu = -1, nproc = -1, fsize = -1, nofile = -1;
  int i = 1;
  for (; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : 0;
    if (seq(a, "--")) { i++; break; }
    if (!v) fail("usage: a value", -22);
    i++;
    if (seq(a, "--channel")) { channel = v; continue; }
    i64 n = num(v);
    if (n < 0) fail("usage: a number", -22);
    if (seq(a, "--data")) data = n;
    else if (seq(a, "--cpu")) cpu = n;
    else if (seq(a, "--nproc")) nproc = n;
    else if (seq(a, "--fsize")) fsize = n;
    else if (seq(a, "--nofile")) nofile = n;
    else fail("usage: an option", -22);
  }
  if (i >= argc) fail("usage: no command", -22);

  if (channel) {
    channel_end(channel, "call", O_WRONLY, 3);
    channel_end(channel, "reply", O_RDONLY, 4);
  }
  limit(RLIMIT_CORE, 0, 0);
  if (data >= 0) limit(RLIMIT_DATA, (u64)data, (u64)data);
  if (cpu >= 0) limit(RLIMIT_CPU, (u64)cpu, (u64)cpu + 1); /* SIGXCPU, then SIGKILL a second later */
  if (fsize >= 0) limit(RLIMIT_FSIZE, (u64)fsize, (u64)fsize);
  if (nofile >= 0) limit(RLIMIT_NOFILE, (u64)nofile, (u64)nofile);
  if (nproc >= 0) {
    i64 now = uid_tasks((u64)sys6(NR_getuid, 0, 0, 0, 0, 0, 0));
    if (now < 0) fail("count tasks", now);
    limit(RLIMIT_NPROC, (u64)(now + nproc), (u64)(now + nproc));
  }

  i64 e = sys6(NR_prctl, PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0, 0);
  if (e < 0) fail("no_new_privs", e);
  struct sock_fprog prog = {sizeof filter / sizeof filter[0], filter};
  e = sys6(NR_prctl, PR_SET_SECCOMP, SECCOMP_MODE_FILTER, (i64)&prog, 0, 0, 0);
  if (e < 0) fail("seccomp", e);
  e = sys3(NR_execve, argv[i], argv + i, envp);
  fail("exec", e);
}
