/*
 * toolyard-confine: runs one command under a Landlock ruleset as a child subreaper, then kills and reaps
 * every descendant the command left behind. Freestanding (no libc): raw syscalls for x86_64 and aarch64.
 *
 *   toolyard-confine [--mode required|best-effort] [--report-fd N] [--ro PATH]... [--rw PATH]...
 *                    [--no-connect] [--connect PORT]... [--scope-signals] [--scope-abstract]
 *                    [--timeout-ms N] [--grace-ms N] [--argv0 NAME] [--simulate-no-landlock]
 *                    -- FILE [ARG]...
 *   toolyard-confine --probe [--mode M] [--report-fd N] [--simulate-no-landlock]
 *
 * The report protocol, the exit codes and the design are in docs/confinement.md.
 */
typedef unsigned long u64;
typedef long i64;
typedef unsigned int u32;

#if defined(__x86_64__)
enum { NR_read = 0, NR_write = 1, NR_close = 3, NR_rt_sigprocmask = 14, NR_nanosleep = 35, NR_getpid = 39,
       NR_clone = 56, NR_execve = 59, NR_exit_group = 231, NR_wait4 = 61, NR_kill = 62, NR_fcntl = 72,
       NR_prctl = 157, NR_getdents64 = 217, NR_clock_gettime = 228, NR_openat = 257,
       NR_rt_sigtimedwait = 128 };
static i64 sys6(i64 n, i64 a, i64 b, i64 c, i64 d, i64 e, i64 f) {
  register i64 r10 __asm__("r10") = d;
  register i64 r8 __asm__("r8") = e;
  register i64 r9 __asm__("r9") = f;
  i64 ret;
  __asm__ volatile("syscall"
                   : "=a"(ret)
                   : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
                   : "rcx", "r11", "memory");
  return ret;
}
__asm__(".text\n.globl _start\n_start:\n xor %rbp,%rbp\n mov %rsp,%rdi\n and $-16,%rsp\n call cmain\n hlt\n");
#elif defined(__aarch64__)
enum { NR_read = 63, NR_write = 64, NR_close = 57, NR_rt_sigprocmask = 135, NR_nanosleep = 101,
       NR_getpid = 172, NR_clone = 220, NR_execve = 221, NR_exit_group = 94, NR_wait4 = 260, NR_kill = 129,
       NR_fcntl = 25, NR_prctl = 167, NR_getdents64 = 61, NR_clock_gettime = 113, NR_openat = 56,
       NR_rt_sigtimedwait = 137 };
static i64 sys6(i64 n, i64 a, i64 b, i64 c, i64 d, i64 e, i64 f) {
  register i64 x8 __asm__("x8") = n;
  register i64 x0 __asm__("x0") = a;
  register i64 x1 __asm__("x1") = b;
  register i64 x2 __asm__("x2") = c;
  register i64 x3 __asm__("x3") = d;
  register i64 x4 __asm__("x4") = e;
  register i64 x5 __asm__("x5") = f;
  __asm__ volatile("svc 0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2), "r"(x3), "r"(x4), "r"(x5) : "memory");
  return x0;
}
__asm__(".text\n.globl _start\n_start:\n mov x29, #0\n mov x30, #0\n mov x0, sp\n bl cmain\n brk #0\n");
#else
#error "toolyard-confine supports x86_64 and aarch64"
#endif

/* Same numbers on both architectures (the generic table starts them at 424+). */
enum { NR_landlock_create_ruleset = 444, NR_landlock_add_rule = 445, NR_landlock_restrict_self = 446 };
#define sys0(n) sys6(n, 0, 0, 0, 0, 0, 0)
#define sys1(n, a) sys6(n, (i64)(a), 0, 0, 0, 0, 0)
#define sys2(n, a, b) sys6(n, (i64)(a), (i64)(b), 0, 0, 0, 0)
#define sys3(n, a, b, c) sys6(n, (i64)(a), (i64)(b), (i64)(c), 0, 0, 0)
#define sys4(n, a, b, c, d) sys6(n, (i64)(a), (i64)(b), (i64)(c), (i64)(d), 0, 0)

enum { ENOENT = 2, EINTR = 4, EAGAIN = 11, EACCES = 13, ECHILD = 10, EINVAL = 22, ENOSYS = 38,
       EOPNOTSUPP = 95, ENOTDIR = 20, ELOOP = 40 };
enum { SIGHUP = 1, SIGINT = 2, SIGKILL = 9, SIGTERM = 15, SIGCHLD = 17 };
enum { PR_SET_PDEATHSIG = 1, PR_SET_DUMPABLE = 4, PR_SET_CHILD_SUBREAPER = 36, PR_SET_NO_NEW_PRIVS = 38 };
enum { AT_FDCWD = -100, O_RDONLY = 0, O_CLOEXEC = 02000000, O_PATH = 010000000, F_SETFD = 2, FD_CLOEXEC = 1,
       WNOHANG = 1, SIG_BLOCK = 0, SIG_SETMASK = 2 };

/* Landlock (include/uapi/linux/landlock.h), ABI 1..7. */
#define FS_EXECUTE (1UL << 0)
#define FS_WRITE_FILE (1UL << 1)
#define FS_READ_FILE (1UL << 2)
#define FS_READ_DIR (1UL << 3)
#define FS_V1_ALL ((1UL << 13) - 1)
#define FS_REFER (1UL << 13)
#define FS_TRUNCATE (1UL << 14)
#define FS_IOCTL_DEV (1UL << 15)
#define FS_FILE_ONLY (FS_EXECUTE | FS_WRITE_FILE | FS_READ_FILE | FS_TRUNCATE | FS_IOCTL_DEV)
#define NET_BIND_TCP (1UL << 0)
#define NET_CONNECT_TCP (1UL << 1)
#define SCOPE_ABSTRACT_UNIX_SOCKET (1UL << 0)
#define SCOPE_SIGNAL (1UL << 1)
#define CREATE_RULESET_VERSION 1U
enum { RULE_PATH_BENEATH = 1, RULE_NET_PORT = 2 };

struct ruleset_attr { u64 fs, net, scoped; };
struct path_beneath { u64 allowed; int parent_fd; } __attribute__((packed));
struct net_port { u64 allowed, port; };
struct timespec { i64 sec, nsec; };

/* Exit codes (docs/confinement.md). */
enum { EXIT_UNAVAILABLE = 122, EXIT_SETUP = 125, EXIT_EXEC = 126, EXIT_NOT_FOUND = 127 };

/* gcc may emit calls to these even with -ffreestanding. */
void *memset(void *d, int c, unsigned long n) {
  unsigned char *p = d;
  while (n--) *p++ = (unsigned char)c;
  return d;
}
void *memcpy(void *d, const void *s, unsigned long n) {
  unsigned char *p = d;
  const unsigned char *q = s;
  while (n--) *p++ = *q++;
  return d;
}

static int seq(const char *a, const char *b) {
  while (*a && *a == *b) a++, b++;
  return *a == *b;
}
/* Parses a decimal number; -1 when s is not one. */
static i64 num(const char *s) {
  i64 v = 0;
  if (!*s) return -1;
  for (; *s; s++) {
    if (*s < '0' || *s > '9' || v > 100000000000L) return -1;
    v = v * 10 + (*s - '0');
  }
  return v;
}

/* A small line buffer for the report. */
static char line[256];
static unsigned long used;
static void put(const char *s) {
  while (*s && used < sizeof line - 1) line[used++] = *s++;
}
static void putn(u64 v, int hex) {
  char b[24];
  int i = 0;
  if (hex) put("0x");
  do b[i++] = "0123456789abcdef"[v % (hex ? 16 : 10)], v /= hex ? 16 : 10;
  while (v);
  while (i--) { char c[2] = {b[i], 0}; put(c); }
}
static int report_fd = -1;
static void flush(void) {
  put("\n");
  if (report_fd >= 0) sys3(NR_write, report_fd, line, used);
  used = 0;
}
static void die(const char *stage, i64 err, int code) {
  put("confine v=1 error=");
  put(stage);
  put(" errno=");
  putn((u64)-err, 0);
  flush();
  sys1(NR_exit_group, code);
  __builtin_unreachable();
}

static i64 now_ms(void) {
  struct timespec t;
  sys2(NR_clock_gettime, 1 /* CLOCK_MONOTONIC */, &t);
  return t.sec * 1000 + t.nsec / 1000000;
}

/* ---- descendants: every process whose parent chain leads to us ---- */
#define MAXP 32768
static int pids[MAXP], ppids[MAXP];
static unsigned char mine[MAXP];
static char dents[16384];

static int parse_ppid(int pid) {
  char path[40] = "/proc/", buf[512];
  unsigned long n = 6;
  char d[12];
  int i = 0;
  do d[i++] = (char)('0' + pid % 10), pid /= 10;
  while (pid);
  while (i--) path[n++] = d[i];
  memcpy(path + n, "/stat", 6);
  i64 fd = sys4(NR_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC, 0);
  if (fd < 0) return -1;
  i64 r = sys3(NR_read, fd, buf, sizeof buf - 1);
  sys1(NR_close, fd);
  if (r <= 0) return -1;
  buf[r] = 0;
  char *p = 0;
  for (char *q = buf; *q; q++) if (*q == ')') p = q; /* the name may contain ')' */
  if (!p || p[1] != ' ' || !p[2] || p[3] != ' ') return -1;
  p += 4;
  int v = 0;
  while (*p >= '0' && *p <= '9') v = v * 10 + (*p++ - '0');
  return v;
}

/* Sends `sig` to every descendant; returns how many there were. */
static int signal_descendants(int self, int sig) {
  i64 dir = sys4(NR_openat, AT_FDCWD, "/proc", O_RDONLY | O_CLOEXEC, 0);
  if (dir < 0) return -1;
  int n = 0;
  for (;;) {
    i64 got = sys3(NR_getdents64, dir, dents, sizeof dents);
    if (got <= 0) break;
    for (i64 off = 0; off < got;) {
      unsigned short reclen = *(unsigned short *)(dents + off + 16);
      i64 pid = num(dents + off + 19);
      off += reclen;
      if (pid <= 0 || pid == self || n >= MAXP) continue;
      int pp = parse_ppid((int)pid);
      if (pp < 0) continue;
      pids[n] = (int)pid, ppids[n] = pp, mine[n] = pp == self;
      n++;
    }
  }
  sys1(NR_close, dir);
  for (int changed = 1; changed;) { /* close the ancestry relation, one generation per pass */
    changed = 0;
    for (int i = 0; i < n; i++) {
      if (mine[i]) continue;
      for (int j = 0; j < n; j++)
        if (mine[j] && pids[j] == ppids[i]) { mine[i] = 1, changed = 1; break; }
    }
  }
  int count = 0;
  for (int i = 0; i < n; i++)
    if (mine[i]) sys2(NR_kill, pids[i], sig), count++;
  return count;
}

/* Kills and reaps every descendant until none is left; returns how many were killed. */
static int kill_all(int self) {
  int killed = 0;
  for (;;) {
    int status;
    while (sys4(NR_wait4, -1, &status, WNOHANG, 0) > 0) {}
    if (sys4(NR_wait4, -1, &status, WNOHANG, 0) == -ECHILD) return killed; /* nobody left at all */
    int n = signal_descendants(self, SIGKILL);
    if (n > 0) killed += n;
    struct timespec t = {0, 1000000};
    sys2(NR_nanosleep, &t, 0);
  }
}

static void usage(const char *what) {
  put("confine v=1 error=usage ");
  put(what);
  flush();
  sys1(NR_exit_group, EXIT_SETUP);
}

#define MAXRULES 4096
static const char *ro[MAXRULES], *rw[MAXRULES];
static u64 ports[64];

__attribute__((used)) void cmain(long *sp) {
  int argc = (int)sp[0];
  char **argv = (char **)(sp + 1), **envp = argv + argc + 1;
  int nro = 0, nrw = 0, nports = 0, no_connect = 0, probe = 0, simulate = 0, required = 1;
  u64 scoped_want = 0;
  i64 timeout_ms = 0, grace_ms = 2000;
  const char *argv0 = 0;
  int i = 1;
  for (; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : 0;
    if (seq(a, "--")) { i++; break; }
    else if (seq(a, "--probe")) probe = 1;
    else if (seq(a, "--no-connect")) no_connect = 1;
    else if (seq(a, "--scope-signals")) scoped_want |= SCOPE_SIGNAL;
    else if (seq(a, "--scope-abstract")) scoped_want |= SCOPE_ABSTRACT_UNIX_SOCKET;
    else if (seq(a, "--simulate-no-landlock")) simulate = 1;
    else if (!v) usage("missing-value");
    else if (seq(a, "--ro") && nro < MAXRULES) ro[nro++] = v, i++;
    else if (seq(a, "--rw") && nrw < MAXRULES) rw[nrw++] = v, i++;
    else if (seq(a, "--argv0")) argv0 = v, i++;
    else if (seq(a, "--mode")) {
      if (seq(v, "required")) required = 1;
      else if (seq(v, "best-effort")) required = 0;
      else usage("mode");
      i++;
    } else {
      i64 n = num(v);
      if (n < 0) usage("number");
      if (seq(a, "--connect") && nports < 64 && n <= 65535) ports[nports++] = (u64)n, no_connect = 1;
      else if (seq(a, "--report-fd")) report_fd = (int)n;
      else if (seq(a, "--timeout-ms")) timeout_ms = n;
      else if (seq(a, "--grace-ms")) grace_ms = n;
      else usage("option");
      i++;
    }
  }
  if (!probe && i >= argc) usage("no-command");
  if (report_fd >= 0) sys3(NR_fcntl, report_fd, F_SETFD, FD_CLOEXEC); /* the command never gets it */

  /* The best ABI the kernel offers: 0 when Landlock is missing (ENOSYS) or disabled (EOPNOTSUPP). */
  i64 abi = simulate ? -ENOSYS : sys3(NR_landlock_create_ruleset, 0, 0, CREATE_RULESET_VERSION);
  if (abi < 0) {
    if (abi != -ENOSYS && abi != -EOPNOTSUPP) die("abi", abi, EXIT_SETUP);
    abi = 0;
  }
  struct ruleset_attr attr = {0, 0, 0};
  unsigned long attr_size = 8;
  if (abi >= 1) attr.fs = FS_V1_ALL;
  if (abi >= 2) attr.fs |= FS_REFER;
  if (abi >= 3) attr.fs |= FS_TRUNCATE;
  if (abi >= 5) attr.fs |= FS_IOCTL_DEV;
  if (abi >= 4 && no_connect) attr.net = NET_CONNECT_TCP, attr_size = 16;
  if (abi >= 6 && scoped_want) attr.scoped = scoped_want, attr_size = 24;

  put("confine v=1 abi=");
  putn((u64)abi, 0);
  put(abi ? " status=enforced fs=" : " status=unavailable fs=");
  putn(attr.fs, 1);
  put(" net=");
  putn(attr.net, 1);
  put(" scoped=");
  putn(attr.scoped, 1);
  if (abi == 0 && required) {
    put(" mode=required");
    flush();
    sys1(NR_exit_group, EXIT_UNAVAILABLE);
  }
  if (probe) {
    if (report_fd < 0) report_fd = 1;
    flush();
    sys1(NR_exit_group, 0);
  }

  i64 e = sys6(NR_prctl, PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0, 0);
  if (e < 0) die("no-new-privs", e, EXIT_SETUP);
  i64 ruleset = -1;
  int rules = 0;
  if (abi > 0) {
    ruleset = sys3(NR_landlock_create_ruleset, &attr, attr_size, 0);
    if (ruleset < 0) die("ruleset", ruleset, EXIT_SETUP);
    u64 ro_rights = FS_EXECUTE | FS_READ_FILE | FS_READ_DIR;
    for (int k = 0; k < nro + nrw; k++) {
      const char *path = k < nro ? ro[k] : rw[k - nro];
      i64 fd = sys4(NR_openat, AT_FDCWD, path, O_PATH | O_CLOEXEC, 0);
      if (fd == -ENOENT || fd == -EACCES || fd == -ENOTDIR || fd == -ELOOP) continue; /* absent: no rule */
      if (fd < 0) die("open", fd, EXIT_SETUP);
      struct path_beneath pb = {k < nro ? ro_rights : attr.fs, (int)fd};
      e = sys4(NR_landlock_add_rule, ruleset, RULE_PATH_BENEATH, &pb, 0);
      if (e == -EINVAL) { /* a file, not a directory: only the rights that apply to files */
        pb.allowed &= FS_FILE_ONLY;
        e = sys4(NR_landlock_add_rule, ruleset, RULE_PATH_BENEATH, &pb, 0);
      }
      sys1(NR_close, fd);
      if (e < 0) die("rule", e, EXIT_SETUP);
      rules++;
    }
    for (int k = 0; abi >= 4 && k < nports; k++) {
      struct net_port np = {NET_CONNECT_TCP, ports[k]};
      e = sys4(NR_landlock_add_rule, ruleset, RULE_NET_PORT, &np, 0);
      if (e < 0) die("port", e, EXIT_SETUP);
      rules++;
    }
  }
  put(" rules=");
  putn((u64)rules, 0);
  put("\n"); /* kept: written with the error or done line, one write (one wake-up of the server) per call */

  /* The reaper stays outside the domain: a confined command can neither signal nor trace it. */
  sys6(NR_prctl, PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0, 0);
  sys6(NR_prctl, PR_SET_PDEATHSIG, SIGTERM, 0, 0, 0, 0); /* the server died: clean up */
  sys6(NR_prctl, PR_SET_DUMPABLE, 0, 0, 0, 0, 0);
  u64 set = (1UL << (SIGCHLD - 1)) | (1UL << (SIGTERM - 1)) | (1UL << (SIGINT - 1)) | (1UL << (SIGHUP - 1));
  u64 old = 0;
  sys4(NR_rt_sigprocmask, SIG_BLOCK, &set, &old, 8);
  int self = (int)sys0(NR_getpid);

  i64 child = sys6(NR_clone, SIGCHLD, 0, 0, 0, 0, 0);
  if (child < 0) die("fork", child, EXIT_SETUP);
  if (child == 0) {
    sys4(NR_rt_sigprocmask, SIG_SETMASK, &old, 0, 8);
    sys6(NR_prctl, PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0, 0);
    if (ruleset >= 0) {
      e = sys2(NR_landlock_restrict_self, ruleset, 0);
      if (e < 0) die("restrict", e, EXIT_SETUP);
      sys1(NR_close, ruleset);
    }
    char **cmd = argv + i;
    const char *file = cmd[0];
    if (argv0) cmd[0] = (char *)argv0;
    e = sys3(NR_execve, file, cmd, envp);
    die("exec", e, e == -ENOENT ? EXIT_NOT_FOUND : EXIT_EXEC);
  }
  if (ruleset >= 0) sys1(NR_close, ruleset);

  /* Wait for the command; on SIGTERM/SIGINT/SIGHUP or the timeout, terminate, then kill after the grace. */
  i64 deadline = timeout_ms > 0 ? now_ms() + timeout_ms : 0, kill_at = 0;
  int status = 0, done = 0, timed_out = 0, killed = 0;
  while (!done) {
    i64 wait_ms = 1000;
    i64 t = now_ms();
    if (deadline && !kill_at && t >= deadline) timed_out = 1, kill_at = t + grace_ms, signal_descendants(self, SIGTERM);
    if (kill_at && t >= kill_at) {
      int n = signal_descendants(self, SIGKILL);
      if (n > killed) killed = n; /* the same processes may be signalled again until they are reaped */
    }
    if (deadline && !kill_at && deadline - t < wait_ms) wait_ms = deadline - t;
    if (kill_at && kill_at - t < wait_ms) wait_ms = kill_at - t > 0 ? kill_at - t : 1;
    struct timespec ts = {wait_ms / 1000, (wait_ms % 1000) * 1000000};
    char info[128];
    i64 sig = sys4(NR_rt_sigtimedwait, &set, info, &ts, 8);
    if ((sig == SIGTERM || sig == SIGINT || sig == SIGHUP) && !kill_at) {
      kill_at = now_ms() + grace_ms;
      signal_descendants(self, SIGTERM);
    }
    for (;;) {
      int st;
      i64 pid = sys4(NR_wait4, -1, &st, WNOHANG, 0);
      if (pid <= 0) break;
      if (pid == child) status = st, done = 1;
    }
  }
  killed += kill_all(self);
  put("confine v=1 done killed=");
  putn((u64)killed, 0);
  put(timed_out ? " timeout=1" : " timeout=0");
  flush();

  /* Relay: exit with the command's code, or die of the command's signal. */
  int termsig = status & 0x7f;
  if (termsig == 0) sys1(NR_exit_group, (status >> 8) & 0xff);
  u64 one = 1UL << (termsig - 1);
  sys4(NR_rt_sigprocmask, 1 /* SIG_UNBLOCK */, &one, 0, 8);
  sys2(NR_kill, self, termsig);
  sys1(NR_exit_group, 128 + termsig);
}
