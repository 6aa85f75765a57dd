/**
 * The playground's store input: spec text in, everything the preview shows out. It only calls the renderer
 * the CLI uses (`checkSpecText`, `renderAgent`, `explainAgent`, `mcpClientConfigFiles`); nothing here
 * re-implements rendering.
 */
import {
  checkSpecText,
  type ExplainReport,
  explainAgent,
  type KubeObject,
  type McpClientConfigFile,
  mcpClientConfigFiles,
  type RenderResult,
  type RenderWarning,
  renderAgent,
  toYamlDocuments,
} from '../../../constructs/src/index.ts';

export interface SpecDiagnostic {
  readonly line: number;
  readonly path: string;
  readonly message: string;
  readonly hint?: string;
}

export interface RenderedAgent {
  readonly name: string;
  readonly objects: readonly KubeObject[];
  readonly yaml: string;
  readonly warnings: readonly RenderWarning[];
  readonly report: ExplainReport;
  readonly mcpConfigs: readonly McpClientConfigFile[];
  /** The renderer's own result, for the chart generator. */
  readonly rendered: RenderResult;
}

export type PreviewResult =
  | { readonly ok: true; readonly agents: readonly RenderedAgent[]; readonly yaml: string }
  | { readonly ok: false; readonly diagnostics: readonly SpecDiagnostic[] };

export function previewSpec(text: string, file = 'spec.yaml'): PreviewResult {
  const checked = checkSpecText(text, file);
  if (!checked.ok) {
    return {
      ok: false,
      diagnostics: checked.errors.map((e) => ({
        line: e.line,
        path: e.path,
        message: e.message,
        ...(e.hint ? { hint: e.hint } : {}),
      })),
    };
  }
  try {
    const agents = checked.specs.map((spec): RenderedAgent => {
      const result = renderAgent(spec.agent);
      return {
        name: spec.agent.metadata.name,
        objects: result.objects,
        yaml: toYamlDocuments(result.objects),
        warnings: result.warnings,
        report: explainAgent(result.plan),
        mcpConfigs: mcpClientConfigFiles(result.plan),
        rendered: result,
      };
    });
    return { ok: true, agents, yaml: agents.map((a) => a.yaml).join('---\n') };
  } catch (error) {
    return { ok: false, diagnostics: [{ line: 1, path: '/', message: (error as Error).message }] };
  }
}
