/**
 * The server's end of one run's MCP channel: two FIFOs the codebox makes in the run's directory (a directory of the
 * server's, granted to this call alone). The server watches the directory and opens each FIFO as it appears,
 * read-write and non-blocking (so neither end ever waits for the other, and the server never sees an end of file),
 * never through a symbolic link, and only if it is a FIFO. Frames are JSON lines; a line longer than
 * `maxFrameBytes`, or replies the program leaves unread beyond `maxPendingReplyBytes`, end the run.
 */
import { closeSync, constants, type FSWatcher, fstatSync, openSync, readSync, watch } from 'node:fs';
import { Socket } from 'node:net';
import { join } from 'node:path';

export interface ChannelLimits {
  readonly maxFrameBytes: number;
  readonly maxPendingReplyBytes: number;
}

export class RunChannel {
  private readonly dir: string;
  private readonly limits: ChannelLimits;
  private readonly onFrame: (frame: unknown) => void;
  private readonly onViolation: (why: string) => void;
  private watcher: FSWatcher | undefined;
  private callFd: number | undefined;
  private call: Socket | undefined;
  private reply: Socket | undefined;
  private closed = false;
  private violated = false;

  constructor(
    dir: string,
    limits: ChannelLimits,
    onFrame: (frame: unknown) => void,
    onViolation: (why: string) => void,
  ) {
    this.dir = dir;
    this.limits = limits;
    this.onFrame = onFrame;
    this.onViolation = onViolation;
  }

  /** Starts watching the run directory: before the program starts, so no FIFO appears unseen. */
  listen(): void {
    this.watcher = watch(this.dir, { persistent: false }, () => this.open());
    this.watcher.on('error', () => {});
  }

  /** Whether both FIFOs are open (the program got as far as its interpreter). */
  get connected(): boolean {
    return this.call !== undefined && this.reply !== undefined;
  }

  private open(): void {
    if (this.closed) return;
    try {
      if (!this.call) {
        const fd = this.openFifo('call');
        if (fd !== undefined) {
          this.callFd = fd;
          this.call = new Socket({ fd, readable: true, writable: false });
          this.call.on('data', (chunk: Buffer) => this.receive(chunk));
          this.call.on('error', () => {});
        }
      }
      if (this.call && !this.reply) {
        const fd = this.openFifo('reply');
        if (fd !== undefined) {
          this.reply = new Socket({ fd, readable: false, writable: true });
          this.reply.on('error', () => {});
        }
      }
    } catch (error) {
      this.violate((error as Error).message);
    }
    if (this.connected) this.watcher?.close();
  }

  /** The FIFO `name` of the run directory, opened; undefined while it does not exist yet. */
  private openFifo(name: string): number | undefined {
    let fd: number;
    try {
      fd = openSync(join(this.dir, name), constants.O_RDWR | constants.O_NONBLOCK | constants.O_NOFOLLOW);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw new Error(`the channel's ${name} could not be opened: ${(error as Error).message}`);
    }
    if (!fstatSync(fd).isFIFO()) {
      closeSync(fd);
      throw new Error(`the channel's ${name} is not a FIFO`);
    }
    return fd;
  }

  private buffered: Buffer[] = [];
  private bufferedBytes = 0;

  private receive(chunk: Buffer): void {
    if (this.violated) return;
    let start = 0;
    for (let at = chunk.indexOf(10); at >= 0; at = chunk.indexOf(10, start)) {
      const piece = chunk.subarray(start, at);
      const line =
        this.bufferedBytes === 0
          ? piece
          : Buffer.concat([...this.buffered, piece], this.bufferedBytes + piece.length);
      this.buffered = [];
      this.bufferedBytes = 0;
      start = at + 1;
      if (line.length > this.limits.maxFrameBytes) {
        this.violate(this.tooLong());
        return;
      }
      let frame: unknown;
      try {
        frame = JSON.parse(line.toString('utf8'));
      } catch {
        this.violate('a frame is not JSON');
        return;
      }
      this.onFrame(frame);
      if (this.violated) return;
    }
    const rest = chunk.subarray(start);
    if (rest.length === 0) return;
    this.bufferedBytes += rest.length;
    if (this.bufferedBytes > this.limits.maxFrameBytes) {
      this.violate(this.tooLong());
      return;
    }
    this.buffered.push(Buffer.from(rest));
  }

  private tooLong(): string {
    return `a frame exceeds ${this.limits.maxFrameBytes} bytes`;
  }

  private violate(why: string): void {
    if (this.violated) return;
    this.violated = true;
    this.onViolation(why);
  }

  /** Sends one reply; a program that leaves too much unread is ended. */
  send(message: unknown): void {
    if (this.closed || this.violated) return;
    // Frames come only once the codebox has opened both FIFOs (it opens them before the interpreter starts).
    if (!this.reply) return;
    this.reply.write(`${JSON.stringify(message)}\n`);
    if (this.reply.writableLength > this.limits.maxPendingReplyBytes)
      this.violate(`the program left more than ${this.limits.maxPendingReplyBytes} bytes of replies unread`);
  }

  /**
   * Reads what the program wrote before it ended and is not delivered yet (its last frame may still be in the
   * pipe when the call's end arrives), then closes both ends.
   */
  close(): void {
    if (this.closed) return;
    if (this.callFd !== undefined && !this.violated) {
      const buffer = Buffer.allocUnsafe(1 << 16);
      for (let i = 0; i < 1024; i++) {
        let n: number;
        try {
          n = readSync(this.callFd, buffer, 0, buffer.length, null);
        } catch {
          break; // EAGAIN: nothing more
        }
        if (n <= 0) break;
        this.receive(Buffer.from(buffer.subarray(0, n)));
      }
    }
    this.closed = true;
    this.watcher?.close();
    this.call?.destroy();
    this.reply?.destroy();
  }
}
