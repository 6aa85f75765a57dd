/** Codes of the warnings a spec can acknowledge (`spec.acknowledgedWarnings[].warning`). */
export type AcknowledgeableWarning =
  | 'shared-egress'
  | 'unreachable-gateway'
  | 'network-policies-disabled'
  | 'broker-disabled'
  | 'wide-api-server-egress'
  | 'wide-gateway-egress';
