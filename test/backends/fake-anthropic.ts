/**
 * The Anthropic Messages API as Claude Code uses it (`POST /v1/messages`, streamed as server-sent events),
 * answered by a ModelScript. Claude Code reaches it through `ANTHROPIC_BASE_URL`.
 */
import type { ServerResponse } from 'node:http';
import {
  type FakeApi,
  type FakeApiListener,
  type ModelScript,
  type SeenResult,
  sse,
  startFakeApi,
  type TurnOutput,
  textOf,
} from './fake-model.ts';

interface AnthropicRequest {
  readonly model?: string;
  readonly stream?: boolean;
  readonly tools?: readonly { name?: string }[];
  readonly messages?: readonly { role: string; content: unknown }[];
}

function resultsOf(request: AnthropicRequest): SeenResult[] {
  const results: SeenResult[] = [];
  for (const message of request.messages ?? []) {
    if (!Array.isArray(message.content)) continue;
    for (const block of message.content as { type?: string; tool_use_id?: string; content?: unknown }[])
      if (block.type === 'tool_result' && block.tool_use_id)
        results.push({ callId: block.tool_use_id, text: textOf(block.content) });
  }
  return results;
}

function contentBlock(output: TurnOutput): Record<string, unknown> {
  return output.kind === 'call'
    ? { type: 'tool_use', id: output.callId, name: output.tool, input: output.args }
    : { type: 'text', text: output.text };
}

function streamMessage(response: ServerResponse, model: string, output: TurnOutput): void {
  const id = `msg_${Math.random().toString(36).slice(2, 14)}`;
  const usage = {
    input_tokens: 10,
    output_tokens: 5,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
  };
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  sse(response, 'message_start', {
    type: 'message_start',
    message: {
      id,
      type: 'message',
      role: 'assistant',
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage,
    },
  });
  if (output.kind === 'call') {
    sse(response, 'content_block_start', {
      type: 'content_block_start',
      index: 0,
      content_block: { type: 'tool_use', id: output.callId, name: output.tool, input: {} },
    });
    sse(response, 'content_block_delta', {
      type: 'content_block_delta',
      index: 0,
      delta: { type: 'input_json_delta', partial_json: JSON.stringify(output.args) },
    });
  } else {
    sse(response, 'content_block_start', {
      type: 'content_block_start',
      index: 0,
      content_block: { type: 'text', text: '' },
    });
    sse(response, 'content_block_delta', {
      type: 'content_block_delta',
      index: 0,
      delta: { type: 'text_delta', text: output.text },
    });
  }
  sse(response, 'content_block_stop', { type: 'content_block_stop', index: 0 });
  sse(response, 'message_delta', {
    type: 'message_delta',
    delta: { stop_reason: output.kind === 'call' ? 'tool_use' : 'end_turn', stop_sequence: null },
    usage: { output_tokens: 5 },
  });
  sse(response, 'message_stop', { type: 'message_stop' });
  response.end();
}

export function startFakeAnthropic(script: ModelScript, listener?: FakeApiListener): Promise<FakeApi> {
  return startFakeApi((request, body, response) => {
    const path = (request.url ?? '').split('?')[0];
    if (request.method === 'POST' && path === '/v1/messages/count_tokens') {
      response
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ input_tokens: 10 }));
      return true;
    }
    if (request.method !== 'POST' || path !== '/v1/messages') return false;
    const message = body as AnthropicRequest;
    const offeredTools = (message.tools ?? []).flatMap((t) => (t.name ? [t.name] : []));
    const output = script.turn({ offeredTools, results: resultsOf(message) });
    const model = message.model ?? 'claude-fake';
    if (message.stream) streamMessage(response, model, output);
    else
      response.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          id: 'msg_fake',
          type: 'message',
          role: 'assistant',
          model,
          content: [contentBlock(output)],
          stop_reason: output.kind === 'call' ? 'tool_use' : 'end_turn',
          stop_sequence: null,
          usage: { input_tokens: 10, output_tokens: 5 },
        }),
      );
    return true;
  }, listener);
}
