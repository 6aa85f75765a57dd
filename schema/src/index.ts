export type { JsonSchema } from './json-schema.ts';
export { formatSpecError, type LoadedSpec, type LoadResult, loadSpecText, type SpecError } from './load.ts';
export type * from './types.generated.ts';
export {
  agentSchema,
  isValidAgentDocument,
  joinPointer,
  type SpecProblem,
  splitPointer,
  validateAgentDocument,
} from './validator.ts';
