/**
 * The Agent schema compiled by ajv. In Node it is compiled at first use; the browser bundle loads this module
 * as ajv's standalone output instead (site/scripts/standalone-validator.ts): the same generated validation
 * code, written out at build time, so the page carries no schema compiler.
 */
import { Ajv, type Options, type ValidateFunction } from 'ajv';
import agentSchema from '../agent.schema.json' with { type: 'json' };
import type { ToolyardAgent } from './types.generated.ts';

/** Every problem, not only the first; strict about the schema itself. */
export const AGENT_AJV_OPTIONS: Options = {
  allErrors: true,
  // validator.ts words every message from the error's keyword and params, so ajv's own message strings
  // would only add weight (to the precompiled validator the playground ships).
  messages: false,
  strict: true,
  strictRequired: false,
  strictTypes: false,
};

export function agentAjv(extra: Options = {}): Ajv {
  const ajv = new Ajv({ ...AGENT_AJV_OPTIONS, ...extra });
  // json-schema-to-typescript's annotation for union types; meaningless to validation.
  ajv.addKeyword({ keyword: 'tsType', schemaType: 'string' });
  return ajv;
}

let compiled: ValidateFunction<ToolyardAgent> | undefined;

export function agentValidator(): ValidateFunction<ToolyardAgent> {
  compiled ??= agentAjv().compile<ToolyardAgent>(agentSchema);
  return compiled;
}
