// Command validate reads a Grafana dashboard (JSON) on stdin and checks it against Grafana's schema as the
// Grafana Foundation SDK generates it: strict decoding (no unknown field, every required one, right types,
// panel options and queries by plugin) and the schema's constraints. Prints "ok", or each problem on a line.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/grafana/grafana-foundation-sdk/go/cog"
	"github.com/grafana/grafana-foundation-sdk/go/cog/plugins"
	"github.com/grafana/grafana-foundation-sdk/go/dashboard"
)

// failed reports err unless it is an empty list of build errors (the SDK returns one typed as error).
func failed(stage string, err error) bool {
	var list cog.BuildErrors
	if err == nil || (errors.As(err, &list) && len(list) == 0) {
		return false
	}
	fmt.Printf("%s: %v\n", stage, err)
	return true
}

func main() {
	plugins.RegisterDefaultPlugins()
	raw, err := io.ReadAll(os.Stdin)
	if err != nil {
		fmt.Println(err)
		os.Exit(2)
	}
	var d dashboard.Dashboard
	if failed("decode", d.UnmarshalJSONStrict(raw)) || failed("validate", d.Validate()) {
		os.Exit(1)
	}
	fmt.Println("ok")
}
