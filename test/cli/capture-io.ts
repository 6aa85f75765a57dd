/** An `Io` that records what a command prints, for in-process CLI tests. */
import type { Io } from '../../cli/src/io.ts';

export interface CapturedIo extends Io {
  readonly out: string[];
  readonly err: string[];
  stdoutText(): string;
  stderrText(): string;
}

export function captureIo(): CapturedIo {
  const out: string[] = [];
  const err: string[] = [];
  return {
    out,
    err,
    stdout: (line) => out.push(line),
    stderr: (line) => err.push(line),
    stdoutText: () => out.join('\n'),
    stderrText: () => err.join('\n'),
  };
}
