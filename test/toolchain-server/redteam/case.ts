/**
 * One case of the confinement red team (issue 18), as data. A case plants files in its own directory of the
 * workspace (or none), runs one command over MCP (and maybe a second, `next`, for what a first call could leave
 * to the next), and names the effect its payload has when it bites. The same case runs three times: against the
 * confined server (the effect must not happen), against the unconfined server (when it needs no planted file, the
 * argv policy alone must hold it), and directly without any server in a scratch lab (the control: the effect
 * must happen, or the payload is inert and the test fails).
 *
 * Placeholders, filled per run: @ID@ the case id; @CASE@ its directory; @ROOT@ the workspace root; @OUT@ the
 * outside directory; @MARK@ = @OUT@/pwned-@ID@; @TOKEN@ the bearer token file; @SECRETS@ its directory;
 * @CONFIG@ the server's config file; @PID@ the server (controls: the stand-in); @STAND@ the stand-in, a process
 * outside every call whose stdout is a file; @PORT@ the server's TCP port (controls: a listener's);
 * @ABSTRACT@ an abstract Unix socket a listener outside the call holds; @HOME@ the HOME an unconfined server
 * shares between calls. The second wall's cases (issue 32) add: @SPAWNER@ the resident spawner (controls: the
 * stand-in); @NONCE@ a word of this lab's own, for names kernel objects carry; @SHMID@ a SysV segment outside every
 * call holding a secret; @TCP@/@TCP6@, @UDP@/@UDP6@ ports of listeners on 127.0.0.1/::1 outside every call, and
 * @USOCK@/@UDSOCK@ pathname Unix stream/datagram sockets outside it — each listener records what it receives.
 */

export type CaseClass =
  /** What a tool reads from files: `tar -T`, `@argsfile`, ini addopts, `.npmrc`, `rust-toolchain.toml`, … */
  | 'file-input'
  /** Symlinks the workspace already holds, followed by recursive tools, git and tool-chosen outputs. */
  | 'workspace-symlink'
  /** Paths a tool interprets itself: `~`, `$HOME`, `file://localhost`, `%2e%2e`, option order. */
  | 'tool-paths'
  /** Same-uid reach: leftovers, other processes' /proc, signals, ptrace, sockets, the server's files. */
  | 'same-uid'
  /** Configuration a call plants in HOME for the next call. */
  | 'persistence'
  /** Process attributes (rlimits, nice, affinity, scheduling, I/O priority) of processes outside the call. */
  | 'process-attributes'
  /** Kernel state a call keeps for a later one, or reads from outside: SysV IPC, the keyring. */
  | 'kept-state'
  /** Network paths beside Landlock's TCP connect rule: MPTCP, TCP Fast Open, UDP, pathname Unix sockets. */
  | 'beside-connect'
  /** GTFOBins-style options of the tools in the argv tables. */
  | 'gtfobins';

export type Effect =
  /** This path outside the roots is created, changed or removed. */
  | { readonly outside: string }
  /** A secret (token, config, the server's environment) shows in the output or in a file the call left. */
  | { readonly secret: true }
  /** The text (placeholders filled) shows in the output or in a file the call left: proof of a signal, connect… */
  | { readonly proof: string }
  /** A process whose pid the payload wrote to @CASE@/survivor.pid still runs after the call. */
  | { readonly survivor: true }
  /** A line `"forged":"@ID@"` reaches the stand-in's stdout or the server's audit stream. */
  | { readonly forged: true }
  /** A listener outside the call (@TCP@, @UDP@, @USOCK@, …) received `@ID@-@NONCE@`. */
  | { readonly reached: true };

/** A planted file: text (placeholders filled), an executable script, or a tar archive built from members. */
export type Planted =
  | string
  | { readonly script: string }
  | { readonly tar: ReadonlyArray<{ readonly name: string; readonly data: string }> };

export interface RedCase {
  readonly id: string;
  readonly class: CaseClass;
  /** What the attack is, in one line. */
  readonly what: string;
  readonly argv: readonly string[];
  /** Planted in @CASE@ (relative paths). A case with planted files or links needs the workspace. */
  readonly files?: Readonly<Record<string, Planted>>;
  /** Planted symlinks in @CASE@: name → target (placeholders filled). */
  readonly links?: Readonly<Record<string, string>>;
  /** Set up outside the roots before the run (what the payload would change): path → content, or a repository. */
  readonly outside?: Readonly<Record<string, string | { readonly repo: true } | { readonly dir: true }>>;
  /** Run in the workspace root instead of @CASE@ (the project's own files, nothing planted). */
  readonly atRoot?: boolean;
  /** Run in the project's subdirectory `sub` (nothing planted): what a tool resolves from elsewhere. */
  readonly inSub?: boolean;
  /** Make @CASE@ a git repository of its own with one commit of the planted files. */
  readonly repo?: boolean;
  readonly env?: Readonly<Record<string, string>>;
  /** A second call, run after the first: what the first left for the next call. */
  readonly next?: readonly string[];
  readonly effect: Effect;
}

/** Whether the case plants anything in the workspace (the argv policy alone need not hold those). */
export function needsWorkspace(c: RedCase): boolean {
  return Object.keys(c.files ?? {}).length > 0 || Object.keys(c.links ?? {}).length > 0 || c.repo === true;
}

/** The effects, as short constructors. */
export const OUT = (path: string): Effect => ({ outside: path });
export const MARKED: Effect = { outside: '@MARK@' };
export const SECRET: Effect = { secret: true };
export const SURVIVES: Effect = { survivor: true };
export const FORGED: Effect = { forged: true };
export const REACHED: Effect = { reached: true };
export const PROOF = (text: string): Effect => ({ proof: text });

/** Numbers a list of cases of one class: prefix + two digits. */
export function numbered(
  prefix: string,
  cls: CaseClass,
  list: ReadonlyArray<Omit<RedCase, 'id' | 'class'>>,
): RedCase[] {
  return list.map((c, i) => ({ id: `${prefix}${String(i + 1).padStart(2, '0')}`, class: cls, ...c }));
}
