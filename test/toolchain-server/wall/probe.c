/*
 * The second wall's probe (confine-wall.test.ts): makes each system call the wall decides on, exactly as named,
 * and prints one line per operation: `<op>=0` when the kernel let it through, `<op>=<errno>` when it refused.
 * Built by the test with the system's gcc; run under toolyard-confine, and without it for the kernel's own
 * answers (what the control compares with).
 *
 *   probe OP[:ARG]...     ARG: a pid for the process-attribute operations, a port for the network ones
 */
#define _GNU_SOURCE
#include <errno.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

static long result(long r) { return r < 0 ? errno : 0; }

/* A socket of this kind, opened and closed: 0 or errno. */
static long open_socket(int family, int type, int protocol) {
  int fd = socket(family, type, protocol);
  if (fd < 0) return errno;
  close(fd);
  return 0;
}

static struct sockaddr_in loopback(int port) {
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((unsigned short)port)};
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  return a;
}

/* A TCP connection to 127.0.0.1:port opened by `how`: connect, sendto/sendmsg/sendmmsg with MSG_FASTOPEN. */
static long tcp_to(int port, const char *how, int protocol) {
  struct sockaddr_in a = loopback(port);
  int fd = socket(AF_INET, SOCK_STREAM, protocol);
  if (fd < 0) return errno;
  char byte = 'x';
  long r;
  if (!strcmp(how, "connect")) r = connect(fd, (struct sockaddr *)&a, sizeof a);
  else if (!strcmp(how, "sendto")) r = sendto(fd, &byte, 1, MSG_FASTOPEN, (struct sockaddr *)&a, sizeof a);
  else {
    struct iovec io = {&byte, 1};
    struct msghdr m = {.msg_name = &a, .msg_namelen = sizeof a, .msg_iov = &io, .msg_iovlen = 1};
    if (!strcmp(how, "sendmsg")) r = sendmsg(fd, &m, MSG_FASTOPEN);
    else {
      struct mmsghdr mm = {.msg_hdr = m};
      r = sendmmsg(fd, &mm, 1, MSG_FASTOPEN);
    }
  }
  r = result(r);
  close(fd);
  return r;
}

static long udp_to(int port) {
  struct sockaddr_in a = loopback(port);
  int fd = socket(AF_INET, SOCK_DGRAM, 0);
  if (fd < 0) return errno;
  long r = result(sendto(fd, "x", 1, 0, (struct sockaddr *)&a, sizeof a));
  close(fd);
  return r;
}

static long x32_getpid(void) {
#if defined(__x86_64__)
  return result(syscall(0x40000000 | SYS_getpid));
#else
  return ENOSYS;
#endif
}

/* getpid through the i386 entry (int 0x80: another syscall table, which the filter cannot read). */
static long i386_getpid(void) {
#if defined(__x86_64__)
  long r;
  __asm__ volatile("int $0x80" : "=a"(r) : "a"(20) : "memory");
  return r < 0 ? -r : 0;
#else
  return ENOSYS;
#endif
}

static long run(const char *op, long arg) {
  struct sched_param param = {0};
  unsigned long attr[14] = {56};
  cpu_set_t cpus;
  if (!strcmp(op, "add_key")) return result(syscall(SYS_add_key, "user", "probe", "x", 1, -4));
  if (!strcmp(op, "request_key")) return result(syscall(SYS_request_key, "user", "probe", 0, -4));
  if (!strcmp(op, "keyctl")) return result(syscall(SYS_keyctl, 0 /* GET_KEYRING_ID */, -4, 0));
  if (!strcmp(op, "io_uring_setup")) {
    char params[120] = {0};
    long fd = syscall(425, 1, params);
    if (fd >= 0) close((int)fd);
    return result(fd);
  }
  if (!strcmp(op, "prlimit")) { /* the pid's core limit, set to what it is */
    long limit[2];
    if (syscall(SYS_prlimit64, arg, 4 /* RLIMIT_CORE */, 0, limit) < 0) return errno;
    return result(syscall(SYS_prlimit64, arg, 4, limit, 0));
  }
  if (!strcmp(op, "prlimit-read")) {
    long limit[2];
    return result(syscall(SYS_prlimit64, arg, 4, 0, limit));
  }
  if (!strcmp(op, "setpriority")) return result(syscall(SYS_setpriority, 0 /* PRIO_PROCESS */, arg, 19));
  if (!strcmp(op, "setpriority-pgrp")) return result(syscall(SYS_setpriority, 1, arg, 19));
  if (!strcmp(op, "setpriority-user")) return result(syscall(SYS_setpriority, 2, arg, 19));
  if (!strcmp(op, "ioprio_set")) return result(syscall(SYS_ioprio_set, 1 /* WHO_PROCESS */, arg, 2 << 13 | 7));
  if (!strcmp(op, "ioprio_set-pgrp")) return result(syscall(SYS_ioprio_set, 2, arg, 2 << 13 | 7));
  if (!strcmp(op, "ioprio_set-user")) return result(syscall(SYS_ioprio_set, 3, arg, 2 << 13 | 7));
  if (!strcmp(op, "sched_setaffinity")) {
    if (syscall(SYS_sched_getaffinity, arg, sizeof cpus, &cpus) < 0) return errno;
    return result(syscall(SYS_sched_setaffinity, arg, sizeof cpus, &cpus));
  }
  if (!strcmp(op, "sched_setscheduler")) return result(syscall(SYS_sched_setscheduler, arg, 0 /* OTHER */, &param));
  if (!strcmp(op, "sched_setparam")) return result(syscall(SYS_sched_setparam, arg, &param));
  if (!strcmp(op, "sched_setattr")) { /* the pid's attributes, set to what they are */
    if (syscall(SYS_sched_getattr, arg, attr, sizeof attr, 0) < 0) return errno;
    return result(syscall(SYS_sched_setattr, arg, attr, 0));
  }
  if (!strcmp(op, "shmget")) return result(syscall(SYS_shmget, IPC_PRIVATE, 4096, 0600));
  if (!strcmp(op, "msgget")) return result(syscall(SYS_msgget, IPC_PRIVATE, 0600));
  if (!strcmp(op, "semget")) return result(syscall(SYS_semget, IPC_PRIVATE, 1, 0600));
  /* Test set-up, not probes: a segment that outlives this process (prints its id), and its removal. */
  if (!strcmp(op, "shm-create")) return syscall(SYS_shmget, IPC_PRIVATE, 4096, 0600);
  if (!strcmp(op, "shm-remove")) return result(syscall(SYS_shmctl, arg, IPC_RMID, 0));
  /* An outside segment by its id: EFAULT (NULL buffer) means the kernel looked it up and would have answered. */
  if (!strcmp(op, "shmctl")) return result(syscall(SYS_shmctl, arg, IPC_STAT, 0));
  if (!strcmp(op, "mq_open")) {
    long fd = syscall(SYS_mq_open, "toolyard-probe", 0100 /* O_CREAT */ | 2, 0600, 0);
    if (fd >= 0) syscall(SYS_mq_unlink, "toolyard-probe"), close((int)fd);
    return result(fd);
  }
  if (!strcmp(op, "tcp")) return open_socket(AF_INET, SOCK_STREAM, 0);
  if (!strcmp(op, "tcp-ipproto")) return open_socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, IPPROTO_TCP);
  if (!strcmp(op, "tcp6")) return open_socket(AF_INET6, SOCK_STREAM | SOCK_NONBLOCK, IPPROTO_TCP);
  if (!strcmp(op, "mptcp")) return open_socket(AF_INET, SOCK_STREAM, 262);
  if (!strcmp(op, "mptcp6")) return open_socket(AF_INET6, SOCK_STREAM, 262);
  if (!strcmp(op, "sctp")) return open_socket(AF_INET, SOCK_STREAM, 132);
  if (!strcmp(op, "sctp-seqpacket")) return open_socket(AF_INET6, SOCK_SEQPACKET, 132);
  if (!strcmp(op, "smc-ipproto")) return open_socket(AF_INET, SOCK_STREAM, 256);
  if (!strcmp(op, "udp")) return open_socket(AF_INET, SOCK_DGRAM, 0);
  if (!strcmp(op, "udp6")) return open_socket(AF_INET6, SOCK_DGRAM, IPPROTO_UDP);
  if (!strcmp(op, "udplite")) return open_socket(AF_INET, SOCK_DGRAM, 136);
  if (!strcmp(op, "icmp")) return open_socket(AF_INET, SOCK_DGRAM, IPPROTO_ICMP);
  if (!strcmp(op, "unix-stream")) return open_socket(AF_UNIX, SOCK_STREAM, 0);
  if (!strcmp(op, "unix-dgram")) return open_socket(AF_UNIX, SOCK_DGRAM, 0);
  if (!strcmp(op, "socketpair")) {
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0) return errno;
    close(sv[0]), close(sv[1]);
    return 0;
  }
  if (!strcmp(op, "netlink")) return open_socket(AF_NETLINK, SOCK_RAW, 0);
  if (!strcmp(op, "smc")) return open_socket(43 /* AF_SMC */, SOCK_STREAM, 0);
  if (!strcmp(op, "connect")) return tcp_to((int)arg, "connect", 0);
  if (!strcmp(op, "fastopen-sendto")) return tcp_to((int)arg, "sendto", 0);
  if (!strcmp(op, "fastopen-sendmsg")) return tcp_to((int)arg, "sendmsg", 0);
  if (!strcmp(op, "fastopen-sendmmsg")) return tcp_to((int)arg, "sendmmsg", 0);
  if (!strcmp(op, "mptcp-connect")) return tcp_to((int)arg, "connect", 262);
  if (!strcmp(op, "udp-send")) return udp_to((int)arg);
  if (!strcmp(op, "x32")) return x32_getpid();
  if (!strcmp(op, "i386")) return i386_getpid();
  if (!strcmp(op, "uid")) return (long)getuid(); /* prints the uid itself */
  fprintf(stderr, "probe: unknown operation %s\n", op);
  exit(2);
}

int main(int argc, char **argv) {
  for (int i = 1; i < argc; i++) {
    char op[64];
    const char *colon = strchr(argv[i], ':');
    size_t n = colon ? (size_t)(colon - argv[i]) : strlen(argv[i]);
    if (n >= sizeof op) return 2;
    memcpy(op, argv[i], n), op[n] = 0;
    long arg = colon ? atol(colon + 1) : 0;
    printf("%s=%ld\n", argv[i], run(op, arg));
    fflush(stdout);
  }
  return 0;
}
