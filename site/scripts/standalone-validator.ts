/**
 * The browser bundle loads `schema/src/agent-validator.ts` as ajv's standalone output: the validation code ajv
 * generates for the Agent schema (with the same options the CLI compiles it with), written out at build time.
 * In Node, ajv generates exactly this code at first use and evaluates it; the browser gets it precompiled and
 * carries neither ajv's compiler nor the schema it compiled.
 */
import { fileURLToPath } from 'node:url';
import standalone from 'ajv/dist/standalone/index.js';
import type { Plugin } from 'esbuild';
import agentSchema from '../../schema/agent.schema.json' with { type: 'json' };
import { agentAjv } from '../../schema/src/agent-validator.ts';

const VALIDATOR_MODULE = fileURLToPath(new URL('../../schema/src/agent-validator.ts', import.meta.url));
const REPO = fileURLToPath(new URL('../../', import.meta.url));

type StandaloneCode = (ajv: unknown, validate: unknown) => string;
/** ajv's standalone module is CommonJS with an `exports.default`. */
const standaloneCode: StandaloneCode =
  (standalone as unknown as { default?: StandaloneCode }).default ??
  (standalone as unknown as StandaloneCode);

export function standaloneValidatorSource(): string {
  const ajv = agentAjv({ code: { source: true, esm: true } });
  const code = standaloneCode(ajv, ajv.compile(agentSchema));
  // agent-validator.ts's browser-facing export, over the generated module's own `validate`.
  return `${code}\nexport function agentValidator() { return validate; }\n`;
}

export const standaloneValidator: Plugin = {
  name: 'toolyard-standalone-validator',
  setup(b) {
    b.onLoad({ filter: /[\\/]schema[\\/]src[\\/]agent-validator\.ts$/ }, (args) => {
      if (args.path !== VALIDATOR_MODULE) return undefined;
      // ajv's generated code requires its small runtime helpers (ucs2length, equal) from the package.
      return { contents: standaloneValidatorSource(), loader: 'js', resolveDir: REPO };
    });
  },
};
