// Grafana's dashboard schema as a validator: the Grafana Foundation SDK (Go types and strict decoders generated
// by cog from Grafana's own dashboard and panel schemas), pinned, built for test/grafana/dashboard-schema.test.ts.
module toolyard.dev/test/grafana/validator

go 1.22

require github.com/grafana/grafana-foundation-sdk/go v0.0.22
