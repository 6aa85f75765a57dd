//go:build tools

// Package tools pins the CoreDNS command this module builds, so `go mod tidy` keeps its dependencies.
package tools

import _ "github.com/coredns/coredns"
