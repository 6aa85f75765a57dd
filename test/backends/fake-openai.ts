/**
 * The OpenAI Responses API as Codex uses it (`POST /v1/responses`, streamed as server-sent events), answered by a
 * ModelScript. Codex reaches it through `OPENAI_BASE_URL`.
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

interface ResponsesTool {
  readonly type?: string;
  readonly name?: string;
  /** Namespaced tool groups carry their functions here. */
  readonly tools?: readonly ResponsesTool[];
}

interface ResponsesRequest {
  readonly model?: string;
  readonly tools?: readonly ResponsesTool[];
  readonly input?: readonly { type?: string; call_id?: string; output?: unknown }[];
}

function toolNames(tools: readonly ResponsesTool[] | undefined, prefix = ''): string[] {
  return (tools ?? []).flatMap((tool) => {
    const name = tool.name ? `${prefix}${tool.name}` : undefined;
    if (tool.tools) return toolNames(tool.tools, name ? `${name}.` : prefix);
    return name ? [name] : [];
  });
}

function resultsOf(request: ResponsesRequest): SeenResult[] {
  return (request.input ?? []).flatMap((item) =>
    item.type === 'function_call_output' && item.call_id
      ? [{ callId: item.call_id, text: textOf(item.output) }]
      : [],
  );
}

/** A namespaced tool (`server.tool`) is called by its own name within its namespace. */
function functionCall(output: Extract<TurnOutput, { kind: 'call' }>): Record<string, unknown> {
  const dot = output.tool.lastIndexOf('.');
  return {
    type: 'function_call',
    id: `fc_${output.callId}`,
    call_id: output.callId,
    name: dot >= 0 ? output.tool.slice(dot + 1) : output.tool,
    ...(dot >= 0 ? { namespace: output.tool.slice(0, dot) } : {}),
    arguments: JSON.stringify(output.args),
    status: 'completed',
  };
}

function streamResponse(response: ServerResponse, model: string, output: TurnOutput): void {
  const id = `resp_${Math.random().toString(36).slice(2, 14)}`;
  const item =
    output.kind === 'call'
      ? functionCall(output)
      : {
          type: 'message',
          id: `msg_${id}`,
          role: 'assistant',
          status: 'completed',
          content: [{ type: 'output_text', text: output.text, annotations: [] }],
        };
  const base = { id, object: 'response', created_at: Math.floor(Date.now() / 1000), model };
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  let sequence = 0;
  const event = (type: string, data: Record<string, unknown>) =>
    sse(response, type, { type, sequence_number: sequence++, ...data });
  event('response.created', { response: { ...base, status: 'in_progress', output: [] } });
  event('response.output_item.added', { output_index: 0, item: { ...item, status: 'in_progress' } });
  if (output.kind === 'text')
    event('response.output_text.delta', {
      output_index: 0,
      content_index: 0,
      item_id: item.id,
      delta: output.text,
    });
  event('response.output_item.done', { output_index: 0, item });
  event('response.completed', {
    response: {
      ...base,
      status: 'completed',
      output: [item],
      usage: {
        input_tokens: 10,
        input_tokens_details: { cached_tokens: 0 },
        output_tokens: 5,
        output_tokens_details: { reasoning_tokens: 0 },
        total_tokens: 15,
      },
    },
  });
  response.end();
}

export function startFakeOpenAi(script: ModelScript, listener?: FakeApiListener): Promise<FakeApi> {
  return startFakeApi((request, body, response) => {
    const path = (request.url ?? '').split('?')[0];
    if (request.method === 'GET' && path === '/v1/models') {
      response
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ object: 'list', data: [] }));
      return true;
    }
    if (request.method !== 'POST' || path !== '/v1/responses') return false;
    const message = body as ResponsesRequest;
    const output = script.turn({ offeredTools: toolNames(message.tools), results: resultsOf(message) });
    streamResponse(response, message.model ?? 'gpt-fake', output);
    return true;
  }, listener);
}
