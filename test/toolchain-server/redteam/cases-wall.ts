/**
 * What the fourth outside review got through Landlock (issue 32), as cases for the second wall: process attributes
 * of the server, the spawner and other processes of the uid; kernel state one call keeps for the next (SysV IPC,
 * the keyring) or reads from outside; and the network paths beside Landlock's TCP connect rule (MPTCP, TCP Fast
 * Open, UDP, pathname Unix sockets). Each is a script reached through sh, python or node, as workspace code runs;
 * each payload says or sends its proof only when the system call went through. Under Landlock alone (`--no-wall`)
 * every one of them bites: that is their control, besides the unconfined one.
 */
import { type Effect, numbered, type Planted, PROOF, REACHED, type RedCase, SECRET } from './case.ts';

const PY = '/usr/bin/python3';
const CHANGED = PROOF('CHANGED-@ID@');

/** One payload: a script run by `runner` (sh, python, node), and, for kept state, the script of the next call. */
interface Payload {
  readonly what: string;
  readonly runner: 'sh' | 'python' | 'node' | 'perl';
  readonly script: string;
  readonly next?: string;
  readonly effect: Effect;
}

const FILE = { sh: 'payload.sh', python: 'payload.py', node: 'payload.js', perl: 'payload.pl' } as const;
const ARGV = { sh: ['sh'], python: ['python3'], node: ['node'], perl: ['perl'] } as const;

function asCase(p: Payload): Omit<RedCase, 'id' | 'class'> {
  const files: Record<string, Planted> = { [FILE[p.runner]]: p.script };
  if (p.next) files[`next-${FILE[p.runner]}`] = p.next;
  return {
    what: p.what,
    argv: [...ARGV[p.runner], FILE[p.runner]],
    files,
    ...(p.next ? { next: [...ARGV[p.runner], `next-${FILE[p.runner]}`] } : {}),
    effect: p.effect,
  };
}

/** Each attribute change, through util-linux as a script would make it; it sets what is there already, or less. */
const ATTRIBUTES: ReadonlyArray<readonly [what: string, command: (pid: string) => string]> = [
  ['lowers the core-dump limit of (prlimit)', (pid) => `prlimit --pid ${pid} --core=0:`],
  [
    'pins the CPU affinity of (taskset)',
    (pid) => `taskset -p "$(taskset -p ${pid} | sed 's/.*: //')" ${pid}`,
  ],
  ['sets the scheduling policy of (chrt)', (pid) => `chrt -o -p 0 ${pid}`],
  ['lowers the I/O priority of (ionice)', (pid) => `ionice -c 2 -n 7 -p ${pid}`],
  [
    'raises the nice value of (setpriority)',
    (pid) => `${PY} -c 'import os; os.setpriority(os.PRIO_PROCESS, ${pid}, 5)'`,
  ],
];
const TARGETS: ReadonlyArray<readonly [name: string, placeholder: string]> = [
  ['the server', '@PID@'],
  ['the resident spawner', '@SPAWNER@'],
  ['another process of the uid', '@STAND@'],
];

const PROCESS_ATTRIBUTE_PAYLOADS: Payload[] = [
  ...TARGETS.flatMap(([target, pid]) =>
    ATTRIBUTES.map(([what, command]) => ({
      what: `${what} ${target}`,
      runner: 'sh' as const,
      script: `${command(pid)} && echo CHANGED-@ID@\n`,
      effect: CHANGED,
    })),
  ),
  {
    what: "raises the nice value of the server's whole process group (PRIO_PGRP)",
    runner: 'python',
    script: 'import os\nos.setpriority(os.PRIO_PGRP, os.getpgid(@PID@), 5)\nprint("CHANGED-@ID@")\n',
    effect: CHANGED,
  },
  {
    what: 'raises the nice value of every process of the uid (PRIO_USER)',
    runner: 'python',
    script: 'import os\nos.setpriority(os.PRIO_USER, os.getuid(), 5)\nprint("CHANGED-@ID@")\n',
    effect: CHANGED,
  },
  {
    what: 'lowers the I/O priority of every process of the uid (IOPRIO_WHO_USER)',
    runner: 'sh',
    script: 'ionice -c 2 -n 7 -u "$(id -u)" && echo CHANGED-@ID@\n',
    effect: CHANGED,
  },
  {
    what: "sets the server's open-file limit to what it is (resource.prlimit: any value would do)",
    runner: 'python',
    script:
      'import resource\nlimit = resource.prlimit(@PID@, resource.RLIMIT_NOFILE)\nresource.prlimit(@PID@, resource.RLIMIT_NOFILE, limit)\nprint("CHANGED-@ID@")\n',
    effect: CHANGED,
  },
  {
    what: 'moves the spawner to the CPUs it has (os.sched_setaffinity)',
    runner: 'python',
    script:
      'import os\nos.sched_setaffinity(@SPAWNER@, os.sched_getaffinity(@SPAWNER@))\nprint("CHANGED-@ID@")\n',
    effect: CHANGED,
  },
  {
    what: "sets the server's scheduling policy to batch (os.sched_setscheduler)",
    runner: 'python',
    script:
      'import os\nos.sched_setscheduler(@PID@, os.SCHED_BATCH, os.sched_param(0))\nos.sched_setscheduler(@PID@, os.SCHED_OTHER, os.sched_param(0))\nprint("CHANGED-@ID@")\n',
    effect: CHANGED,
  },
];

/** ctypes set-up shared by the kept-state payloads: libc with errno, shmat returning a pointer. */
const CTYPES = `import ctypes, sys, zlib
libc = ctypes.CDLL(None, use_errno=True)
libc.shmat.restype = ctypes.c_void_p
KEY = zlib.crc32(b"@NONCE@-@ID@") & 0x7fffffff
def check(r, what):
    if r is None or r == -1 or r == ctypes.c_void_p(-1).value:
        sys.exit(what + " refused: errno %d" % ctypes.get_errno())
    return r
`;
/** The proof a first call keeps, spelt so that no planted file holds it whole. */
const KEPT_VALUE = '("KE" + "PT-@ID@").encode()';
const KEPT = PROOF('KEPT-@ID@');
/** Perl: the case's SysV key, from the lab's nonce and the case id. */
const PERL_KEY = 'my $key = unpack("%32C*", "@NONCE@-@ID@") + 7000;\n';
const KEYCTL = process.arch === 'arm64' ? { add_key: 217, keyctl: 219 } : { add_key: 248, keyctl: 250 };

const KEPT_STATE_PAYLOADS: Payload[] = [
  {
    what: 'keeps a SysV shared memory segment for the next call (shmget by key)',
    runner: 'python',
    script: `${CTYPES}data = ${KEPT_VALUE}
shm = check(libc.shmget(KEY, 4096, 0o1600), "shmget")
ctypes.memmove(check(libc.shmat(shm, None, 0), "shmat"), data, len(data))
`,
    next: `${CTYPES}shm = check(libc.shmget(KEY, 0, 0), "shmget")
print(ctypes.string_at(check(libc.shmat(shm, None, 0), "shmat")).decode())
libc.shmctl(shm, 0, None)
`,
    effect: KEPT,
  },
  {
    what: 'keeps a private SysV segment, which the next call finds in /proc/sysvipc/shm',
    runner: 'python',
    script: `${CTYPES}data = ${KEPT_VALUE}
shm = check(libc.shmget(0, 4096, 0o1600), "shmget")
ctypes.memmove(check(libc.shmat(shm, None, 0), "shmat"), data, len(data))
`,
    next: `${CTYPES}import os
for line in open("/proc/sysvipc/shm").read().splitlines()[1:]:
    shm = int(line.split()[1])
    addr = libc.shmat(shm, None, 0)
    if addr and addr != ctypes.c_void_p(-1).value:
        text = ctypes.string_at(addr)
        if text.startswith(b"KEPT-@ID@"):
            print(text.decode())
            libc.shmctl(shm, 0, None)
`,
    effect: KEPT,
  },
  {
    what: 'keeps a SysV message queue message for the next call',
    runner: 'python',
    script: `${CTYPES}data = ${KEPT_VALUE}
q = check(libc.msgget(KEY, 0o1600), "msgget")
msg = ctypes.create_string_buffer(ctypes.sizeof(ctypes.c_long) + len(data))
ctypes.memmove(ctypes.addressof(msg), ctypes.byref(ctypes.c_long(1)), ctypes.sizeof(ctypes.c_long))
ctypes.memmove(ctypes.addressof(msg) + ctypes.sizeof(ctypes.c_long), data, len(data))
check(libc.msgsnd(q, msg, len(data), 0o4000), "msgsnd")
`,
    next: `${CTYPES}q = check(libc.msgget(KEY, 0), "msgget")
buf = ctypes.create_string_buffer(256)
n = check(libc.msgrcv(q, buf, 200, 0, 0o4000), "msgrcv")
print(buf.raw[ctypes.sizeof(ctypes.c_long):ctypes.sizeof(ctypes.c_long) + n].decode())
libc.msgctl(q, 0, None)
`,
    effect: KEPT,
  },
  {
    what: 'keeps a SysV semaphore value for the next call',
    runner: 'python',
    script: `${CTYPES}sem = check(libc.semget(KEY, 1, 0o1600), "semget")
check(libc.semctl(sem, 0, 16, 4242), "semctl")
`,
    next: `${CTYPES}sem = check(libc.semget(KEY, 1, 0), "semget")
if libc.semctl(sem, 0, 12) == 4242:
    print("KEPT-@ID@")
libc.semctl(sem, 0, 0)
`,
    effect: KEPT,
  },
  {
    what: "keeps a key in the uid's keyring for the next call (add_key, keyctl read)",
    runner: 'python',
    script: `${CTYPES}data = ${KEPT_VALUE}
check(libc.syscall(${KEYCTL.add_key}, b"user", b"toolyard-@NONCE@-@ID@", data, len(data), -4), "add_key")
`,
    next: `${CTYPES}key = check(libc.syscall(${KEYCTL.keyctl}, 10, -4, b"user", b"toolyard-@NONCE@-@ID@", 0), "keyctl search")
buf = ctypes.create_string_buffer(128)
n = check(libc.syscall(${KEYCTL.keyctl}, 11, key, buf, 128), "keyctl read")
print(buf.raw[:n].decode())
libc.syscall(${KEYCTL.keyctl}, 9, key, -4)
`,
    effect: KEPT,
  },
  // The same through perl's built-in SysV calls (no module: numeric constants).
  {
    what: 'keeps a SysV segment for the next call from perl (shmget, shmwrite)',
    runner: 'perl',
    script: `${PERL_KEY}my $id = shmget($key, 4096, 01600) // die "shmget: $!";\nshmwrite($id, "KE" . "PT-@ID@", 0, 64) or die "shmwrite: $!";\n`,
    next: `${PERL_KEY}my $id = shmget($key, 0, 0) // die "shmget: $!";\nshmread($id, my $v, 0, 64) or die "shmread: $!";\n$v =~ s/\\0.*//s;\nprint "$v\\n";\nshmctl($id, 0, 0);\n`,
    effect: KEPT,
  },
  {
    what: 'keeps a SysV message for the next call from perl (msgsnd)',
    runner: 'perl',
    script: `${PERL_KEY}my $q = msgget($key, 01600) // die "msgget: $!";\nmsgsnd($q, pack("l! a*", 1, "KE" . "PT-@ID@"), 04000) or die "msgsnd: $!";\n`,
    next: `${PERL_KEY}my $q = msgget($key, 0) // die "msgget: $!";\nmsgrcv($q, my $m, 200, 0, 04000) or die "msgrcv: $!";\nprint substr($m, length(pack("l!", 0))), "\\n";\nmsgctl($q, 0, 0);\n`,
    effect: KEPT,
  },
  {
    what: 'keeps a SysV semaphore value for the next call from perl (semctl SETVAL)',
    runner: 'perl',
    script: `${PERL_KEY}my $s = semget($key, 1, 01600) // die "semget: $!";\nsemctl($s, 0, 16, 4242) // die "semctl: $!";\n`,
    next: `${PERL_KEY}my $s = semget($key, 1, 0) // die "semget: $!";\nprint "KEPT-@ID@\\n" if semctl($s, 0, 12, 0) == 4242;\nsemctl($s, 0, 0, 0);\n`,
    effect: KEPT,
  },
  {
    what: 'reads a SysV segment a process outside the call holds (by its id)',
    runner: 'python',
    script: `${CTYPES}print(ctypes.string_at(check(libc.shmat(@SHMID@, None, 0o10000), "shmat")).decode())
`,
    effect: SECRET,
  },
  {
    what: 'reads a SysV segment outside the call through ipcs and a shell',
    runner: 'sh',
    script: `ipcs -m > ipcs.txt\n${PY} -c 'import ctypes; l = ctypes.CDLL(None); l.shmat.restype = ctypes.c_void_p; a = l.shmat(@SHMID@, None, 0o10000); print(ctypes.string_at(a).decode() if a and a != ctypes.c_void_p(-1).value else "")'\n`,
    effect: SECRET,
  },
];

/** Python that sends `@ID@-@NONCE@` and says what it did. */
const SEND = 'MARK = b"@ID@-@NONCE@"\nimport socket\n';

const BESIDE_CONNECT_PAYLOADS: Payload[] = [
  {
    what: 'connects over MPTCP to a TCP listener on 127.0.0.1 that no rule allows',
    runner: 'python',
    script: `${SEND}s = socket.socket(socket.AF_INET, socket.SOCK_STREAM, 262)\ns.connect(("127.0.0.1", @TCP@))\ns.sendall(MARK)\n`,
    effect: REACHED,
  },
  {
    what: 'connects over MPTCP to a TCP listener on ::1',
    runner: 'python',
    script: `${SEND}s = socket.socket(socket.AF_INET6, socket.SOCK_STREAM, 262)\ns.connect(("::1", @TCP6@))\ns.sendall(MARK)\n`,
    effect: REACHED,
  },
  {
    what: 'opens a TCP connection with sendto(MSG_FASTOPEN), beside connect()',
    runner: 'python',
    script: `${SEND}s = socket.socket()\ns.sendto(MARK, socket.MSG_FASTOPEN, ("127.0.0.1", @TCP@))\n`,
    effect: REACHED,
  },
  {
    what: 'opens a TCP connection to ::1 with sendto(MSG_FASTOPEN)',
    runner: 'python',
    script: `${SEND}s = socket.socket(socket.AF_INET6)\ns.sendto(MARK, socket.MSG_FASTOPEN, ("::1", @TCP6@))\n`,
    effect: REACHED,
  },
  {
    what: 'opens a TCP connection with sendmsg(MSG_FASTOPEN)',
    runner: 'python',
    script: `${SEND}s = socket.socket()\ns.sendmsg([MARK], [], socket.MSG_FASTOPEN, ("127.0.0.1", @TCP@))\n`,
    effect: REACHED,
  },
  {
    what: "connects over MPTCP to the server's own MCP port",
    runner: 'python',
    script:
      'import socket\ns = socket.socket(socket.AF_INET, socket.SOCK_STREAM, 262)\ns.settimeout(5)\ns.connect(("127.0.0.1", @PORT@))\nprint("CONNECTED-@ID@")\n',
    effect: PROOF('CONNECTED-@ID@'),
  },
  {
    what: "reaches the server's own MCP port with sendto(MSG_FASTOPEN)",
    runner: 'python',
    script:
      'import socket\ns = socket.socket()\ns.sendto(b"GET / HTTP/1.0\\r\\n\\r\\n", socket.MSG_FASTOPEN, ("127.0.0.1", @PORT@))\nprint("CONNECTED-@ID@")\n',
    effect: PROOF('CONNECTED-@ID@'),
  },
  {
    what: 'sends a UDP datagram to a listener on 127.0.0.1',
    runner: 'python',
    script: `${SEND}socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(MARK, ("127.0.0.1", @UDP@))\n`,
    effect: REACHED,
  },
  {
    what: 'sends a UDP datagram to a listener on ::1',
    runner: 'python',
    script: `${SEND}socket.socket(socket.AF_INET6, socket.SOCK_DGRAM).sendto(MARK, ("::1", @UDP6@))\n`,
    effect: REACHED,
  },
  {
    what: 'connects a UDP socket and sends',
    runner: 'python',
    script: `${SEND}s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\ns.connect(("127.0.0.1", @UDP@))\ns.send(MARK)\n`,
    effect: REACHED,
  },
  {
    what: 'sends a UDP datagram from node (dgram)',
    runner: 'node',
    script:
      "const s = require('node:dgram').createSocket('udp4');\ns.send('@ID@-@NONCE@', @UDP@, '127.0.0.1', () => s.close());\n",
    effect: REACHED,
  },
  {
    what: 'connects to a pathname Unix stream socket outside the roots',
    runner: 'python',
    script: `${SEND}s = socket.socket(socket.AF_UNIX)\ns.connect("@USOCK@")\ns.sendall(MARK)\n`,
    effect: REACHED,
  },
  {
    what: 'sends to a pathname Unix datagram socket outside the roots',
    runner: 'python',
    script: `${SEND}socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM).sendto(MARK, "@UDSOCK@")\n`,
    effect: REACHED,
  },
  {
    what: 'connects to a pathname Unix socket from node (net.connect)',
    runner: 'node',
    script:
      "const c = require('node:net').connect('@USOCK@', () => c.end('@ID@-@NONCE@'));\nc.on('error', () => {});\n",
    effect: REACHED,
  },
];

export const PROCESS_ATTRIBUTES: readonly RedCase[] = numbered(
  'A',
  'process-attributes',
  PROCESS_ATTRIBUTE_PAYLOADS.map(asCase),
);
export const KEPT_STATE: readonly RedCase[] = numbered('K', 'kept-state', KEPT_STATE_PAYLOADS.map(asCase));
export const BESIDE_CONNECT: readonly RedCase[] = numbered(
  'N',
  'beside-connect',
  BESIDE_CONNECT_PAYLOADS.map(asCase),
);

/** Every case of the second wall: held with it on both mechanisms, biting under Landlock alone. */
export const WALL_CASES: readonly RedCase[] = [...PROCESS_ATTRIBUTES, ...KEPT_STATE, ...BESIDE_CONNECT];
