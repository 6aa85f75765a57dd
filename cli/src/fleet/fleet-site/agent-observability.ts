/**
 * An agent page's observability (spec.observability, docs/observability.md): where telemetry goes, through
 * what, and which component emits what with which trace context — as `toolyard explain` reports it. Nothing
 * when observability is off.
 */
import type { ExplainReport } from '../../../../constructs/src/explain.ts';
import { type Html, html } from '../../../../site/src/components/html.ts';

export function agentObservabilitySection(report: ExplainReport): Html | string {
  const o = report.observability;
  if (!o) return '';
  return html`<h2>Observability</h2>
<p>OTLP to <code>${o.endpoint}</code> through ${o.via}; sampling: ${o.sampling}. Metrics: ${o.scrape}.</p>
<div class="ty-scroll" role="region" tabindex="0" aria-label="Telemetry emitters"><table class="fleet-table">
<thead><tr><th scope="col">Component</th><th scope="col">Emits</th><th scope="col">Trace context</th></tr></thead>
<tbody>${o.emitters.map(
    (e) =>
      html`<tr><td>${e.component}</td><td>${e.signals.join(', ') || 'nothing'}</td><td>${e.context}</td></tr>`,
  )}</tbody></table></div>`;
}
