/**
 * The playground's store input: spec text in, everything the preview shows out. It only calls the renderer
 * the CLI uses (`checkSpecText`, `renderAgent`, `explainAgent`, `mcpClientConfigFiles`); nothing here
 * re-implements rendering.
 */
import {
  type AcknowledgedWarning,
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

export interface LocatedWarning extends RenderWarning {
  readonly line: number;
}

export interface RenderedAgent {
  readonly name: string;
  readonly objects: readonly KubeObject[];
  /** Each object's YAML, exactly as it appears in `yaml`. */
  readonly objectYaml: readonly string[];
  readonly yaml: string;
  readonly warnings: readonly LocatedWarning[];
  readonly acknowledged: readonly AcknowledgedWarning[];
  readonly report: ExplainReport;
  readonly mcpConfigs: readonly McpClientConfigFile[];
  /** The renderer's own result, for the chart generator and the diagram. */
  readonly rendered: RenderResult;
}

/**
 * Each object's YAML, by its content: `toYamlDocuments` writes each object on its own (cdk8s's
 * `Yaml.stringify` joins the documents with `---\n`), and an edit usually changes one or two objects of a
 * render, so the others are not written again. The browser test compares the result with `toolyard synth`.
 */
const yamlByContent = new Map<string, string>();
const MAX_CACHED = 2000;

function objectYaml(object: KubeObject): string {
  // JSON drops `undefined`; the YAML keeps it (as null), so it must be part of the key.
  const key = JSON.stringify(object, (_, value: unknown) =>
    value === undefined ? '\u0000undefined' : value,
  );
  let yaml = yamlByContent.get(key);
  if (yaml === undefined) {
    yaml = toYamlDocuments([object]);
    if (yamlByContent.size >= MAX_CACHED) yamlByContent.clear();
    yamlByContent.set(key, yaml);
  }
  return yaml;
}

export type PreviewResult =
  | { readonly ok: true; readonly agents: readonly RenderedAgent[]; readonly yaml: string }
  | { readonly ok: false; readonly diagnostics: readonly SpecDiagnostic[] };

export function previewSpec(text: string, file = 'spec.yaml'): PreviewResult {
  const checked = checkSpecText(text, file);
  if (!checked.ok) {
    return {
      ok: false,
      // A problem of the whole text (empty, not YAML) has line 0 or no path: the editor shows it on line 1, at "/".
      diagnostics: checked.errors.map((e) => ({
        line: Math.max(e.line, 1),
        path: e.path || '/',
        message: e.message,
        ...(e.hint ? { hint: e.hint } : {}),
      })),
    };
  }
  try {
    const agents = checked.specs.map((spec): RenderedAgent => {
      const result = renderAgent(spec.agent);
      const objectYamls = result.objects.map(objectYaml);
      return {
        name: spec.agent.metadata.name,
        objects: result.objects,
        objectYaml: objectYamls,
        yaml: objectYamls.join('---\n'),
        warnings: result.warnings.map((w) => ({ ...w, line: spec.lineOf(w.path) })),
        acknowledged: result.acknowledgedWarnings,
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
