/**
 * Tokens read from files (mounted Secrets), never from the environment: a token in the environment reaches
 * every child through /proc/<pid>/environ. Comparison is by SHA-256 digest with timingSafeEqual, so neither
 * the length nor the content of a token leaks through timing.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';

/** Reads a token file, trimmed. Throws an error naming `field` and the file when unreadable or empty. */
export function readTokenFile(file: string, field: string): string {
  let token: string;
  try {
    token = readFileSync(file, 'utf8').trim();
  } catch (error) {
    throw new Error(`${field} (${file}): cannot read the token file: ${(error as Error).message}`);
  }
  if (!token) throw new Error(`${field} (${file}): the token file is empty`);
  return token;
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

/** A set of known tokens, each standing for an identity (a caller name). */
export class TokenSet<Id extends string = string> {
  private readonly entries: { readonly id: Id; readonly digest: Buffer }[] = [];

  add(id: Id, token: string): this {
    if (!token) throw new Error(`token for "${id}" is empty`);
    this.entries.push({ id, digest: digest(token) });
    return this;
  }

  get size(): number {
    return this.entries.length;
  }

  /**
   * The identity a presented token stands for, or undefined. Compares against every entry (no early exit),
   * so the time taken does not tell which entry matched.
   */
  identify(presented: string | undefined): Id | undefined {
    if (!presented) return undefined;
    const candidate = digest(presented);
    let found: Id | undefined;
    for (const entry of this.entries) if (timingSafeEqual(candidate, entry.digest)) found ??= entry.id;
    return found;
  }

  /** Whether `presented` is the token of `id` in particular. */
  matches(id: Id, presented: string | undefined): boolean {
    return this.identify(presented) === id;
  }
}
