package main

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
)

// nonFinite returns the JSON path of the first ±Inf or NaN number in v (""
// if there is none), so a result that overflowed is reported by name, not as
// the encoder's "unsupported value". Values that marshal themselves are
// theirs to check: a guarantee writes its infinite ε as null.
func nonFinite(v any) string {
	return walk(reflect.ValueOf(v), "result")
}

var marshaler = reflect.TypeFor[json.Marshaler]()

func walk(v reflect.Value, path string) string {
	if !v.IsValid() {
		return ""
	}
	if v.Type().Implements(marshaler) || (v.CanAddr() && v.Addr().Type().Implements(marshaler)) {
		return ""
	}
	switch v.Kind() {
	case reflect.Float32, reflect.Float64:
		if f := v.Float(); math.IsInf(f, 0) || math.IsNaN(f) {
			return path
		}
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			return walk(v.Elem(), path)
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			if p := walk(v.Index(i), path+"["+strconv.Itoa(i)+"]"); p != "" {
				return p
			}
		}
	case reflect.Map:
		it := v.MapRange()
		for it.Next() {
			if p := walk(it.Value(), fmt.Sprintf("%s[%v]", path, it.Key())); p != "" {
				return p
			}
		}
	case reflect.Struct:
		t := v.Type()
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "-" {
				continue
			}
			if name == "" {
				name = f.Name
			}
			if p := walk(v.Field(i), path+"."+name); p != "" {
				return p
			}
		}
	}
	return ""
}

// notFinite is the error for a result that overflowed or is not a number.
func notFinite(path string) error {
	return usagef("the result is not a finite number (%s): an input is too large, too small or not a number for it to be computed; bring the inputs within a range where it stays finite", path)
}
