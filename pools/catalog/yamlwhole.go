package catalog

import (
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// checkWholeNumbers walks a YAML document against the struct type it will
// be decoded into and refuses a number with a fraction bound for an integer
// field: yaml.v3 truncates it without a word (kv_blocks: 1.5 would be 1).
// Whole numbers written as floats (1e4, 16.0) pass; everything else is
// left to the decoder.
func checkWholeNumbers(n *yaml.Node, t reflect.Type, path string) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 1 {
			return checkWholeNumbers(n.Content[0], t, path)
		}
	case yaml.AliasNode:
		if n.Alias != nil {
			return checkWholeNumbers(n.Alias, t, path)
		}
	case yaml.MappingNode:
		if t.Kind() != reflect.Struct {
			return nil
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			key := n.Content[i].Value
			for j := 0; j < t.NumField(); j++ {
				f := t.Field(j)
				if name, _, _ := strings.Cut(f.Tag.Get("yaml"), ","); name == key && f.IsExported() {
					if err := checkWholeNumbers(n.Content[i+1], f.Type, strings.TrimPrefix(path+"."+key, ".")); err != nil {
						return err
					}
				}
			}
		}
	case yaml.ScalarNode:
		switch t.Kind() {
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			if n.Tag != "!!float" {
				return nil
			}
			if x, err := strconv.ParseFloat(n.Value, 64); err == nil && x != math.Trunc(x) {
				return fmt.Errorf("line %d: %s = %s: must be a whole number", n.Line, path, n.Value)
			}
		}
	}
	return nil
}
