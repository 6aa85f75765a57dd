//go:build tools

// Package tools pins the kube-router command this module builds (only its NetworkPolicy firewall runs on the test
// node), so `go mod tidy` keeps its dependencies.
package tools

import _ "github.com/cloudnativelabs/kube-router/v2/cmd/kube-router"
