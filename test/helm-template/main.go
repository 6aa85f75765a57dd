// helm-template: a small, faithful stand-in for `helm template`, built from the parts Helm itself uses
// (Go text/template, Masterminds/sprig, ghodss/yaml), for tests on machines where no helm binary exists.
//
// Usage:
//
//	helm-template [--release-name NAME] [--namespace NS] [--strict] [--notes] [--skip-tests]
//	              [--api-versions GROUP/VERSION]... [--print-values] [--json] [-f values.yaml]... CHART_DIR
//
// What it does, as Helm 3 does:
//   - reads Chart.yaml into .Chart (Name, Version, AppVersion, …), values.yaml, then each -f file in order;
//     user files are deep-merged (maps merge, later wins; cli/values mergeMaps), then coalesced with the
//     chart defaults as Helm's chartutil.CoalesceValues does: user values win, maps merge, lists replace, a
//     user `null` deletes a key the defaults have and stays `null` where the defaults have no such key;
//     --print-values prints the result as JSON instead of rendering;
//   - .Release (Name, Namespace, Service "Helm", IsInstall, Revision 1), .Capabilities (KubeVersion,
//     APIVersions.Has: the core groups plus each --api-versions), .Template (Name, BasePath);
//   - parses every file under templates/ into one template set named "<chart>/templates/<file>", renders
//     each file whose name does not start with "_" (NOTES.txt only with --notes, alone);
//   - function set: sprig's TxtFuncMap minus env/expandenv, plus toYaml, fromYaml, fromYamlArray, toJson,
//     fromJson, fromJsonArray, include (recursion limit 1000 per name), tpl, required, fail and lookup
//     (always an empty map, as in `helm template`);
//   - missingkey=zero and removal of "<no value>" (or missingkey=error with --strict, as `helm lint --strict`);
//   - splits rendered files into documents, drops empty ones, parses each (invalid YAML is an error, as in
//     Helm), separates hooks (documents annotated helm.sh/hook) from manifests, sorts each by Helm's install
//     order of kinds (stable; files in path order) and prints "---\n# Source: <chart>/templates/<file>\n<doc>\n"
//     for the manifests, then the hooks, leaving out test hooks with --skip-tests (as `helm template`);
//     --json prints the same documents as one JSON array instead, each converted as Kubernetes' own
//     sigs.k8s.io/yaml (ghodss/yaml) converts YAML to JSON, so tests see what the API server would.
//
// What it does NOT cover: values.schema.json validation (the tests do that with ajv), --set/--set-string/
// --set-file, subcharts, dependencies and their globals, library charts, .Files, toToml, crds/, running hooks
// (they are only printed), chart archives as input, post-renderers, API-version checks (--validate) and
// .Capabilities beyond the fields above, Helm's lint rules (see test/chart/helm-lint.ts).
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/ioutil"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"text/template"

	"github.com/Masterminds/sprig"
	"github.com/ghodss/yaml"
)

const recursionMaxNums = 1000

var installOrder = []string{
	"PriorityClass", "Namespace", "NetworkPolicy", "ResourceQuota", "LimitRange", "PodSecurityPolicy",
	"PodDisruptionBudget", "ServiceAccount", "Secret", "SecretList", "ConfigMap", "StorageClass",
	"PersistentVolume", "PersistentVolumeClaim", "CustomResourceDefinition", "ClusterRole", "ClusterRoleList",
	"ClusterRoleBinding", "ClusterRoleBindingList", "Role", "RoleList", "RoleBinding", "RoleBindingList",
	"Service", "DaemonSet", "Pod", "ReplicationController", "ReplicaSet", "Deployment",
	"HorizontalPodAutoscaler", "StatefulSet", "Job", "CronJob", "IngressClass", "Ingress", "APIService",
}

type valueFiles []string

func (v *valueFiles) String() string     { return strings.Join(*v, ",") }
func (v *valueFiles) Set(s string) error { *v = append(*v, s); return nil }

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "Error:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	release, namespace, strict, notes, skipTests, printValues, asJSON := "release-name", "default", false, false, false, false, false
	var files valueFiles
	extraAPIVersions := map[string]bool{}
	var chartDir string
	for i := 0; i < len(args); i++ {
		next := func() (string, error) {
			if i+1 >= len(args) {
				return "", fmt.Errorf("%s needs a value", args[i])
			}
			i++
			return args[i], nil
		}
		var err error
		switch args[i] {
		case "--release-name":
			release, err = next()
		case "--namespace", "-n":
			namespace, err = next()
		case "-f", "--values":
			var f string
			f, err = next()
			files = append(files, f)
		case "--strict":
			strict = true
		case "--notes":
			notes = true
		case "--skip-tests":
			skipTests = true
		case "--print-values":
			printValues = true
		case "--json":
			asJSON = true
		case "--api-versions", "-a":
			var v string
			v, err = next()
			extraAPIVersions[v] = true
		default:
			if strings.HasPrefix(args[i], "-") {
				return fmt.Errorf("unknown flag %s", args[i])
			}
			chartDir = args[i]
		}
		if err != nil {
			return err
		}
	}
	if chartDir == "" {
		return errors.New("usage: helm-template [--release-name N] [--namespace NS] [--strict] [--notes] [--skip-tests] [--api-versions G/V]... [--print-values] [-f values.yaml]... CHART_DIR")
	}
	chart, err := readYamlMap(filepath.Join(chartDir, "Chart.yaml"))
	if err != nil {
		return err
	}
	defaults, err := readYamlMap(filepath.Join(chartDir, "values.yaml"))
	if err != nil {
		return err
	}
	user := map[string]interface{}{}
	for _, f := range files {
		m, err := readYamlMap(f)
		if err != nil {
			return err
		}
		user = mergeMaps(user, m)
	}
	values := coalesceValues(defaults, user)
	if printValues {
		out, err := json.Marshal(values)
		if err != nil {
			return err
		}
		fmt.Println(string(out))
		return nil
	}

	chartName, _ := chart["name"].(string)
	chartObj := map[string]interface{}{}
	for k, v := range chart {
		chartObj[strings.ToUpper(k[:1])+k[1:]] = v
	}
	top := map[string]interface{}{
		"Values": values,
		"Chart":  chartObj,
		"Release": map[string]interface{}{
			"Name": release, "Namespace": namespace, "Service": "Helm",
			"IsInstall": true, "IsUpgrade": false, "Revision": 1,
		},
		"Capabilities": map[string]interface{}{
			"KubeVersion": map[string]interface{}{"Version": "v1.31.0", "Major": "1", "Minor": "31", "GitVersion": "v1.31.0"},
			"APIVersions": apiVersions{extra: extraAPIVersions},
		},
	}

	templatesDir := filepath.Join(chartDir, "templates")
	var names []string
	sources := map[string]string{}
	err = filepath.Walk(templatesDir, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(chartDir, p)
		name := path.Join(chartName, filepath.ToSlash(rel))
		b, err := ioutil.ReadFile(p)
		if err != nil {
			return err
		}
		names = append(names, name)
		sources[name] = string(b)
		return nil
	})
	if err != nil {
		return err
	}
	sort.Strings(names)

	t := template.New("gotpl")
	if strict {
		t.Option("missingkey=error")
	} else {
		t.Option("missingkey=zero")
	}
	includedNames := map[string]int{}
	funcs := funcMap()
	funcs["include"] = func(name string, data interface{}) (string, error) {
		var buf strings.Builder
		if v, ok := includedNames[name]; ok {
			if v > recursionMaxNums {
				return "", fmt.Errorf("rendering template has a nested reference name: %s: unable to execute template", name)
			}
			includedNames[name]++
		} else {
			includedNames[name] = 1
		}
		err := t.ExecuteTemplate(&buf, name, data)
		includedNames[name]--
		return buf.String(), err
	}
	funcs["tpl"] = func(text string, vals interface{}) (string, error) {
		clone, err := t.Clone()
		if err != nil {
			return "", err
		}
		nt, err := clone.New("tpl").Parse(text)
		if err != nil {
			return "", fmt.Errorf("cannot parse template %q: %w", text, err)
		}
		var buf strings.Builder
		if err := nt.Execute(&buf, vals); err != nil {
			return "", fmt.Errorf("error during tpl function execution for %q: %w", text, err)
		}
		return strings.ReplaceAll(buf.String(), "<no value>", ""), nil
	}
	t.Funcs(funcs)
	for _, name := range names {
		if _, err := t.New(name).Parse(sources[name]); err != nil {
			return fmt.Errorf("parse error in %s: %w", name, err)
		}
	}

	type manifest struct {
		source, content, kind string
		hooks                 []string
	}
	var manifests, hooks []manifest
	var notesOut strings.Builder
	for _, name := range names {
		base := path.Base(name)
		isNotes := strings.HasSuffix(name, "/templates/NOTES.txt")
		if strings.HasPrefix(base, "_") || isNotes != notes || (isNotes && !strings.HasPrefix(name, chartName+"/templates/")) {
			continue
		}
		vals := map[string]interface{}{}
		for k, v := range top {
			vals[k] = v
		}
		vals["Template"] = map[string]interface{}{"Name": name, "BasePath": chartName + "/templates"}
		var buf strings.Builder
		if err := t.ExecuteTemplate(&buf, name, vals); err != nil {
			return fmt.Errorf("render error in %s: %w", name, err)
		}
		out := strings.ReplaceAll(buf.String(), "<no value>", "")
		if isNotes {
			notesOut.WriteString(out)
			continue
		}
		for _, doc := range splitManifests(out) {
			if strings.TrimSpace(doc) == "" {
				continue
			}
			var head struct {
				Kind     string `json:"kind"`
				Metadata struct {
					Annotations map[string]string `json:"annotations"`
				} `json:"metadata"`
			}
			if err := yaml.Unmarshal([]byte(doc), &head); err != nil {
				return fmt.Errorf("YAML parse error in %s: %w\n%s", name, err, doc)
			}
			m := manifest{source: name, content: doc, kind: head.Kind}
			if hook, ok := head.Metadata.Annotations["helm.sh/hook"]; ok {
				for _, event := range strings.Split(hook, ",") {
					m.hooks = append(m.hooks, strings.TrimSpace(event))
				}
				hooks = append(hooks, m)
			} else {
				manifests = append(manifests, m)
			}
		}
	}
	if notes {
		fmt.Print(notesOut.String())
		return nil
	}
	order := map[string]int{}
	for i, k := range installOrder {
		order[k] = i
	}
	byKind := func(list []manifest) {
		sort.SliceStable(list, func(i, j int) bool {
			a, aok := order[list[i].kind]
			b, bok := order[list[j].kind]
			switch {
			case !aok && !bok:
				return list[i].kind < list[j].kind
			case !aok:
				return false
			case !bok:
				return true
			}
			return a < b
		})
	}
	byKind(manifests)
	byKind(hooks)
	var printed []manifest
	printed = append(printed, manifests...)
	for _, m := range hooks {
		if !(skipTests && isTestHook(m.hooks)) {
			printed = append(printed, m)
		}
	}
	var w bytes.Buffer
	if asJSON {
		w.WriteString("[")
		for i, m := range printed {
			doc, err := yaml.YAMLToJSON([]byte(m.content))
			if err != nil {
				return fmt.Errorf("YAML to JSON in %s: %w", m.source, err)
			}
			if i > 0 {
				w.WriteString(",\n")
			}
			w.Write(doc)
		}
		w.WriteString("]\n")
	} else {
		for _, m := range printed {
			fmt.Fprintf(&w, "---\n# Source: %s\n%s\n", m.source, m.content)
		}
	}
	_, err = os.Stdout.Write(w.Bytes())
	return err
}

// isTestHook is Helm's: a hook whose events include test (or the deprecated test-success).
func isTestHook(events []string) bool {
	for _, e := range events {
		if e == "test" || e == "test-success" {
			return true
		}
	}
	return false
}

type apiVersions struct{ extra map[string]bool }

// Has reports the API versions every supported cluster serves, plus those given with --api-versions.
func (a apiVersions) Has(v string) bool {
	switch v {
	case "v1", "apps/v1", "rbac.authorization.k8s.io/v1", "networking.k8s.io/v1", "policy/v1", "batch/v1":
		return true
	}
	return a.extra[v]
}

var sep = regexp.MustCompile("(?:^|\\s*\n)---\\s*")

// splitManifests is Helm's releaseutil.SplitManifests without the map: documents in order.
func splitManifests(bigFile string) []string {
	docs := sep.Split(bigFile, -1)
	var res []string
	for _, d := range docs {
		if strings.TrimSpace(d) == "" {
			continue
		}
		res = append(res, strings.TrimSpace(d))
	}
	return res
}

func readYamlMap(file string) (map[string]interface{}, error) {
	b, err := ioutil.ReadFile(file)
	if err != nil {
		return nil, err
	}
	m := map[string]interface{}{}
	if err := yaml.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if m == nil {
		m = map[string]interface{}{}
	}
	return m, nil
}

// mergeMaps merges b into a, b winning; nested maps are merged (Helm's cli/values mergeMaps).
func mergeMaps(a, b map[string]interface{}) map[string]interface{} {
	out := make(map[string]interface{}, len(a))
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		if v, ok := v.(map[string]interface{}); ok {
			if bv, ok := out[k]; ok {
				if bv, ok := bv.(map[string]interface{}); ok {
					out[k] = mergeMaps(bv, v)
					continue
				}
			}
		}
		out[k] = v
	}
	return out
}

// coalesceValues is Helm's chartutil.CoalesceValues for a chart without dependencies: the user values v win;
// for each key of the chart defaults, a user null deletes the key, user and default maps merge (coalesceTables),
// a user map over a non-map default is kept (Helm warns), and a missing key is copied from the defaults.
// Keys only the user has are kept as they are, null included.
func coalesceValues(defaults, v map[string]interface{}) map[string]interface{} {
	for key, val := range deepCopy(defaults).(map[string]interface{}) {
		if value, ok := v[key]; ok {
			if value == nil {
				delete(v, key)
			} else if dest, ok := value.(map[string]interface{}); ok {
				if src, ok := val.(map[string]interface{}); ok {
					coalesceTables(dest, src)
				}
			}
		} else {
			v[key] = val
		}
	}
	return v
}

// coalesceTables merges src (defaults) into dst (user values, authoritative), as Helm's CoalesceTables.
func coalesceTables(dst, src map[string]interface{}) {
	for key, val := range src {
		dv, ok := dst[key]
		switch {
		case ok && dv == nil:
			delete(dst, key)
		case !ok:
			dst[key] = val
		default:
			dm, dstIsMap := dv.(map[string]interface{})
			if sm, srcIsMap := val.(map[string]interface{}); srcIsMap && dstIsMap {
				coalesceTables(dm, sm)
			}
			// Otherwise the user's value stands (Helm prints a warning when a map meets a non-map).
		}
	}
}

func deepCopy(v interface{}) interface{} {
	switch t := v.(type) {
	case map[string]interface{}:
		out := make(map[string]interface{}, len(t))
		for k, x := range t {
			out[k] = deepCopy(x)
		}
		return out
	case []interface{}:
		out := make([]interface{}, len(t))
		for i, x := range t {
			out[i] = deepCopy(x)
		}
		return out
	}
	return v
}

func funcMap() template.FuncMap {
	f := sprig.TxtFuncMap()
	delete(f, "env")
	delete(f, "expandenv")
	f["toYaml"] = func(v interface{}) string {
		data, err := yaml.Marshal(v)
		if err != nil {
			return ""
		}
		return strings.TrimSuffix(string(data), "\n")
	}
	f["fromYaml"] = func(str string) map[string]interface{} {
		m := map[string]interface{}{}
		if err := yaml.Unmarshal([]byte(str), &m); err != nil {
			m["Error"] = err.Error()
		}
		return m
	}
	f["fromYamlArray"] = func(str string) []interface{} {
		a := []interface{}{}
		if err := yaml.Unmarshal([]byte(str), &a); err != nil {
			a = []interface{}{err.Error()}
		}
		return a
	}
	f["toJson"] = func(v interface{}) string {
		data, err := json.Marshal(v)
		if err != nil {
			return ""
		}
		return string(data)
	}
	f["fromJson"] = func(str string) map[string]interface{} {
		m := map[string]interface{}{}
		if err := json.Unmarshal([]byte(str), &m); err != nil {
			m["Error"] = err.Error()
		}
		return m
	}
	f["fromJsonArray"] = func(str string) []interface{} {
		a := []interface{}{}
		if err := json.Unmarshal([]byte(str), &a); err != nil {
			a = []interface{}{err.Error()}
		}
		return a
	}
	f["required"] = func(warn string, val interface{}) (interface{}, error) {
		if val == nil {
			return val, errors.New(warn)
		} else if s, ok := val.(string); ok && s == "" {
			return val, errors.New(warn)
		}
		return val, nil
	}
	f["fail"] = func(msg string) (string, error) { return "", errors.New(msg) }
	f["lookup"] = func(string, string, string, string) (map[string]interface{}, error) {
		return map[string]interface{}{}, nil
	}
	// Placeholders replaced per render, as in Helm's engine.
	f["include"] = func(string, interface{}) string { return "not implemented" }
	f["tpl"] = func(string, interface{}) interface{} { return "not implemented" }
	return f
}
