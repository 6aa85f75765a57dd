/**
 * Stands in for Node built-ins (fs, path, os, child_process) that cdk8s imports at module top for its
 * file-based helpers (Yaml.load, Helm, App.synth). The renderer never calls them; if anything does, it fails
 * loudly instead of pretending.
 */
function unavailable(name: string): never {
  throw new Error(`${name} is not available in the browser build of the renderer`);
}

const builtin: Record<string, unknown> = new Proxy(
  {},
  {
    get(_target, property) {
      if (property === '__esModule') return false;
      if (typeof property === 'symbol') return undefined;
      return () => unavailable(`node built-in "${property}"`);
    },
  },
);

export default builtin;
