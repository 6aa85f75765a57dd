/** `templates/extra-objects.yaml`: the user's extra manifests, each rendered through `tpl` (maps as YAML). */
export const EXTRA_OBJECTS_TEMPLATE = `{{- range $.Values.extraObjects }}
---
{{ tpl (ternary . (toYaml .) (typeIs "string" .)) $ }}
{{- end }}
`;
