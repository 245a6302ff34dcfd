package deploy

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// ParseCFN reads a CloudFormation (or SAM) template written in YAML into
// plain values, turning the short-form intrinsic functions into their JSON
// form as CloudFormation does: "!Ref X" becomes {"Ref": "X"}, "!Sub s"
// becomes {"Fn::Sub": s}, "!GetAtt A.B" becomes {"Fn::GetAtt": ["A", "B"]}.
// yaml.v3 alone would drop the tags and leave "X". Duplicate keys are an
// error.
func ParseCFN(data []byte) (map[string]any, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 {
		return nil, errors.New("not a single YAML document")
	}
	v, err := cfnValue(doc.Content[0])
	if err != nil {
		return nil, err
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, errors.New("top level is not a mapping")
	}
	return m, nil
}

func cfnValue(n *yaml.Node) (any, error) {
	var v any
	switch n.Kind {
	case yaml.AliasNode:
		return cfnValue(n.Alias)
	case yaml.MappingNode:
		m := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i].Value
			if _, dup := m[k]; dup {
				return nil, fmt.Errorf("line %d: key %q appears twice", n.Content[i].Line, k)
			}
			e, err := cfnValue(n.Content[i+1])
			if err != nil {
				return nil, err
			}
			m[k] = e
		}
		v = m
	case yaml.SequenceNode:
		s := make([]any, 0, len(n.Content))
		for _, c := range n.Content {
			e, err := cfnValue(c)
			if err != nil {
				return nil, err
			}
			s = append(s, e)
		}
		v = s
	case yaml.ScalarNode:
		v = scalar(n)
	default:
		return nil, fmt.Errorf("line %d: unexpected YAML node", n.Line)
	}
	if !strings.HasPrefix(n.Tag, "!") || strings.HasPrefix(n.Tag, "!!") {
		return v, nil
	}
	name := n.Tag[1:]
	switch name {
	case "Ref", "Condition":
		return map[string]any{name: v}, nil
	case "GetAtt":
		if s, ok := v.(string); ok {
			res, attr, _ := strings.Cut(s, ".")
			return map[string]any{"Fn::GetAtt": []any{res, attr}}, nil
		}
	}
	return map[string]any{"Fn::" + name: v}, nil
}

// scalar types a plain scalar the way YAML 1.2 core schema does, which is
// what CloudFormation accepts; tagged and quoted scalars stay strings.
func scalar(n *yaml.Node) any {
	if n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
		return n.Value
	}
	switch n.ShortTag() {
	case "!!int":
		if i, err := strconv.ParseInt(n.Value, 0, 64); err == nil {
			return int(i)
		}
	case "!!bool":
		return n.Value == "true" || n.Value == "True" || n.Value == "TRUE"
	case "!!null":
		return nil
	case "!!float":
		if f, err := strconv.ParseFloat(n.Value, 64); err == nil {
			return f
		}
	}
	return n.Value
}
