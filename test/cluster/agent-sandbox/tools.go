//go:build tools

// Package tools pins the agent-sandbox controller this module builds, so `go mod tidy` keeps its dependencies.
package tools

import _ "sigs.k8s.io/agent-sandbox/cmd/agent-sandbox-controller"
