/**
 * Waits for a started server process to print `{"event":"listening","port":N}` on stdout, the one start-up
 * signal the server gives. Shared by the tests, the conformance run and the benchmark. Every JSON line (the
 * listening event, then audit lines) goes to `onEvent`; stdout keeps being drained after start-up.
 */
import type { ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';

export function listeningPort(
  child: ChildProcess,
  options: {
    timeoutMs?: number;
    onEvent?: (event: Record<string, unknown>) => void;
    describe?: () => string;
  } = {},
): Promise<number> {
  const describe = options.describe ?? (() => '');
  return new Promise<number>((resolve, reject) => {
    const timer = setTimeout(
      () =>
        reject(
          new Error(`server did not report listening within ${options.timeoutMs ?? 15_000} ms ${describe()}`),
        ),
      options.timeoutMs ?? 15_000,
    );
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code} ${describe()}`));
    });
    createInterface({ input: child.stdout! }).on('line', (line) => {
      let event: Record<string, unknown>;
      try {
        event = JSON.parse(line) as Record<string, unknown>;
      } catch {
        return; // not JSON
      }
      options.onEvent?.(event);
      if (event['event'] === 'listening' && typeof event['port'] === 'number') {
        clearTimeout(timer);
        resolve(event['port']);
      }
    });
  });
}
