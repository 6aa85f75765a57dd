/*
 * toolyard-confine: runs one command under a Landlock ruleset as a child subreaper, then kills and reaps
 * every descendant the command left behind. Freestanding (no libc): raw syscalls for x86_64 and aarch64, from
 * freestanding.h, which code mode's toolyard-codebox shares.
 *
 *   toolyard-confine [--mode required|best-effort] [--report-fd N] [--ro PATH]... [--rw PATH]...
 *                    [--no-connect] [--connect PORT]... [--scope-signals] [--scope-abstract]
 *                    [--timeout-ms N] [--grace-ms N] [--argv0 NAME] [--simulate-no-landlock]
 *                    -- FILE [ARG]...
 *   toolyard-confine --probe [--mode M] [--report-fd N] [--simulate-no-landlock]
 *   toolyard-confine --serve
 *
 * `--serve` is the resident spawner: started once by the server, it reads run requests (argv + envp of one
 * call, the same options as above) on fd 0, forks one reaper per call (which runs the call as the command line
 * form does) and relays each call's stdout, stderr and report back on fd 1 as frames. The report protocol, the
 * frame protocol, the exit codes and the design are in docs/confinement.md.
 */
#include "freestanding.h"

enum { SIGHUP = 1, SIGINT = 2, SIGKILL = 9, SIGTERM = 15, SIGCHLD = 17 };
enum { AT_REMOVEDIR = 0x200 };
enum { F_SETFD = 2, F_SETFL = 4, FD_CLOEXEC = 1, WNOHANG = 1, SIG_BLOCK = 0, SIG_SETMASK = 2 };

/* Landlock (include/uapi/linux/landlock.h), ABI 1..7. */
#define FS_EXECUTE (1UL << 0)
#define FS_WRITE_FILE (1UL << 1)
#define FS_READ_FILE (1UL << 2)
#define FS_READ_DIR (1UL << 3)
#define FS_V1_ALL ((1UL << 13) - 1)
#define FS_REFER (1UL << 13)
#define FS_TRUNCATE (1UL << 14)
#define FS_IOCTL_DEV (1UL << 15)
#define FS_RESOLVE_UNIX (1UL << 16)
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
  if (used && line[used - 1] != '\n') put("\n"); /* after a started first line: end it */
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

/* In the spawner: whether `pid` is a live reaper (its descendants are its own business, not orphans). */
static int (*spared)(int pid);

/* Sends `sig` to every descendant (but spared ones and theirs); returns how many there were. */
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
      pids[n] = (int)pid, ppids[n] = pp, mine[n] = pp == self && !(spared && spared((int)pid));
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

/* ---- the second wall (docs/confinement.md): per-call user + IPC namespaces where the node allows them, and a
   seccomp filter for what Landlock does not mediate. Both are inherited by everything the command starts. ---- */
enum { CLONE_NEWIPC = 0x08000000, CLONE_NEWUSER = 0x10000000 };
/* A call's wall: none (--no-wall), the filter alone, or namespaces and the filter. `unavailable`: probe only. */
enum { WALL_OFF, WALL_SECCOMP, WALL_NAMESPACES, WALL_UNAVAILABLE };
static const char *const wall_names[] = {"off", "seccomp", "namespaces", "unavailable"};

static i64 write_proc(const char *path, const char *text, unsigned long n) {
  i64 fd = sys4(NR_openat, AT_FDCWD, path, O_WRONLY | O_CLOEXEC, 0);
  if (fd < 0) return fd;
  i64 w = sys3(NR_write, fd, text, n);
  sys1(NR_close, fd);
  return w < 0 ? w : 0;
}

/* Writes "<id> <id> 1\n" (one id mapped to itself) into `path`. */
static void map_self(const char *path, u64 id) {
  char d[24], map[64];
  int i = 0, n = 0;
  do d[i++] = (char)('0' + id % 10), id /= 10;
  while (id);
  for (int r = 0; r < 2; r++) {
    for (int k = i; k--;) map[n++] = d[k];
    map[n++] = ' ';
  }
  map[n++] = '1', map[n++] = '\n';
  write_proc(path, map, (unsigned long)n);
}

/*
 * Moves this process (the reaper, so every process of the call) into a new user namespace, its uid and gid mapped
 * to themselves (so `id` and file owners read as before), and a new IPC namespace: SysV objects and POSIX message
 * queues of the call are its own and go with it. 0, or -errno where the node forbids it (RuntimeDefault seccomp
 * profiles refuse unshare without CAP_SYS_ADMIN; sysctls may forbid unprivileged user namespaces).
 */
static i64 enter_namespaces(void) {
  u64 uid = (u64)sys0(NR_getuid), gid = (u64)sys0(NR_getgid);
  i64 e = sys1(NR_unshare, CLONE_NEWUSER | CLONE_NEWIPC);
  if (e < 0) return e;
  /* A reaper forked from the spawner is not dumpable, so its /proc files belong to root and it could not write its
     own maps: dumpable again for the writes (the reaper makes itself undumpable before the fork). Unmapped, the
     call's uid would read as 65534, and setresuid(-1, getuid()) — posix_spawn's POSIX_SPAWN_RESETIDS — fails. */
  sys6(NR_prctl, PR_SET_DUMPABLE, 1, 0, 0, 0, 0);
  map_self("/proc/self/uid_map", uid);
  write_proc("/proc/self/setgroups", "deny", 4);
  map_self("/proc/self/gid_map", gid);
  return 0;
}

/* The filter (classic BPF, freestanding.h), built at run time. */
#define ARG(i) (16 + 8 * (i))
/* Jump targets >= TO_ALLOW name the shared returns at the end (in this order); lower ones are relative skips. */
enum { TO_ALLOW = 240, TO_EPERM, TO_EACCES, TO_EPROTONOSUPPORT, TO_EAFNOSUPPORT, TO_ENOSYS };
static const u32 returns[] = {0x7fff0000U, 0x50000U | EPERM, 0x50000U | EACCES, 0x50000U | EPROTONOSUPPORT,
                              0x50000U | EAFNOSUPPORT, 0x50000U | ENOSYS};
static struct sock_filter prog[192];
static int plen;
static void emit(unsigned short code, unsigned char jt, unsigned char jf, u32 k) {
  prog[plen].code = code, prog[plen].jt = jt, prog[plen].jf = jf, prog[plen].k = k;
  plen++;
}
/* Starts a block for syscall `nr` (the accumulator holds nr); done() makes a mismatch skip the whole block. */
static int when(u32 nr) { emit(JEQ, 0, 0, nr); return plen - 1; }
static void done(int at) { prog[at].jf = (unsigned char)(plen - at - 1); }
static void refuse(u32 nr, unsigned char to) { emit(JEQ, to, 0, nr); }
/* `nr` only on the caller itself: argument `a` (a pid, 0 = self) must be 0, and argument `w` (a `which`) `self`. */
static void own_only(u32 nr, int w, u32 self, int a) {
  int at = when(nr);
  if (w >= 0) emit(LD_ABS, 0, 0, ARG(w)), emit(JEQ, 0, TO_EPERM, self);
  emit(LD_ABS, 0, 0, ARG(a)), emit(JEQ, TO_ALLOW, TO_EPERM, 0);
  done(at);
}
/* `nr` without MSG_FASTOPEN in its flags argument: a send that opens a TCP connection bypasses connect(). */
static void no_fastopen(u32 nr, int flags) {
  int at = when(nr);
  emit(LD_ABS, 0, 0, ARG(flags)), emit(JSET, TO_EACCES, TO_ALLOW, 0x20000000);
  done(at);
}

/*
 * The filter of one call. Always: the kernel keyring (it outlives calls), io_uring (its operations pass beside
 * these checks), and process attributes (rlimits, nice, affinity, scheduling, I/O priority) of any process but
 * the caller itself — a user namespace does not stop those: the kernel compares uids, not namespaces. Without
 * the IPC namespace: SysV IPC and POSIX message queues. With a connect rule (`egress`): inet sockets other than
 * plain TCP (MPTCP, SCTP, UDP…), families other than inet, netlink and unix, unix sockets themselves below
 * Landlock ABI 9 (which checks pathname sockets: socketpair stays), and MSG_FASTOPEN.
 */
static struct sock_fprog build_filter(int namespaces, int egress, int unix_by_landlock) {
  plen = 0;
  emit(LD_ABS, 0, 0, 4), emit(JEQ, 0, TO_ENOSYS, AUDIT_ARCH); /* another ABI (i386, arm32) numbers differ */
  emit(LD_ABS, 0, 0, 0);
#if defined(__x86_64__)
  emit(JGE, TO_ENOSYS, 0, 0x40000000); /* x32 */
#endif
  refuse(SC_add_key, TO_EPERM), refuse(SC_request_key, TO_EPERM), refuse(SC_keyctl, TO_EPERM);
  refuse(SC_io_uring_setup, TO_ENOSYS);
  int at = when(SC_prlimit64); /* reading another's limits is harmless: new_limit NULL */
  emit(LD_ABS, 0, 0, ARG(0)), emit(JEQ, TO_ALLOW, 0, 0);
  emit(LD_ABS, 0, 0, ARG(2)), emit(JEQ, 0, TO_EPERM, 0);
  emit(LD_ABS, 0, 0, ARG(2) + 4), emit(JEQ, TO_ALLOW, TO_EPERM, 0);
  done(at);
  own_only(SC_setpriority, 0, 0 /* PRIO_PROCESS */, 1);
  own_only(SC_ioprio_set, 0, 1 /* IOPRIO_WHO_PROCESS */, 1);
  own_only(SC_sched_setaffinity, -1, 0, 0);
  own_only(SC_sched_setscheduler, -1, 0, 0);
  own_only(SC_sched_setparam, -1, 0, 0);
  own_only(SC_sched_setattr, -1, 0, 0);
  if (!namespaces) {
    static const u32 ipc[] = {SC_shmget, SC_shmat, SC_shmctl, SC_msgget, SC_msgsnd, SC_msgrcv, SC_msgctl,
                              SC_semget, SC_semop, SC_semctl, SC_semtimedop, SC_mq_open, SC_mq_unlink};
    for (unsigned k = 0; k < sizeof ipc / sizeof ipc[0]; k++) refuse(ipc[k], TO_EPERM);
  }
  if (egress) {
    at = when(SC_socket);
    emit(LD_ABS, 0, 0, ARG(0));
    emit(JEQ, 3, 0, 2 /* AF_INET */), emit(JEQ, 2, 0, 10 /* AF_INET6 */);
    emit(JEQ, TO_ALLOW, 0, 16 /* AF_NETLINK */);
    emit(JEQ, unix_by_landlock ? TO_ALLOW : TO_EACCES, TO_EAFNOSUPPORT, 1 /* AF_UNIX */);
    emit(LD_ABS, 0, 0, ARG(1)), emit(AND, 0, 0, 0xf); /* the type without SOCK_NONBLOCK, SOCK_CLOEXEC */
    emit(JEQ, TO_EACCES, 0, 2 /* SOCK_DGRAM */), emit(JEQ, 0, TO_EPROTONOSUPPORT, 1 /* SOCK_STREAM */);
    emit(LD_ABS, 0, 0, ARG(2)), emit(JEQ, TO_ALLOW, 0, 0), emit(JEQ, TO_ALLOW, TO_EPROTONOSUPPORT, 6 /* TCP */);
    done(at);
    no_fastopen(SC_sendto, 3), no_fastopen(SC_sendmsg, 2), no_fastopen(SC_sendmmsg, 3);
  }
  int base = plen;
  for (unsigned k = 0; k < sizeof returns / sizeof returns[0]; k++) emit(RET, 0, 0, returns[k]);
  for (int i = 0; i < base; i++) {
    if (prog[i].jt >= TO_ALLOW) prog[i].jt = (unsigned char)(base + prog[i].jt - TO_ALLOW - i - 1);
    if (prog[i].jf >= TO_ALLOW) prog[i].jf = (unsigned char)(base + prog[i].jf - TO_ALLOW - i - 1);
  }
  struct sock_fprog f = {(unsigned short)plen, prog};
  return f;
}

#define MAXRULES 4096
static const char *ro[MAXRULES], *rw[MAXRULES];
static u64 ports[64];

/* Parses a decimal u64 up to `stop` (or the end); advances *s past it. 0 when there is no number. */
static int parse_u64(const char **s, char stop, u64 *out) {
  u64 v = 0;
  const char *p = *s;
  if (*p < '0' || *p > '9') return 0;
  for (; *p >= '0' && *p <= '9'; p++) {
    if (v > 1844674407370955160UL) return 0;
    v = v * 10 + (u64)(*p - '0');
  }
  if (*p != stop) return 0;
  *s = p;
  *out = v;
  return 1;
}

/*
 * Enters the directory `path`; with `id` ("<dev>:<ino>", as the server checked it) only if `path` still names that
 * very directory, so a rename or relink after the check cannot move the call elsewhere (-ESTALE when it did).
 */
static i64 enter_cwd(const char *path, const char *id) {
  i64 fd = sys4(NR_openat, AT_FDCWD, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
  if (fd < 0) return fd;
  i64 e = 0;
  if (id) {
    u64 st[32]; /* struct stat: st_dev then st_ino on both architectures */
    u64 dev = 0, ino = 0;
    const char *p = id;
    e = sys2(NR_fstat, fd, st);
    if (e == 0 && !(parse_u64(&p, ':', &dev) && (p++, parse_u64(&p, 0, &ino)))) e = -EINVAL;
    if (e == 0 && (st[0] != dev || st[1] != ino)) e = -ESTALE;
  }
  if (e == 0) e = sys1(NR_fchdir, fd);
  sys1(NR_close, fd);
  return e;
}

/* Runs one call, the command line form: parses the options, confines, forks, waits, reports; never returns. */
static void run_one(int argc, char **argv, char **envp) {
  int nro = 0, nrw = 0, nports = 0, no_connect = 0, probe = 0, simulate = 0, required = 1, wall = WALL_NAMESPACES;
  u64 scoped_want = 0;
  i64 timeout_ms = 0, grace_ms = 2000;
  const char *argv0 = 0, *cwd = 0, *cwd_id = 0, *scratch = 0;
  int i = 1;
  for (; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : 0;
    if (seq(a, "--")) { i++; break; }
    else if (seq(a, "--probe")) probe = 1;
    else if (seq(a, "--no-connect")) no_connect = 1;
    else if (seq(a, "--scope-signals")) scoped_want |= SCOPE_SIGNAL;
    else if (seq(a, "--scope-abstract")) scoped_want |= SCOPE_ABSTRACT_UNIX_SOCKET;
    else if (seq(a, "--simulate-no-landlock")) simulate = 1;
    else if (seq(a, "--no-wall")) wall = WALL_OFF;
    else if (seq(a, "--simulate-no-userns")) { if (wall) wall = WALL_SECCOMP; }
    else if (!v) usage("missing-value");
    else if (seq(a, "--ro") && nro < MAXRULES) ro[nro++] = v, i++;
    else if (seq(a, "--rw") && nrw < MAXRULES) rw[nrw++] = v, i++;
    else if (seq(a, "--argv0")) argv0 = v, i++;
    else if (seq(a, "--cwd")) cwd = v, i++;
    else if (seq(a, "--cwd-id")) cwd_id = v, i++;
    else if (seq(a, "--scratch")) scratch = v, i++;
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
  if (abi >= 9 && no_connect) attr.fs |= FS_RESOLVE_UNIX; /* granted nowhere: only the call's own sockets */
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
    if (wall) { /* what a call would get: namespaces, else the filter (which needs no_new_privs), else nothing */
      struct sock_filter allow = {RET, 0, 0, 0x7fff0000U};
      struct sock_fprog one = {1, &allow};
      if (wall == WALL_NAMESPACES && enter_namespaces() < 0) wall = WALL_SECCOMP;
      if (sys6(NR_prctl, PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0, 0) < 0 ||
          sys6(NR_prctl, PR_SET_SECCOMP, SECCOMP_MODE_FILTER, (i64)&one, 0, 0, 0) < 0)
        wall = WALL_UNAVAILABLE;
    }
    put(" wall=");
    put(wall_names[wall]);
    if (report_fd < 0) report_fd = 1;
    flush();
    sys1(NR_exit_group, 0);
  }

  i64 e = cwd ? enter_cwd(cwd, cwd_id) : 0;
  if (e < 0) die("cwd", e, EXIT_SETUP);
  /* The call's own HOME/TMPDIR: made here, new (never one a call had before), private; removed after the call. */
  if (scratch && (e = sys3(NR_mkdirat, AT_FDCWD, scratch, 0700)) < 0) die("scratch", e, EXIT_SETUP);
  e = sys6(NR_prctl, PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0, 0);
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
      struct path_beneath pb = {k < nro ? ro_rights : attr.fs & ~FS_RESOLVE_UNIX, (int)fd};
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
  /* The second wall: namespaces for the reaper and so the whole call, else the filter's stricter form. */
  if (wall == WALL_NAMESPACES && enter_namespaces() < 0) wall = WALL_SECCOMP;
  struct sock_fprog filter = wall ? build_filter(wall == WALL_NAMESPACES, no_connect, abi >= 9) : (struct sock_fprog){0, 0};
  put(" rules=");
  putn((u64)rules, 0);
  put(" wall=");
  put(wall_names[wall]);
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
    if (filter.len && (e = sys6(NR_prctl, PR_SET_SECCOMP, SECCOMP_MODE_FILTER, (i64)&filter, 0, 0, 0)) < 0)
      die("wall", e, EXIT_SETUP);
    char **cmd = argv + i;
    const char *file = cmd[0];
    if (argv0) cmd[0] = (char *)argv0;
    e = sys3(NR_execve, file, cmd, envp);
    die("exec", e, e == -ENOENT ? EXIT_NOT_FOUND : EXIT_EXEC);
  }
  if (ruleset >= 0) sys1(NR_close, ruleset);
  /* Only the command and its descendants hold its streams: they close when the last of them is gone. */
  for (int fd = 0; fd < 3; fd++) if (fd != report_fd) sys1(NR_close, fd);

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
  put(" status=");
  putn((u64)(u32)status, 0);
  /* Nothing of the call is left to write into it: most calls leave it empty (one rmdir); else the server removes it. */
  if (scratch) put(sys3(NR_unlinkat, AT_FDCWD, scratch, AT_REMOVEDIR) == 0 ? " scratch=removed" : " scratch=kept");
  flush();

  /* Relay: exit with the command's code, or die of the command's signal. */
  int termsig = status & 0x7f;
  if (termsig == 0) sys1(NR_exit_group, (status >> 8) & 0xff);
  u64 one = 1UL << (termsig - 1);
  sys4(NR_rt_sigprocmask, 1 /* SIG_UNBLOCK */, &one, 0, 8);
  sys2(NR_kill, self, termsig);
  sys1(NR_exit_group, 128 + termsig);
}

/* ---- the resident spawner (--serve): frames in on fd 0, frames out on fd 1 (docs/confinement.md) ---- */
#define MAXCALLS 4096
#define INBUF (4UL << 20)
#define MAXSTR 262144
#define CHUNK 65536
#define DRAIN_MS 500
enum { SFD_NONBLOCK = O_NONBLOCK, SFD_CLOEXEC = O_CLOEXEC, POLLIN = 1, POLLERR = 8, POLLHUP = 16 };
struct pollfd { int fd; short events, revents; };
struct call { u32 id; int pid, fd[3], reaped, done_seen, status; i64 drain_at; };
/* A call ends when its reaper said done and its streams are closed (the reaper's own exit is not waited for: its
   status came with the done line), or, when the reaper died without saying done, once it is reaped and its
   streams are closed (or 500 ms later). */
static struct call calls[MAXCALLS];
static int ncalls;
static char inbuf[INBUF];
static unsigned long inlen;
static char obuf[CHUNK];
static char *req[MAXSTR + 8];
/* Options before `--serve` (`--simulate-no-landlock`, `--simulate-no-userns`, `--no-wall`): given to every call. */
static char **serve_flags;
static int nserve_flags;
static struct pollfd pfds[2 + 3 * MAXCALLS];
static struct call *pcall[2 + 3 * MAXCALLS];
static int pstream[2 + 3 * MAXCALLS];

static u32 get32(const char *p) {
  const unsigned char *u = (const unsigned char *)p;
  return (u32)u[0] | (u32)u[1] << 8 | (u32)u[2] << 16 | (u32)u[3] << 24;
}
static void set32(char *p, u32 v) {
  p[0] = (char)v, p[1] = (char)(v >> 8), p[2] = (char)(v >> 16), p[3] = (char)(v >> 24);
}

/*
 * Frames out are gathered and written once per loop turn (one wake-up of the server for a call's report and end,
 * not one per frame). Writes block: when the server is slow to read, the spawner waits; when it is gone, the
 * spawner ends (its reapers then clean up on their own).
 */
static char outbuf[1UL << 18];
static unsigned long outlen;

static void flush_out(void) {
  const char *p = outbuf;
  while (outlen) {
    i64 w = sys3(NR_write, 1, p, outlen);
    if (w == -EINTR || w == -EAGAIN) continue;
    if (w <= 0) sys1(NR_exit_group, 0);
    p += w, outlen -= (unsigned long)w;
  }
}

/* A frame: u32 length of what follows (little-endian), a kind byte, the u32 call id, the payload. */
static void send_frame(char kind, u32 id, const char *payload, unsigned long n) {
  if (outlen + 9 + n > sizeof outbuf) flush_out();
  char *f = outbuf + outlen;
  set32(f, (u32)(5 + n));
  f[4] = kind;
  set32(f + 5, id);
  memcpy(f + 9, payload, n);
  outlen += 9 + n;
}

static void send_number(char kind, u32 id, i64 v) {
  char b[24];
  int k = 0, neg = v < 0;
  u64 u = neg ? (u64)-v : (u64)v;
  char d[24];
  int j = 0;
  do d[j++] = (char)('0' + u % 10), u /= 10;
  while (u);
  if (neg) b[k++] = '-';
  while (j--) b[k++] = d[j];
  send_frame(kind, id, b, (unsigned long)k);
}

static int live_reaper(int pid) {
  for (int k = 0; k < ncalls; k++)
    if (calls[k].pid == pid && !calls[k].reaped) return 1;
  return 0;
}

/*
 * Starts one call from a run request: `u32 argc, u32 envc`, then argc + envc NUL-terminated strings (the command
 * line form's options and command, then the environment). The reaper child runs it as run_one does.
 */
static void start_call(u32 id, const char *payload, unsigned long n) {
  int out[2], err[2], rep[2];
  if (ncalls >= MAXCALLS || n < 8) { send_number('X', id, n < 8 ? EINVAL : EAGAIN); return; }
  u32 argc = get32(payload), envc = get32(payload + 4);
  if (argc == 0 || argc > MAXSTR || envc > MAXSTR || argc + envc > MAXSTR) { send_number('X', id, EINVAL); return; }
  i64 e = sys2(NR_pipe2, out, O_CLOEXEC);
  if (e == 0) { e = sys2(NR_pipe2, err, O_CLOEXEC); if (e < 0) sys1(NR_close, out[0]), sys1(NR_close, out[1]); }
  if (e == 0) {
    e = sys2(NR_pipe2, rep, O_CLOEXEC);
    if (e < 0) for (int k = 0; k < 2; k++) sys1(NR_close, out[k]), sys1(NR_close, err[k]);
  }
  if (e < 0) { send_number('X', id, -e); return; }
  /* Only the spawner's ends are non-blocking: the command's stdout and stderr stay as programs expect them. */
  sys3(NR_fcntl, out[0], F_SETFL, O_NONBLOCK), sys3(NR_fcntl, err[0], F_SETFL, O_NONBLOCK);
  sys3(NR_fcntl, rep[0], F_SETFL, O_NONBLOCK);
  i64 pid = sys6(NR_clone, SIGCHLD, 0, 0, 0, 0, 0);
  if (pid == 0) {
    /* The reaper: its own process group, the call's pipes as 1, 2 and 3, nothing else of the spawner's. */
    u64 none = 0;
    sys4(NR_rt_sigprocmask, SIG_SETMASK, &none, 0, 8);
    sys2(NR_setpgid, 0, 0);
    i64 null = sys4(NR_openat, AT_FDCWD, "/dev/null", O_RDONLY, 0);
    if (null >= 0 && null != 0) sys3(NR_dup3, null, 0, 0);
    sys3(NR_dup3, out[1], 1, 0);
    sys3(NR_dup3, err[1], 2, 0);
    if (rep[1] != 3) sys3(NR_dup3, rep[1], 3, 0);
    if (sys3(NR_close_range, 4, ~0U, 0) < 0)
      for (int fd = 4; fd < 4096; fd++) sys1(NR_close, fd);
    const char *p = payload + 8, *end = payload + n;
    u32 base = 1;
    req[0] = "toolyard-confine";
    for (int f = 0; f < nserve_flags; f++) req[base++] = serve_flags[f];
    for (u32 k = 0; k < argc + envc; k++) {
      if (p >= end) { report_fd = 3; usage("request"); }
      req[k + base + (k >= argc)] = (char *)p;
      while (p < end && *p) p++;
      p++;
    }
    req[argc + base] = 0;
    req[argc + envc + base + 1] = 0;
    run_one((int)(argc + base), req, req + argc + base + 1);
  }
  sys1(NR_close, out[1]), sys1(NR_close, err[1]), sys1(NR_close, rep[1]);
  if (pid < 0) {
    sys1(NR_close, out[0]), sys1(NR_close, err[0]), sys1(NR_close, rep[0]);
    send_number('X', id, -pid);
    return;
  }
  struct call *c = &calls[ncalls++];
  c->id = id, c->pid = (int)pid, c->fd[0] = out[0], c->fd[1] = err[0], c->fd[2] = rep[0];
  c->reaped = 0, c->done_seen = 0, c->status = 0, c->drain_at = 0;
}

/* A signal for a live call's reaper (SIGTERM: terminate, then kill after the grace; the reaper does the rest). */
static void signal_call(u32 id, const char *payload, unsigned long n) {
  if (n < 1 || (payload[0] != SIGTERM && payload[0] != SIGKILL)) return;
  for (int k = 0; k < ncalls; k++)
    if (calls[k].id == id && !calls[k].reaped) sys2(NR_kill, calls[k].pid, payload[0]);
}

/* Handles every complete frame in the input buffer; returns 0 on a malformed stream. */
static int handle_input(void) {
  unsigned long off = 0;
  while (inlen - off >= 4) {
    u32 len = get32(inbuf + off);
    if (len < 5 || len > INBUF - 4) return 0;
    if (inlen - off - 4 < len) break;
    char kind = inbuf[off + 4];
    u32 id = get32(inbuf + off + 5);
    const char *payload = inbuf + off + 9;
    if (kind == 'R') start_call(id, payload, len - 5);
    else if (kind == 'K') signal_call(id, payload, len - 5);
    else return 0;
    off += 4 + len;
  }
  for (unsigned long k = off; k < inlen; k++) inbuf[k - off] = inbuf[k];
  inlen -= off;
  return 1;
}

/* Ends a call: its streams are closed and its reaper reaped; the end frame carries the reaper's wait status. */
static void end_call(int k) {
  struct call *c = &calls[k];
  for (int s = 0; s < 3; s++)
    if (c->fd[s] >= 0) sys1(NR_close, c->fd[s]), c->fd[s] = -1;
  send_number('E', c->id, c->status);
  calls[k] = calls[--ncalls];
}

/* Notes a `done … status=N` line in what the report pipe just gave (one write, so one read). */
static void done_line(struct call *c, i64 r) {
  for (i64 q = 0; q + 4 <= r; q++) {
    if (obuf[q] != 'd' || obuf[q + 1] != 'o' || obuf[q + 2] != 'n' || obuf[q + 3] != 'e') continue;
    for (i64 k = q; k + 8 <= r && obuf[k] != '\n'; k++) {
      if (obuf[k] != ' ' || obuf[k + 1] != 's' || obuf[k + 2] != 't' || obuf[k + 6] != 's' || obuf[k + 7] != '=') continue;
      i64 v = 0;
      for (k += 8; k < r && obuf[k] >= '0' && obuf[k] <= '9'; k++) v = v * 10 + (obuf[k] - '0');
      c->done_seen = 1, c->status = (int)v;
      return;
    }
  }
}

/* Relays what one of a call's pipes holds now; closes it at its end. 2: relayed, 1: nothing yet, 0: closed. */
static int relay(struct call *c, int s) {
  i64 r = sys3(NR_read, c->fd[s], obuf, CHUNK);
  if (r > 0) {
    if (s == 2) done_line(c, r);
    send_frame((char)('1' + s), c->id, obuf, (unsigned long)r);
    return 2;
  }
  if (r == -EINTR || r == -EAGAIN) return 1;
  sys1(NR_close, c->fd[s]);
  c->fd[s] = -1;
  return 0;
}

static void reap(int self) {
  int st;
  i64 pid;
  while ((pid = sys4(NR_wait4, -1, &st, WNOHANG, 0)) > 0) {
    for (int k = 0; k < ncalls; k++) {
      struct call *c = &calls[k];
      if (c->pid != pid || c->reaped) continue;
      c->reaped = 1, c->drain_at = now_ms() + DRAIN_MS;
      /* Its report is complete now (the reaper was its only writer): read it before judging how it ended. */
      while (c->fd[2] >= 0 && relay(c, 2) == 2) {}
      if (!c->done_seen) {
        c->status = st;
        /* The reaper died before it was done (killed from outside): its leftovers are orphans now. */
        sys2(NR_kill, -c->pid, SIGKILL);
        spared = live_reaper;
        signal_descendants(self, SIGKILL);
      }
    }
  }
}

static void serve(void) {
  int self = (int)sys0(NR_getpid), closing = 0;
  sys6(NR_prctl, PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0, 0); /* the server died: so does the spawner */
  sys6(NR_prctl, PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0, 0); /* a killed reaper's orphans come here */
  sys6(NR_prctl, PR_SET_DUMPABLE, 0, 0, 0, 0, 0);
  u64 chld = 1UL << (SIGCHLD - 1);
  sys4(NR_rt_sigprocmask, SIG_BLOCK, &chld, 0, 8);
  i64 sfd = sys4(NR_signalfd4, -1, &chld, 8, SFD_NONBLOCK | SFD_CLOEXEC);
  if (sfd < 0) die("signalfd", sfd, EXIT_SETUP);
  for (;;) {
    int n = 0;
    if (!closing) pfds[n].fd = 0, pfds[n].events = POLLIN, pcall[n] = 0, n++;
    pfds[n].fd = (int)sfd, pfds[n].events = POLLIN, pcall[n] = 0, n++;
    i64 t = now_ms(), wait = -1;
    for (int k = 0; k < ncalls; k++) {
      struct call *c = &calls[k];
      for (int s = 0; s < 3; s++)
        if (c->fd[s] >= 0) pfds[n].fd = c->fd[s], pfds[n].events = POLLIN, pcall[n] = c, pstream[n] = s, n++;
      if (c->reaped && (wait < 0 || c->drain_at - t < wait)) wait = c->drain_at > t ? c->drain_at - t : 0;
    }
    struct timespec ts = {wait / 1000, (wait % 1000) * 1000000};
    i64 ready = sys6(NR_ppoll, (i64)pfds, n, wait < 0 ? 0 : (i64)&ts, 0, 8, 0);
    if (ready < 0 && ready != -EINTR) die("poll", ready, EXIT_SETUP);
    for (int k = 0; ready > 0 && k < n; k++) {
      if (!pfds[k].revents) continue;
      struct call *c = pcall[k];
      if (!c && pfds[k].fd == 0) {
        i64 r = inlen < INBUF ? sys3(NR_read, 0, inbuf + inlen, INBUF - inlen) : -EINVAL;
        if (r > 0) { inlen += (unsigned long)r; if (!handle_input()) die("frame", -EINVAL, EXIT_SETUP); }
        else if (r != -EINTR && r != -EAGAIN) {
          closing = 1; /* the server closed its end: end every call, then exit */
          for (int j = 0; j < ncalls; j++)
            if (!calls[j].reaped) sys2(NR_kill, calls[j].pid, SIGTERM);
        }
      } else if (!c) {
        char info[128 * 8];
        while (sys3(NR_read, sfd, info, sizeof info) > 0) {}
        reap(self);
      } else {
        if (c->fd[pstream[k]] >= 0) relay(c, pstream[k]);
      }
    }
    reap(self);
    t = now_ms();
    for (int k = ncalls - 1; k >= 0; k--) {
      struct call *c = &calls[k];
      int streams = c->fd[0] >= 0 || c->fd[1] >= 0;
      if (c->done_seen && !streams) { end_call(k); continue; }
      if (!c->reaped) continue;
      int open = streams || c->fd[2] >= 0;
      if (open && t < c->drain_at) continue;
      if (open) sys2(NR_kill, -c->pid, SIGKILL); /* whatever still holds the pipes */
      end_call(k);
    }
    flush_out();
    if (closing && ncalls == 0) sys1(NR_exit_group, 0);
  }
}

__attribute__((used)) void cmain(long *sp) {
  int argc = (int)sp[0];
  char **argv = (char **)(sp + 1), **envp = argv + argc + 1;
  if (argc >= 2 && argc <= 5 && seq(argv[argc - 1], "--serve")) {
    for (int i = 1; i < argc - 1; i++)
      if (!seq(argv[i], "--simulate-no-landlock") && !seq(argv[i], "--simulate-no-userns") && !seq(argv[i], "--no-wall"))
        usage("serve");
    serve_flags = argv + 1, nserve_flags = argc - 2;
    serve();
  }
  run_one(argc, argv, envp);
}
