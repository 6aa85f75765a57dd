/**
 * prometheus-operator's ServiceMonitor (`monitoring.coreos.com/v1`), as far as toolyard renders it: a label
 * selector and endpoints naming a Service port, a path and a scrape interval. Written from the CRD's documented
 * field rules (port: a Service port name; interval: a Prometheus duration), since kubernetes-models has no
 * prometheus-operator models here. Throws like a kubernetes-models model, with ajv-shaped errors.
 */
const DURATION =
  /^(0|(([0-9]+)y)?(([0-9]+)w)?(([0-9]+)d)?(([0-9]+)h)?(([0-9]+)m)?(([0-9]+)s)?(([0-9]+)ms)?)$/;
const PORT_NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

interface Problem {
  readonly instancePath: string;
  readonly message: string;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function serviceMonitorProblems(object: unknown): Problem[] {
  if (!isRecord(object)) return [{ instancePath: '/', message: 'must be object' }];
  const spec = object['spec'];
  if (!isRecord(spec)) return [{ instancePath: '/spec', message: 'must be object' }];
  const problems: Problem[] = [];
  const selector = spec['selector'];
  if (!isRecord(selector)) problems.push({ instancePath: '/spec/selector', message: 'must be object' });
  else if (selector['matchLabels'] !== undefined) {
    const labels = selector['matchLabels'];
    if (!isRecord(labels) || Object.values(labels).some((v) => typeof v !== 'string'))
      problems.push({ instancePath: '/spec/selector/matchLabels', message: 'must map strings to strings' });
  }
  const endpoints = spec['endpoints'];
  if (!Array.isArray(endpoints)) problems.push({ instancePath: '/spec/endpoints', message: 'must be array' });
  else
    endpoints.forEach((endpoint: unknown, i) => {
      const at = `/spec/endpoints/${i}`;
      if (!isRecord(endpoint)) {
        problems.push({ instancePath: at, message: 'must be object' });
        return;
      }
      const port = endpoint['port'];
      if (port !== undefined && (typeof port !== 'string' || !PORT_NAME.test(port) || port.length > 15))
        problems.push({ instancePath: `${at}/port`, message: 'must be a Service port name' });
      const path = endpoint['path'];
      if (path !== undefined && (typeof path !== 'string' || !path.startsWith('/')))
        problems.push({ instancePath: `${at}/path`, message: 'must be an absolute path' });
      const interval = endpoint['interval'];
      if (interval !== undefined && (typeof interval !== 'string' || !DURATION.test(interval)))
        problems.push({ instancePath: `${at}/interval`, message: 'must be a Prometheus duration' });
    });
  return problems;
}

/** A model-like wrapper for kubernetes-schema.ts. */
export class ServiceMonitorModel {
  private readonly data: unknown;
  constructor(data: unknown) {
    this.data = data;
  }
  validate(): void {
    const errors = serviceMonitorProblems(this.data);
    if (errors.length > 0) throw Object.assign(new Error('invalid ServiceMonitor'), { errors });
  }
}
