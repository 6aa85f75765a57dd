/*
 * What toolyard-confine and toolyard-codebox share, being freestanding (no libc): the raw syscall for x86_64 and
 * aarch64 and the entry point that hands `cmain` the initial stack; the syscall numbers either one makes or names in
 * a seccomp filter; the kernel's constants they use; classic BPF's layout; and the few functions gcc may call or
 * both need. Included once by each program's only translation unit (toolchain-server/scripts/build-confine.ts).
 */
#ifndef TOOLYARD_FREESTANDING_H
#define TOOLYARD_FREESTANDING_H

typedef unsigned long u64;
typedef long i64;
typedef unsigned int u32;

/* NR_: syscalls the programs make; SC_: syscalls their seccomp filters name. AUDIT_ARCH: the filter's arch. */
#if defined(__x86_64__)
enum { NR_read = 0, NR_write = 1, NR_close = 3, NR_fstat = 5, NR_rt_sigprocmask = 14, NR_nanosleep = 35,
       NR_getpid = 39, NR_clone = 56, NR_execve = 59, NR_wait4 = 61, NR_kill = 62, NR_fcntl = 72, NR_fchdir = 81,
       NR_getuid = 102, NR_getgid = 104, NR_setpgid = 109, NR_rt_sigtimedwait = 128, NR_prctl = 157,
       NR_getdents64 = 217, NR_clock_gettime = 228, NR_exit_group = 231, NR_openat = 257, NR_mkdirat = 258,
       NR_mknodat = 259, NR_unlinkat = 263, NR_readlinkat = 267, NR_ppoll = 271, NR_unshare = 272,
       NR_signalfd4 = 289, NR_dup3 = 292, NR_pipe2 = 293, NR_prlimit64 = 302 };
enum { SC_socket = 41, SC_sendto = 44, SC_sendmsg = 46, SC_socketpair = 53, SC_sendmmsg = 307, SC_prlimit64 = 302,
       SC_setpriority = 141, SC_sched_setaffinity = 203, SC_sched_setscheduler = 144, SC_sched_setparam = 142,
       SC_sched_setattr = 314, SC_ioprio_set = 251, SC_add_key = 248, SC_request_key = 249, SC_keyctl = 250,
       SC_shmget = 29, SC_shmat = 30, SC_shmctl = 31, SC_msgget = 68, SC_msgsnd = 69, SC_msgrcv = 70, SC_msgctl = 71,
       SC_semget = 64, SC_semop = 65, SC_semctl = 66, SC_semtimedop = 220, SC_mq_open = 240, SC_mq_unlink = 241,
       AUDIT_ARCH = 0xc000003e };
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
#define O_DIRECTORY 0200000
#elif defined(__aarch64__)
enum { NR_read = 63, NR_write = 64, NR_close = 57, NR_fstat = 80, NR_rt_sigprocmask = 135, NR_nanosleep = 101,
       NR_getpid = 172, NR_clone = 220, NR_execve = 221, NR_wait4 = 260, NR_kill = 129, NR_fcntl = 25,
       NR_fchdir = 50, NR_getuid = 174, NR_getgid = 176, NR_setpgid = 154, NR_rt_sigtimedwait = 137,
       NR_prctl = 167, NR_getdents64 = 61, NR_clock_gettime = 113, NR_exit_group = 94, NR_openat = 56,
       NR_mkdirat = 34, NR_mknodat = 33, NR_unlinkat = 35, NR_readlinkat = 78, NR_ppoll = 73, NR_unshare = 97,
       NR_signalfd4 = 74, NR_dup3 = 24, NR_pipe2 = 59, NR_prlimit64 = 261 };
enum { SC_socket = 198, SC_sendto = 206, SC_sendmsg = 211, SC_socketpair = 199, SC_sendmmsg = 269,
       SC_prlimit64 = 261, SC_setpriority = 140, SC_sched_setaffinity = 122, SC_sched_setscheduler = 119,
       SC_sched_setparam = 118, SC_sched_setattr = 274, SC_ioprio_set = 30, SC_add_key = 217, SC_request_key = 218,
       SC_keyctl = 219, SC_shmget = 194, SC_shmat = 196, SC_shmctl = 195, SC_msgget = 186, SC_msgsnd = 189,
       SC_msgrcv = 188, SC_msgctl = 187, SC_semget = 190, SC_semop = 193, SC_semctl = 191, SC_semtimedop = 192,
       SC_mq_open = 180, SC_mq_unlink = 181, AUDIT_ARCH = 0xc00000b7 };
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
#define O_DIRECTORY 040000
#else
#error "toolyard's confinement helpers support x86_64 and aarch64"
#endif

/* Same numbers on both architectures (the generic table starts them at 424+). */
enum { NR_landlock_create_ruleset = 444, NR_landlock_add_rule = 445, NR_landlock_restrict_self = 446,
       NR_close_range = 436, SC_io_uring_setup = 425, SC_io_uring_enter = 426, SC_io_uring_register = 427 };
#define sys0(n) sys6(n, 0, 0, 0, 0, 0, 0)
#define sys1(n, a) sys6(n, (i64)(a), 0, 0, 0, 0, 0)
#define sys2(n, a, b) sys6(n, (i64)(a), (i64)(b), 0, 0, 0, 0)
#define sys3(n, a, b, c) sys6(n, (i64)(a), (i64)(b), (i64)(c), 0, 0, 0)
#define sys4(n, a, b, c, d) sys6(n, (i64)(a), (i64)(b), (i64)(c), (i64)(d), 0, 0)

enum { EPERM = 1, ENOENT = 2, EINTR = 4, ECHILD = 10, EAGAIN = 11, EACCES = 13, ENOTDIR = 20, EINVAL = 22,
       ENOSYS = 38, ELOOP = 40, EPROTONOSUPPORT = 93, EOPNOTSUPP = 95, EAFNOSUPPORT = 97, ESTALE = 116 };
enum { AT_FDCWD = -100, O_RDONLY = 0, O_WRONLY = 1, O_RDWR = 2, O_NONBLOCK = 04000, O_CLOEXEC = 02000000,
       O_PATH = 010000000 };
enum { PR_SET_PDEATHSIG = 1, PR_SET_DUMPABLE = 4, PR_SET_SECCOMP = 22, PR_SET_CHILD_SUBREAPER = 36,
       PR_SET_NO_NEW_PRIVS = 38, SECCOMP_MODE_FILTER = 2 };

/* Classic BPF over struct seccomp_data: nr at 0, arch at 4, then six u64 arguments from 16 (little-endian). */
struct sock_filter { unsigned short code; unsigned char jt, jf; u32 k; };
struct sock_fprog { unsigned short len; struct sock_filter *filter; };
enum { LD_ABS = 0x20, JEQ = 0x15, JGE = 0x35, JSET = 0x45, AND = 0x54, RET = 0x06 };

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

/* Whether two strings are equal. */
static int seq(const char *a, const char *b) {
  while (*a && *a == *b) a++, b++;
  return *a == *b;
}

#endif
