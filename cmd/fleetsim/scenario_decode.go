package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// A scenario file, YAML or JSON, is read one way (docs/cli.md, "Scenario
// files"): it is parsed into a tree of plain values (mappings, lists,
// strings, numbers as written, booleans, null), then checked against the
// configuration type, then decoded. Each of these is an error naming the
// key:
//   - more than one document (YAML "---", JSON values one after another);
//   - a key given twice in one mapping;
//   - a key that is not a field of the configuration ("unknown key");
//   - a number with a fraction or an exponent (2.9, 2.0, 1e3) in an integer
//     field.
// Keys that do not apply to the chosen model (burst settings with Poisson
// arrivals, a router field the router kind does not use) are errors of the
// configuration's Validate.

// docError is a scenario document error; decodeScenario prefixes the file.
type docError struct{ msg string }

func (e *docError) Error() string { return e.msg }

func docErr(format string, args ...any) error { return &docError{fmt.Sprintf(format, args...)} }

// childPath is the path of key under path ("workload.rate").
func childPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// parseScenarioTree parses a scenario document into a tree of
// map[string]any, []any, string, json.Number, bool and nil. An empty
// document is nil.
func parseScenarioTree(data []byte, isJSON bool) (any, error) {
	if isJSON {
		return parseJSONTree(data)
	}
	return parseYAMLTree(data)
}

func parseJSONTree(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := jsonValue(dec, "")
	if err == io.EOF {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		if err != nil {
			return nil, err
		}
		return nil, docErr("holds more than one document (one JSON object is allowed)")
	}
	return v, nil
}

// jsonValue reads one JSON value from dec, checking for duplicate keys.
func jsonValue(dec *json.Decoder, path string) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			m := map[string]any{}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k := kt.(string)
				if _, dup := m[k]; dup {
					return nil, docErr("key %q is given twice", childPath(path, k))
				}
				if m[k], err = jsonValue(dec, childPath(path, k)); err != nil {
					return nil, err
				}
			}
			_, err := dec.Token() // '}'
			return m, err
		case '[':
			l := []any{}
			for dec.More() {
				v, err := jsonValue(dec, fmt.Sprintf("%s[%d]", path, len(l)))
				if err != nil {
					return nil, err
				}
				l = append(l, v)
			}
			_, err := dec.Token() // ']'
			return l, err
		}
		return nil, docErr("unexpected %v", t)
	}
	return tok, nil
}

func parseYAMLTree(data []byte) (any, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if err == io.EOF {
			return nil, nil
		}
		return nil, err
	}
	var more yaml.Node
	if err := dec.Decode(&more); err != io.EOF {
		if err != nil {
			return nil, err
		}
		return nil, docErr("holds more than one document (one YAML document is allowed; remove the \"---\" separator)")
	}
	budget := maxYAMLNodes
	return yamlValue(&doc, "", &budget)
}

// maxYAMLNodes bounds the nodes of a scenario document with its aliases
// expanded, so that a "billion laughs" file (aliases of aliases) is refused
// instead of being expanded for minutes.
const maxYAMLNodes = 1 << 20

// yamlValue converts a YAML node to a plain value, checking for duplicate
// and non-string keys. Numbers keep their text when it is a JSON number, so
// that 2.0 in an integer field is refused as in JSON.
func yamlValue(n *yaml.Node, path string, budget *int) (any, error) {
	if *budget--; *budget < 0 {
		return nil, docErr("%s: aliases expand to more than %d values (the limit)", orTop(path), maxYAMLNodes)
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return nil, nil
		}
		return yamlValue(n.Content[0], path, budget)
	case yaml.AliasNode:
		return yamlValue(n.Alias, path, budget)
	case yaml.MappingNode:
		m := map[string]any{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			kn, vn := n.Content[i], n.Content[i+1]
			if kn.Kind != yaml.ScalarNode || (kn.Tag != "!!str" && kn.Tag != "!!int" && kn.Tag != "!!bool" && kn.Tag != "!!float") {
				return nil, docErr("line %d: %s: keys must be plain names", kn.Line, orTop(path))
			}
			k := kn.Value
			if _, dup := m[k]; dup {
				return nil, docErr("line %d: key %q is given twice", kn.Line, childPath(path, k))
			}
			v, err := yamlValue(vn, childPath(path, k), budget)
			if err != nil {
				return nil, err
			}
			m[k] = v
		}
		return m, nil
	case yaml.SequenceNode:
		l := make([]any, 0, len(n.Content))
		for i, c := range n.Content {
			v, err := yamlValue(c, fmt.Sprintf("%s[%d]", path, i), budget)
			if err != nil {
				return nil, err
			}
			l = append(l, v)
		}
		return l, nil
	case yaml.ScalarNode:
		switch n.Tag {
		case "!!null":
			return nil, nil
		case "!!int", "!!float":
			if json.Valid([]byte(n.Value)) {
				return json.Number(n.Value), nil
			}
			var f float64
			if err := n.Decode(&f); err != nil {
				return nil, docErr("line %d: %s = %s: not a number", n.Line, path, n.Value)
			}
			if math.IsNaN(f) || math.IsInf(f, 0) {
				return nil, docErr("line %d: %s = %s: must be a finite number", n.Line, path, n.Value)
			}
			if n.Tag == "!!int" && f == math.Trunc(f) && math.Abs(f) < 1<<63 {
				return json.Number(strconv.FormatInt(int64(f), 10)), nil // 0x10, 1_000
			}
			return json.Number(strconv.FormatFloat(f, 'g', -1, 64)), nil
		case "!!bool":
			var b bool
			err := n.Decode(&b)
			return b, err
		}
		return n.Value, nil // strings, timestamps and other tags as text
	}
	return nil, docErr("line %d: %s: unsupported YAML node", n.Line, orTop(path))
}

func orTop(path string) string {
	if path == "" {
		return "the top level"
	}
	return path
}

// checkTree checks a plain-value tree against the type it will be decoded
// into: every key must be a field (by its json tag), and integer fields
// must hold integers.
func checkTree(v any, t reflect.Type, path string) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Struct:
		m, ok := v.(map[string]any)
		if !ok {
			return nil // the decoder names the type mismatch
		}
		fields := jsonFields(t)
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys) // the first error is deterministic
		for _, k := range keys {
			ft, ok := fields[k]
			if !ok {
				names := make([]string, 0, len(fields))
				for n := range fields {
					names = append(names, n)
				}
				slices.Sort(names)
				return docErr("unknown key %q (allowed under %s: %s)", childPath(path, k), orTop(path), strings.Join(names, ", "))
			}
			if err := checkTree(m[k], ft, childPath(path, k)); err != nil {
				return err
			}
		}
	case reflect.Slice, reflect.Array:
		l, ok := v.([]any)
		if !ok {
			return nil
		}
		for i, x := range l {
			if err := checkTree(x, t.Elem(), fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
	case reflect.Map:
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		for k, x := range m {
			if err := checkTree(x, t.Elem(), childPath(path, k)); err != nil {
				return err
			}
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		n, ok := v.(json.Number)
		if !ok {
			return nil
		}
		if _, err := strconv.ParseInt(string(n), 10, 64); err == nil {
			return nil
		}
		if _, err := strconv.ParseUint(string(n), 10, 64); err == nil {
			return nil
		}
		if _, err := strconv.ParseFloat(string(n), 64); err == nil {
			return docErr("%s = %s: must be an integer (no fraction or exponent)", path, n)
		}
		return docErr("%s = %s: must be an integer in range", path, n)
	}
	return nil
}

// jsonFields maps the json names of t's exported fields to their types.
func jsonFields(t reflect.Type) map[string]reflect.Type {
	m := map[string]reflect.Type{}
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" || f.Tag.Get("yaml") == "-" { // not a scenario key (set by code)
			continue
		}
		if name == "" {
			if f.Anonymous {
				for k, v := range jsonFields(f.Type) {
					m[k] = v
				}
				continue
			}
			name = f.Name
		}
		m[name] = f.Type
	}
	return m
}

// decodeTree decodes a checked tree into dst (through JSON), naming the
// field of a type mismatch.
func decodeTree(tree any, dst any) error {
	b, err := json.Marshal(tree)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	err = dec.Decode(dst)
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return docErr("%s: a %s where %s is wanted", te.Field, te.Value, te.Type)
	}
	return err
}
