/**
 * The `telemetry` block of the toolchain server's and the broker's configs (and the sandbox manager's): where
 * spans go and how many. Off when absent. Kept free of Node APIs: the renderer emits it, in the browser too.
 */
import { z } from 'zod';

/** Resource attributes: dotted OpenTelemetry names (`k8s.namespace.name`, `team`) to string values. */
export const resourceAttributesSchema = z
  .record(
    z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_.-]{0,127}$/, 'must be an attribute name such as k8s.namespace.name'),
    z.string().max(256),
  )
  .default({});

/** Share of new traces recorded; a parent's decision always wins (parent-based sampling). */
export const sampleRatioSchema = z.number().min(0).max(1).default(1);

export const telemetrySchema = z
  .object({
    /**
     * OTLP/HTTP base URL: spans are POSTed as JSON to `<endpoint>/v1/traces`. Rendered agents send them to
     * the broker's telemetry route (`http://<agent>-broker.<ns>.svc:8480/otlp`), which forwards them.
     */
    endpoint: z
      .string()
      .url()
      .refine((u) => /^https?:\/\//.test(u), 'must be an http:// or https:// URL')
      .refine((u) => !/[?#]/.test(u), 'must have no query or fragment'),
    /** A file holding the token sent as `Authorization: Bearer` (this container's broker token), read at start. */
    tokenFile: z.string().startsWith('/', 'must be an absolute path').optional(),
    sampleRatio: sampleRatioSchema,
    /** Resource attributes besides `service.name` (which the component sets): agent, namespace, team labels. */
    resource: resourceAttributesSchema,
  })
  .strict()
  .optional();

export type TelemetryConfig = z.output<typeof telemetrySchema>;
