package format

import (
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"strings"
	"testing"
)

type mode int

func (m mode) String() string { return [...]string{"paper", "sound"}[m] }

type count int
type name string
type ratio float64

type boom struct{}

func (boom) Error() string { return "boom" }

// operands covers every kind of value the package claims to format.
var operands = []any{
	0, 7, -42, 1234567, math.MaxInt64, math.MinInt64, int64(-3), int32(9), uint(5), uint64(math.MaxUint64), uint8(200),
	0.0, math.Copysign(0, -1), 1.0, -2.5, 0.1, 1e-7, 123456789.0, 1e21, math.Pi, -math.E, 3.0e-300,
	math.Inf(1), math.Inf(-1), math.NaN(), float32(0.1), float32(-1e10),
	true, false,
	"", "user-7", "ε = 1", "a \"quoted\"\n line", "ünïcödé",
	mode(1), count(12), count(-3), name("alice"), ratio(0.25),
	errors.New("no data"), boom{},
	[]float64{1, -0.5, math.Pi}, []int{3, 1, 2}, []string{"a", "b c"}, []count{1, 2}, []bool{true},
	[2]float64{1e6, 1e-6}, [][]float64{{1, 2}, {3}}, []name{"x"},
	[]float64{}, nil,
}

var verbs = []string{
	"%v", "%d", "%s", "%q", "%g", "%e", "%f", "%t",
	"%.4g", "%.3g", "%.0f", "%.2f", "%.5f", "%.0e", "%.6g", "%.2g", "%.5g", "%.3f", "%.4f",
	"%10s", "%10d", "%-22s", "%+d", "%6.2f", "%-8.3g|", "%08.3f", "%+.2e", "% d", "% g", "%05d", "%-05d|",
	"%+v", "%.3d", "%.0d", "%3.1s", "%x", "%c", "%010s", "%08g", "% 8.1f", "%+08d", "%.f",
}

// TestAgreesWithFmt holds the package to fmt itself: every verb this
// project uses, with its flags, on every kind of operand the package
// claims, prints what fmt prints; a verb that does not suit its operand
// (which go vet reports) is marked %!, as fmt marks it.
func TestAgreesWithFmt(t *testing.T) {
	for _, v := range verbs {
		for _, a := range operands {
			got, want := Sprintf(v, a), fmt.Sprintf(v, a)
			if !suits(v[len(strings.TrimSuffix(v, "|"))-1], a) {
				if !strings.Contains(got, "%!") {
					t.Errorf("Sprintf(%q, %#v) = %q, not marked as a misuse", v, a, got)
				}
				continue
			}
			if got != want {
				t.Errorf("Sprintf(%q, %#v) = %q, fmt says %q", v, a, got, want)
			}
		}
	}
}

// suits reports whether verb is one the package claims for operand a.
func suits(verb byte, a any) bool {
	if verb == 'v' {
		return true
	}
	switch a.(type) {
	case error, fmt.Stringer:
		if verb == 's' || verb == 'q' {
			return true
		}
	}
	v := reflect.ValueOf(a)
	switch v.Kind() {
	case reflect.Bool:
		return verb == 't'
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return verb == 'd'
	case reflect.Float32, reflect.Float64:
		return verb == 'g' || verb == 'e' || verb == 'f'
	case reflect.String:
		return verb == 's' || verb == 'q'
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			if e := v.Index(i); !e.IsZero() && !suits(verb, e.Interface()) {
				return false
			}
		}
		return true
	}
	return false
}

func TestAgreesWithFmtOnFormats(t *testing.T) {
	for _, c := range []struct {
		format string
		args   []any
	}{
		{"", nil},
		{"plain text", nil},
		{"100%% sure", nil},
		{"%d users, %d items: ε = %.3g, δ = %g", []any{10, 200, 0.5, 1e-6}},
		{"%s and %s", []any{"one"}},
		{"%d", []any{1, 2, "three"}},
		{"%d", []any{1, nil}},
		{"trailing %", nil},
		{"%!", nil},
		{"%ε", []any{1}},
		{"%.", []any{1.5}},
		{"%-+ 0d|", []any{5}},
		{"%v %d", []any{nil, nil}},
		{"%d", []any{[]string{"a"}}},
	} {
		want := fmt.Sprintf(c.format, c.args...)
		if got := Sprintf(c.format, c.args...); got != want {
			t.Errorf("Sprintf(%q, %v) = %q, fmt says %q", c.format, c.args, got, want)
		}
	}
}

func TestSprint(t *testing.T) {
	for _, args := range [][]any{
		{}, {7}, {1, 2}, {"a", "b"}, {"a", 1, 2, "b", 3.5}, {name("x"), 1}, {nil, 1}, {mode(0), count(2)}, {[]int{1}, 2}, {uint64(1), int64(-1)},
	} {
		if got, want := Sprint(args...), fmt.Sprint(args...); got != want {
			t.Errorf("Sprint(%v) = %q, fmt says %q", args, got, want)
		}
	}
}

func TestErrorf(t *testing.T) {
	base := errors.New("bad row 3")
	other := io.ErrUnexpectedEOF
	for _, c := range []struct {
		format string
		args   []any
		is     []error
	}{
		{"no operand", nil, nil},
		{"reading: %w", []any{base}, []error{base}},
		{"reading: %v", []any{base}, nil},
		{"two: %w; %w", []any{base, other}, []error{base, other}},
		{"%w", []any{"not an error"}, nil},
		{"%w", []any{nil}, nil},
	} {
		got := Errorf(c.format, c.args...)
		want := fmt.Errorf(c.format, c.args...)
		if got.Error() != want.Error() {
			t.Errorf("Errorf(%q).Error() = %q, fmt says %q", c.format, got.Error(), want.Error())
		}
		for _, e := range c.is {
			if !errors.Is(got, e) {
				t.Errorf("Errorf(%q) does not wrap %v", c.format, e)
			}
		}
		if len(c.is) == 0 && errors.Unwrap(got) != nil {
			t.Errorf("Errorf(%q) wraps %v, which no %%w asked for", c.format, errors.Unwrap(got))
		}
	}
	var target boom
	if !errors.As(Errorf("step %d: %w", 3, boom{}), &target) {
		t.Error("errors.As does not find the wrapped boom")
	}
}

// Beyond its claim the package marks the operand instead of guessing.
func TestUnsupportedIsMarked(t *testing.T) {
	if got, want := Sprintf("%w", errors.New("x")), "%!w(*errors.errorString=x)"; got != want {
		t.Errorf("Sprintf(%%w) = %q, want %q", got, want)
	}
	type pair struct{ a, b int }
	for _, c := range []struct {
		a    any
		want string
	}{
		{pair{1, 2}, "%!v(unsupported format.pair)"},
		{&pair{}, "%!v(unsupported *format.pair)"},
		{[]any{1}, "[%!v(unsupported interface {})]"},
		{[]mode{1}, "[1]"}, // fmt says [sound]: element Stringers are not claimed
	} {
		if got := Sprintf("%v", c.a); got != c.want {
			t.Errorf("Sprintf(%%v, %#v) = %q, want %q", c.a, got, c.want)
		}
	}
}

func BenchmarkSprintf(b *testing.B) {
	b.Run("format", func(b *testing.B) {
		for b.Loop() {
			_ = Sprintf("step %d: ε = %.3g, score %.4g of %d", 12, 0.5, 181.25, 200)
		}
	})
	b.Run("fmt", func(b *testing.B) {
		for b.Loop() {
			_ = fmt.Sprintf("step %d: ε = %.3g, score %.4g of %d", 12, 0.5, 181.25, 200)
		}
	})
}
