package main

import (
	"bytes"
	"encoding/json"
	"io"
	"math"
	"reflect"
	"regexp"
)

// writeJSON writes v as indented JSON (two spaces, a final newline), with
// every NaN or infinite number written as null: JSON has no NaN, and a
// metric without data (a pool nothing completed in) is NaN. v is not
// modified.
func writeJSON(w io.Writer, v any) error {
	c := cleanFloats(reflect.ValueOf(v))
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	if c.IsValid() {
		if err := enc.Encode(c.Interface()); err != nil {
			return err
		}
	} else if err := enc.Encode(nil); err != nil {
		return err
	}
	_, err := w.Write(markRE.ReplaceAll(buf.Bytes(), []byte("${1}null")))
	return err
}

// markRE matches nanMark written as a whole JSON number (5e-324), after a
// key, in a list or alone.
var markRE = regexp.MustCompile(`(^|[\s:\[,])5e-324\b`)

// nanMark stands for a NaN or infinite number while encoding.
const nanMark = math.SmallestNonzeroFloat64

var marshalerType = reflect.TypeFor[json.Marshaler]()

// cleanFloats returns a deep copy of v with NaN and infinite floats replaced
// by nanMark. Values with their own MarshalJSON are kept as they are.
func cleanFloats(v reflect.Value) reflect.Value {
	if !v.IsValid() || v.Type().Implements(marshalerType) {
		return v
	}
	switch v.Kind() {
	case reflect.Float32, reflect.Float64:
		if x := v.Float(); math.IsNaN(x) || math.IsInf(x, 0) {
			c := reflect.New(v.Type()).Elem()
			c.SetFloat(nanMark)
			return c
		}
		return v
	case reflect.Struct:
		c := reflect.New(v.Type()).Elem()
		c.Set(v) // unexported fields too
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				c.Field(i).Set(cleanFloats(v.Field(i)))
			}
		}
		return c
	case reflect.Slice:
		if v.IsNil() {
			return v
		}
		c := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
		for i := range v.Len() {
			c.Index(i).Set(cleanFloats(v.Index(i)))
		}
		return c
	case reflect.Array:
		c := reflect.New(v.Type()).Elem()
		for i := range v.Len() {
			c.Index(i).Set(cleanFloats(v.Index(i)))
		}
		return c
	case reflect.Pointer:
		if v.IsNil() {
			return v
		}
		c := reflect.New(v.Type().Elem())
		c.Elem().Set(cleanFloats(v.Elem()))
		return c
	case reflect.Map:
		if v.IsNil() {
			return v
		}
		c := reflect.MakeMapWithSize(v.Type(), v.Len())
		for it := v.MapRange(); it.Next(); {
			c.SetMapIndex(it.Key(), cleanFloats(it.Value()))
		}
		return c
	case reflect.Interface:
		if v.IsNil() {
			return v
		}
		c := reflect.New(v.Type()).Elem()
		c.Set(cleanFloats(v.Elem()))
		return c
	}
	return v
}
