package catalog

import (
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// FractionInInt walks a YAML document beside the Go type it is decoded
// into and returns the path ("constants.kv_blocks", "pools[2].count"),
// text and line of the first integer field written as a fraction (1.5);
// path is "" when there is none. yaml.v3 truncates such a value into an
// int without a word; a whole number written as a float (2.0, 1e3) passes.
// Values whose shape does not match t are left to the decoder.
func FractionInInt(n *yaml.Node, t reflect.Type) (path, value string, line int) {
	return fractionInInt(n, t, "")
}

func fractionInInt(n *yaml.Node, t reflect.Type, path string) (string, string, int) {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	if n.Kind == yaml.DocumentNode {
		if len(n.Content) == 0 {
			return "", "", 0
		}
		return fractionInInt(n.Content[0], t, path)
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!float" {
			v, err := strconv.ParseFloat(strings.ReplaceAll(n.Value, "_", ""), 64)
			if err != nil || v != math.Trunc(v) || math.IsInf(v, 0) {
				return path, n.Value, n.Line
			}
		}
	case reflect.Struct:
		if n.Kind != yaml.MappingNode {
			break
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			key := n.Content[i].Value
			for j := 0; j < t.NumField(); j++ {
				f := t.Field(j)
				if name, _, _ := strings.Cut(f.Tag.Get("yaml"), ","); name == key && f.IsExported() {
					if p, v, l := fractionInInt(n.Content[i+1], f.Type, joinPath(path, key)); p != "" {
						return p, v, l
					}
					break
				}
			}
		}
	case reflect.Map:
		if n.Kind != yaml.MappingNode {
			break
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			if p, v, l := fractionInInt(n.Content[i+1], t.Elem(), joinPath(path, n.Content[i].Value)); p != "" {
				return p, v, l
			}
		}
	case reflect.Slice:
		if n.Kind != yaml.SequenceNode {
			break
		}
		for i, e := range n.Content {
			if p, v, l := fractionInInt(e, t.Elem(), fmt.Sprintf("%s[%d]", path, i)); p != "" {
				return p, v, l
			}
		}
	}
	return "", "", 0
}

func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}
