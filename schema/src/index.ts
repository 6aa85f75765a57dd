export { formatSpecError, type LoadedSpec, type LoadResult, loadSpecText, type SpecError } from './load.ts';
export type * from './types.generated.ts';
export {
  agentSchema,
  isValidAgentDocument,
  type JsonSchemaDocument,
  joinPointer,
  type SpecProblem,
  splitPointer,
  validateAgentDocument,
} from './validator.ts';
