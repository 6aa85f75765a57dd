/**
 * rustup's Rust toolchain, as the tests that run cargo use it: the machine's default toolchain (CI machines have
 * rustup's current stable preinstalled for root; Debian's cargo is years behind). Tests take the toolchain's own
 * directory (`rustup which cargo`), not rustup's proxies: no RUSTUP_HOME to carry into a call or a container, no
 * `rust-toolchain.toml` consulted, and one directory to mount where a container stands in for an image.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

export interface RustToolchain {
  /** The toolchain's directory (`bin/`, `lib/`), e.g. ~/.rustup/toolchains/stable-x86_64-unknown-linux-gnu. */
  readonly dir: string;
  /** Its `bin/`: cargo, rustc, rustfmt, cargo-fmt, cargo-clippy. */
  readonly bin: string;
  /** `cargo --version`. */
  readonly version: string;
}

let found: RustToolchain | undefined;

/** rustup's proxies: `$CARGO_HOME/bin` when the environment names it, else ~/.cargo/bin. */
function rustupBin(): string {
  return join(process.env.CARGO_HOME ?? join(homedir(), '.cargo'), 'bin');
}

/** rustup's default toolchain, or undefined when rustup or its toolchain is missing (see `rustToolchainMissing`). */
export function rustToolchain(): RustToolchain | undefined {
  if (found) return found;
  const rustup = join(rustupBin(), 'rustup');
  if (!existsSync(rustup)) return undefined;
  try {
    const cargo = execFileSync(rustup, ['which', 'cargo'], { encoding: 'utf8' }).trim();
    const version = execFileSync(cargo, ['--version'], { encoding: 'utf8' }).trim();
    found = { dir: dirname(dirname(cargo)), bin: dirname(cargo), version };
    return found;
  } catch {
    return undefined;
  }
}

/** Why the tests that run cargo cannot run here, or undefined. */
export function rustToolchainMissing(): string | undefined {
  return rustToolchain()
    ? undefined
    : `rustup's default toolchain was not found (${join(rustupBin(), 'rustup')} which cargo): install rustup's stable toolchain for this user`;
}
