/** Where a command writes its text; tests capture it. */
export interface Io {
  stdout(line: string): void;
  stderr(line: string): void;
}

export const processIo: Io = {
  stdout: (line) => process.stdout.write(line.endsWith('\n') ? line : `${line}\n`),
  stderr: (line) => process.stderr.write(line.endsWith('\n') ? line : `${line}\n`),
};
