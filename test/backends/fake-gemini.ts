/**
 * The Gemini API as Gemini CLI uses it (`POST /v1beta/models/<model>:streamGenerateContent?alt=sse` and
 * `:generateContent`), answered by a ModelScript. Gemini CLI reaches it through `GOOGLE_GEMINI_BASE_URL`.
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

interface GeminiPart {
  readonly text?: string;
  readonly functionCall?: { readonly id?: string; readonly name?: string };
  readonly functionResponse?: { readonly id?: string; readonly name?: string; readonly response?: unknown };
}

interface GeminiRequest {
  readonly contents?: readonly { role?: string; parts?: readonly GeminiPart[] }[];
  readonly tools?: readonly { functionDeclarations?: readonly { name?: string }[] }[];
  readonly generationConfig?: {
    responseMimeType?: string;
    responseJsonSchema?: unknown;
    responseSchema?: unknown;
  };
}

function resultsOf(request: GeminiRequest): SeenResult[] {
  const results: SeenResult[] = [];
  for (const content of request.contents ?? [])
    for (const part of content.parts ?? [])
      if (part.functionResponse)
        results.push({
          callId: part.functionResponse.id ?? '',
          ...(part.functionResponse.name ? { tool: part.functionResponse.name } : {}),
          text: textOf(part.functionResponse.response),
        });
  return results;
}

function candidate(output: TurnOutput): Record<string, unknown> {
  const part =
    output.kind === 'call'
      ? { functionCall: { id: output.callId, name: output.tool, args: output.args } }
      : { text: output.text };
  return {
    candidates: [{ content: { role: 'model', parts: [part] }, finishReason: 'STOP', index: 0 }],
    usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 },
    modelVersion: 'gemini-fake',
  };
}

function respond(response: ServerResponse, streamed: boolean, body: Record<string, unknown>): void {
  if (streamed) {
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    sse(response, undefined, body);
    response.end();
  } else response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

export function startFakeGemini(script: ModelScript, listener?: FakeApiListener): Promise<FakeApi> {
  return startFakeApi((request, body, response) => {
    const path = (request.url ?? '').split('?')[0] ?? '';
    const match = /\/models\/([^:/]+):(streamGenerateContent|generateContent|countTokens)$/.exec(path);
    if (request.method !== 'POST' || !match) return false;
    const method = match[2];
    if (method === 'countTokens') {
      response
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ totalTokens: 10 }));
      return true;
    }
    const message = body as GeminiRequest;
    const streamed = method === 'streamGenerateContent';
    // Side requests that want JSON (routing, next-speaker checks) get an empty object, which the CLI accepts.
    const config = message.generationConfig;
    if (
      config?.responseMimeType === 'application/json' ||
      config?.responseJsonSchema ||
      config?.responseSchema
    ) {
      respond(response, streamed, candidate({ kind: 'text', text: '{}' }));
      return true;
    }
    const offeredTools = (message.tools ?? []).flatMap((t) =>
      (t.functionDeclarations ?? []).flatMap((f) => (f.name ? [f.name] : [])),
    );
    respond(response, streamed, candidate(script.turn({ offeredTools, results: resultsOf(message) })));
    return true;
  }, listener);
}
