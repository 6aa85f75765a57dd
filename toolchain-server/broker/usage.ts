/**
 * Provider token usage, read from a response as it streams past without holding it: Anthropic (`usage` in
 * `message_start` / `message_delta` events and JSON replies), OpenAI (`usage` in chat completions and
 * `response.usage` in Responses API events) and Gemini (`usageMetadata`). Only lines that mention usage are
 * parsed; a partial line is kept up to a bound, and a JSON (non-streamed) body is kept up to another.
 */
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';

export interface TokenUsage {
  inputTokens: number | null;
  outputTokens: number | null;
  cacheReadTokens: number | null;
  cacheWriteTokens: number | null;
}

/** Longest SSE line looked at; a longer one (a big content delta) is skipped. */
const MAX_LINE_BYTES = 64 * 1024;
const DATA = Buffer.from('data:');
const NEWLINE = 0x0a;
/** Largest non-streamed JSON body looked at. */
const MAX_JSON_BYTES = 1024 * 1024;

function num(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : null;
}

function max(a: number | null, b: number | null): number | null {
  if (a === null) return b;
  if (b === null) return a;
  return Math.max(a, b);
}

function usageObjects(value: unknown): Record<string, unknown>[] {
  if (!value || typeof value !== 'object') return [];
  const v = value as Record<string, unknown>;
  const found: unknown[] = [v.usage, v.usageMetadata];
  for (const inner of [v.message, v.response]) {
    if (inner && typeof inner === 'object') {
      const i = inner as Record<string, unknown>;
      found.push(i.usage, i.usageMetadata);
    }
  }
  return found.filter((u): u is Record<string, unknown> => !!u && typeof u === 'object');
}

export class UsageParser {
  private usage: TokenUsage = {
    inputTokens: null,
    outputTokens: null,
    cacheReadTokens: null,
    cacheWriteTokens: null,
  };
  private seen = false;
  /**
   * The start of a line that a chunk cut off, as copies (never a view that would hold the whole chunk), at
   * most MAX_LINE_BYTES: in the usual stream every chunk ends at an event's end and this stays empty.
   */
  private partial: Buffer[] = [];
  private partialBytes = 0;
  private skipping = false;
  private json: Buffer[] | undefined;
  private jsonBytes = 0;
  private readonly inflate: NodeJS.ReadWriteStream | undefined;
  private readonly mode: 'sse' | 'json' | 'off';

  constructor(contentType: string | undefined, contentEncoding: string | undefined) {
    const type = (contentType ?? '').toLowerCase();
    this.mode = type.includes('text/event-stream') ? 'sse' : type.includes('json') ? 'json' : 'off';
    if (this.mode === 'json') this.json = [];
    const encoding = (contentEncoding ?? 'identity').toLowerCase().trim();
    if (this.mode !== 'off' && encoding !== 'identity') {
      const inflate =
        encoding === 'gzip' || encoding === 'x-gzip'
          ? createGunzip()
          : encoding === 'deflate'
            ? createInflate()
            : encoding === 'br'
              ? createBrotliDecompress()
              : undefined;
      if (!inflate) this.mode = 'off';
      else {
        inflate.on('data', (chunk: Buffer) => this.take(chunk));
        inflate.on('error', () => {
          this.json = undefined;
        });
        this.inflate = inflate;
      }
    }
  }

  /** Feeds a chunk of the response body as it was sent (possibly compressed). */
  push(chunk: Buffer): void {
    if (this.mode === 'off' || (this.mode === 'json' && !this.json)) return;
    if (this.inflate) this.inflate.write(chunk);
    else this.take(chunk);
  }

  /** The usage seen, or null when the response reported none. */
  async finish(): Promise<TokenUsage | null> {
    if (this.inflate) {
      await new Promise<void>((resolve) => {
        this.inflate!.once('end', resolve);
        this.inflate!.once('error', () => resolve());
        this.inflate!.end();
        (this.inflate as unknown as { resume(): void }).resume?.();
      });
    }
    if (this.mode === 'sse' && this.partialBytes > 0) this.line(Buffer.concat(this.partial));
    if (this.mode === 'json' && this.json) this.parse(Buffer.concat(this.json).toString('utf8'));
    return this.seen ? this.usage : null;
  }

  private take(chunk: Buffer): void {
    if (this.mode === 'json') {
      if (!this.json) return;
      this.jsonBytes += chunk.length;
      if (this.jsonBytes > MAX_JSON_BYTES) this.json = undefined;
      else this.json.push(chunk);
      return;
    }
    // Lines are cut on bytes and decoded whole, so a character split across chunks is never mangled.
    let start = 0;
    for (;;) {
      const end = chunk.indexOf(NEWLINE, start);
      if (end < 0) break;
      if (this.skipping) this.skipping = false;
      else if (this.partialBytes === 0) this.line(chunk.subarray(start, end));
      else this.line(Buffer.concat([...this.partial, chunk.subarray(start, end)]));
      this.partial = [];
      this.partialBytes = 0;
      start = end + 1;
    }
    if (this.skipping || start === chunk.length) return;
    this.partialBytes += chunk.length - start;
    if (this.partialBytes > MAX_LINE_BYTES) {
      this.partial = [];
      this.partialBytes = 0;
      this.skipping = true;
    } else this.partial.push(Buffer.from(chunk.subarray(start)));
  }

  /** One SSE line (without its newline); only `data:` lines that mention usage are decoded and parsed. */
  private line(bytes: Buffer): void {
    if (bytes.length <= DATA.length || DATA.compare(bytes, 0, DATA.length) !== 0) return;
    if (bytes.indexOf('sage', DATA.length) < 0) return;
    // trim() also drops the `\r` of a CRLF line end.
    this.parse(bytes.toString('utf8', DATA.length).trim());
  }

  private parse(text: string): void {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return;
    }
    for (const u of usageObjects(value)) this.merge(u);
  }

  private merge(u: Record<string, unknown>): void {
    const input = num(u.input_tokens) ?? num(u.prompt_tokens) ?? num(u.promptTokenCount);
    const output = num(u.output_tokens) ?? num(u.completion_tokens) ?? num(u.candidatesTokenCount);
    const details = u.prompt_tokens_details as Record<string, unknown> | undefined;
    const inputDetails = u.input_tokens_details as Record<string, unknown> | undefined;
    const cacheRead =
      num(u.cache_read_input_tokens) ??
      num(details?.cached_tokens) ??
      num(inputDetails?.cached_tokens) ??
      num(u.cachedContentTokenCount);
    const cacheWrite = num(u.cache_creation_input_tokens);
    if (input === null && output === null && cacheRead === null && cacheWrite === null) return;
    this.seen = true;
    // Streams repeat running totals (message_delta, every Gemini chunk): the largest figure is the total.
    this.usage = {
      inputTokens: max(this.usage.inputTokens, input),
      outputTokens: max(this.usage.outputTokens, output),
      cacheReadTokens: max(this.usage.cacheReadTokens, cacheRead),
      cacheWriteTokens: max(this.usage.cacheWriteTokens, cacheWrite),
    };
  }
}
