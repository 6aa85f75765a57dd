/** Token usage read from provider responses as they stream, in arbitrary chunk boundaries. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
import { UsageParser } from '../../toolchain-server/broker/usage.ts';

async function parse(type: string, body: string | Buffer, chunk = 7, encoding?: string) {
  const parser = new UsageParser(type, encoding);
  const bytes = Buffer.isBuffer(body) ? body : Buffer.from(body);
  for (let i = 0; i < bytes.length; i += chunk) parser.push(bytes.subarray(i, i + chunk));
  return parser.finish();
}

const ANTHROPIC_SSE = [
  'event: message_start',
  'data: {"type":"message_start","message":{"id":"m","usage":{"input_tokens":120,"cache_creation_input_tokens":3,"cache_read_input_tokens":50,"output_tokens":1}}}',
  '',
  'event: content_block_delta',
  'data: {"type":"content_block_delta","delta":{"type":"text_delta","text":"usage is a word"}}',
  '',
  'event: message_delta',
  'data: {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":77}}',
  '',
  '',
].join('\n');

describe('usage parser', () => {
  it('reads Anthropic message_start and message_delta usage from SSE split at every 7 bytes', async () => {
    assert.deepEqual(await parse('text/event-stream', ANTHROPIC_SSE), {
      inputTokens: 120,
      outputTokens: 77,
      cacheReadTokens: 50,
      cacheWriteTokens: 3,
    });
  });

  it('reads OpenAI chat completions usage (final chunk) and Responses API response.usage', async () => {
    const chat =
      'data: {"choices":[{"delta":{"content":"hi"}}]}\n\ndata: {"choices":[],"usage":{"prompt_tokens":9,"completion_tokens":4,"total_tokens":13,"prompt_tokens_details":{"cached_tokens":2}}}\n\ndata: [DONE]\n\n';
    assert.deepEqual(await parse('text/event-stream; charset=utf-8', chat, 3), {
      inputTokens: 9,
      outputTokens: 4,
      cacheReadTokens: 2,
      cacheWriteTokens: null,
    });
    const responses =
      'event: response.completed\r\ndata: {"type":"response.completed","response":{"usage":{"input_tokens":30,"output_tokens":8,"input_tokens_details":{"cached_tokens":0}}}}\r\n\r\n';
    assert.deepEqual(await parse('text/event-stream', responses), {
      inputTokens: 30,
      outputTokens: 8,
      cacheReadTokens: 0,
      cacheWriteTokens: null,
    });
  });

  it('reads Gemini usageMetadata from a streamed and a plain JSON reply, gzip included', async () => {
    const stream =
      'data: {"candidates":[],"usageMetadata":{"promptTokenCount":5,"candidatesTokenCount":1}}\r\n\r\ndata: {"candidates":[],"usageMetadata":{"promptTokenCount":5,"candidatesTokenCount":12,"totalTokenCount":17}}\r\n\r\n';
    assert.deepEqual(await parse('text/event-stream', stream), {
      inputTokens: 5,
      outputTokens: 12,
      cacheReadTokens: null,
      cacheWriteTokens: null,
    });
    const json = JSON.stringify({
      candidates: [],
      usageMetadata: { promptTokenCount: 4, candidatesTokenCount: 2 },
    });
    assert.deepEqual(await parse('application/json', gzipSync(json), 5, 'gzip'), {
      inputTokens: 4,
      outputTokens: 2,
      cacheReadTokens: null,
      cacheWriteTokens: null,
    });
  });

  it('reports null when there is no usage, the type is not JSON or SSE, or the JSON is too large', async () => {
    assert.equal(await parse('text/event-stream', 'data: {"type":"ping"}\n\n'), null);
    assert.equal(await parse('text/plain', '{"usage":{"input_tokens":1}}'), null);
    const big = JSON.stringify({ pad: 'x'.repeat(2 * 1024 * 1024), usage: { input_tokens: 1 } });
    assert.equal(await parse('application/json', big, 64 * 1024), null);
  });

  it('skips an over-long SSE line and still reads the usage after it', async () => {
    const body = `data: {"text":"${'y'.repeat(200 * 1024)}"}\n\ndata: {"usage":{"input_tokens":3,"output_tokens":4}}\n\n`;
    assert.deepEqual(await parse('text/event-stream', body, 4096), {
      inputTokens: 3,
      outputTokens: 4,
      cacheReadTokens: null,
      cacheWriteTokens: null,
    });
  });
});
