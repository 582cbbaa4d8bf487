// Package format writes numbers, strings and errors into text the way fmt
// does, for the verbs and flags this project's messages use, without fmt's
// reflection-driven printer.
//
// Every browser lesson is a WebAssembly module of its own, and fmt's printer
// (with the parts of reflect, sorting and strconv it drags in) was about a
// tenth of each: it is linked as a whole as soon as one Sprintf is. The core,
// the scenes and the bridge therefore format through this package, and only
// the command-line tool, the desktop app and the tests import fmt.
//
// Supported: the verbs %v %d %s %q %g %e %f %t %w and %%, the flags - + space
// and 0, a width and a precision, on booleans, integers, floats, strings,
// errors, fmt-style Stringers (a String() string method), types whose
// underlying type is boolean, integer, float or string, and slices and
// arrays of those (formatted element by element, as fmt does) whose elements
// are neither errors nor Stringers. Anything else prints as
// %!v(unsupported T); a verb that does not suit its operand is marked as fmt
// marks it (%!d(string=x)), and so are %!s(MISSING) and %!(EXTRA int=1).
package format

import (
	"reflect"
	"strconv"
	"unicode/utf8"
)

// Sprintf formats according to a format specifier and returns the string,
// as fmt.Sprintf.
func Sprintf(format string, args ...any) string {
	p := printer{buf: make([]byte, 0, len(format)+8*len(args))}
	p.printf(format, args)
	return string(p.buf)
}

// Sprint formats its operands with %v and returns the string, adding a space
// between operands when neither is a string, as fmt.Sprint.
func Sprint(args ...any) string {
	var p printer
	prevString := false
	for i, a := range args {
		isString := a != nil && reflect.TypeOf(a).Kind() == reflect.String
		if i > 0 && !isString && !prevString {
			p.buf = append(p.buf, ' ')
		}
		p.arg(a, 'v')
		prevString = isString
	}
	return string(p.buf)
}

// Errorf formats according to a format specifier and returns an error with
// that text, as fmt.Errorf: each operand of a %w verb (which must be an
// error) is wrapped, so errors.Is and errors.As see through it.
func Errorf(format string, args ...any) error {
	p := printer{wrapping: true}
	p.printf(format, args)
	msg := string(p.buf)
	switch len(p.wrapped) {
	case 0:
		return &plainError{msg}
	case 1:
		return &wrapError{msg, p.wrapped[0]}
	default:
		return &wrapErrors{msg, p.wrapped}
	}
}

type plainError struct{ msg string }

func (e *plainError) Error() string { return e.msg }

type wrapError struct {
	msg string
	err error
}

func (e *wrapError) Error() string { return e.msg }
func (e *wrapError) Unwrap() error { return e.err }

type wrapErrors struct {
	msg  string
	errs []error
}

func (e *wrapErrors) Error() string   { return e.msg }
func (e *wrapErrors) Unwrap() []error { return e.errs }

// stringer is fmt.Stringer, named here so that fmt need not be imported.
type stringer interface{ String() string }

// flags are one verb's flags, width and precision.
type flags struct {
	minus, plus, space, zero bool
	wid, prec                int
	widOK, precOK            bool
}

type printer struct {
	buf      []byte
	f        flags
	wrapping bool    // inside Errorf: %w is allowed
	wrapped  []error // the %w operands, in order
}

func (p *printer) printf(format string, args []any) {
	next := 0
	for i := 0; i < len(format); {
		// Copy the literal text up to the next verb.
		j := i
		for j < len(format) && format[j] != '%' {
			j++
		}
		p.buf = append(p.buf, format[i:j]...)
		if j >= len(format) {
			break
		}
		i = j + 1
		p.f = flags{}
	flagLoop:
		for ; i < len(format); i++ {
			switch format[i] {
			case '-':
				p.f.minus, p.f.zero = true, false // as fmt: - overrides 0
			case '+':
				p.f.plus = true
			case ' ':
				p.f.space = true
			case '0':
				p.f.zero = !p.f.minus
			default:
				break flagLoop
			}
		}
		p.f.wid, p.f.widOK, i = number(format, i)
		if i+1 < len(format) && format[i] == '.' { // a final '.' is the verb, as in fmt
			i++
			p.f.prec, p.f.precOK, i = number(format, i)
			p.f.precOK = true // "%.f" is precision 0, as in fmt
		}
		if i >= len(format) {
			p.buf = append(p.buf, "%!(NOVERB)"...)
			break
		}
		verb, size := rune(format[i]), 1
		if verb >= utf8.RuneSelf {
			verb, size = utf8.DecodeRuneInString(format[i:])
		}
		i += size
		switch {
		case verb == '%':
			p.buf = append(p.buf, '%')
		case next >= len(args):
			p.buf = append(p.buf, "%!"...)
			p.buf = utf8.AppendRune(p.buf, verb)
			p.buf = append(p.buf, "(MISSING)"...)
		case verb == 'v' && p.f.plus:
			p.f.plus = false // %+v is fmt's field-name form, which here is %v
			p.arg(args[next], verb)
			next++
		case verb == 'w':
			a := args[next]
			next++
			err, ok := a.(error)
			if !p.wrapping || !ok {
				p.bad(verb, a, reflect.ValueOf(a))
				continue
			}
			p.wrapped = append(p.wrapped, err)
			p.arg(a, 'v')
		default:
			p.arg(args[next], verb)
			next++
		}
	}
	if next < len(args) {
		p.buf = append(p.buf, "%!(EXTRA "...)
		for k, a := range args[next:] {
			if k > 0 {
				p.buf = append(p.buf, ", "...)
			}
			if a == nil {
				p.buf = append(p.buf, "<nil>"...)
				continue
			}
			p.buf = append(p.buf, reflect.TypeOf(a).String()...)
			p.buf = append(p.buf, '=')
			p.f = flags{}
			p.arg(a, 'v')
		}
		p.buf = append(p.buf, ')')
	}
}

// number reads a decimal number at format[i:].
func number(format string, i int) (n int, ok bool, end int) {
	for ; i < len(format) && '0' <= format[i] && format[i] <= '9'; i++ {
		if n > 1e6 { // as fmt: refuse absurd widths instead of overflowing
			return 0, false, len(format)
		}
		n, ok = n*10+int(format[i]-'0'), true
	}
	return n, ok, i
}

// arg formats one operand. Like fmt, the basic types come first, so that a
// plain float64 never calls a method, then errors and Stringers for the
// string verbs, then the underlying kind.
func (p *printer) arg(a any, verb rune) {
	var ok bool
	switch v := a.(type) {
	case nil:
		ok = verb == 'v'
		if ok {
			pad(p, "<nil>")
		}
	case bool:
		ok = p.boolean(v, verb)
	case float64:
		ok = p.float(v, 64, verb)
	case int:
		ok = p.integer(int64(v), false, verb)
	case string:
		ok = p.str(v, verb)
	case error:
		ok = verb == 'v' || verb == 's' || verb == 'q'
		if ok {
			ok = p.str(v.Error(), verb)
		} else {
			ok = p.value(reflect.ValueOf(a), verb)
		}
	case stringer:
		ok = verb == 'v' || verb == 's' || verb == 'q'
		if ok {
			ok = p.str(v.String(), verb)
		} else {
			ok = p.value(reflect.ValueOf(a), verb)
		}
	default:
		ok = p.value(reflect.ValueOf(a), verb)
	}
	if !ok {
		p.bad(verb, a, reflect.ValueOf(a))
	}
}

// value formats an operand by its kind: a basic type, named or not, or a
// slice or array of them formatted element by element inside [ ]. It never
// turns a reflect.Value back into an interface: that alone would link
// reflect's method-calling machinery, some 30 KB of every engine.
func (p *printer) value(v reflect.Value, verb rune) bool {
	switch v.Kind() {
	case reflect.Bool:
		return p.boolean(v.Bool(), verb)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return p.integer(v.Int(), false, verb)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return p.integer(int64(v.Uint()), true, verb)
	case reflect.Float32:
		return p.float(v.Float(), 32, verb)
	case reflect.Float64:
		return p.float(v.Float(), 64, verb)
	case reflect.String:
		return p.str(v.String(), verb)
	case reflect.Slice, reflect.Array:
		p.buf = append(p.buf, '[')
		for i := range v.Len() {
			if i > 0 {
				p.buf = append(p.buf, ' ')
			}
			if e := v.Index(i); !p.value(e, verb) {
				p.bad(verb, nil, e)
			}
		}
		p.buf = append(p.buf, ']')
		return true
	case reflect.Invalid:
		return false
	}
	p.buf = append(p.buf, "%!"...)
	p.buf = utf8.AppendRune(p.buf, verb)
	p.buf = append(p.buf, "(unsupported "...)
	p.buf = append(p.buf, v.Type().String()...)
	p.buf = append(p.buf, ')')
	return true
}

// bad writes fmt's mark for a verb that does not suit its operand:
// %!verb(type=value). The value is a's text when a is an error or a
// Stringer, else v's kind formatted with %v.
func (p *printer) bad(verb rune, a any, v reflect.Value) {
	p.buf = append(p.buf, "%!"...)
	p.buf = utf8.AppendRune(p.buf, verb)
	p.buf = append(p.buf, '(')
	if !v.IsValid() {
		p.buf = append(p.buf, "<nil>"...)
	} else {
		p.buf = append(p.buf, v.Type().String()...)
		p.buf = append(p.buf, '=')
		p.f = flags{}
		switch m := a.(type) {
		case error:
			p.buf = append(p.buf, m.Error()...)
		case stringer:
			p.buf = append(p.buf, m.String()...)
		default:
			p.value(v, 'v')
		}
	}
	p.buf = append(p.buf, ')')
}

func (p *printer) boolean(v bool, verb rune) bool {
	if verb != 'v' && verb != 't' {
		return false
	}
	pad(p, strconv.FormatBool(v))
	return true
}

func (p *printer) integer(v int64, unsigned bool, verb rune) bool {
	if verb != 'v' && verb != 'd' {
		return false
	}
	var digits [24]byte
	var num []byte
	if unsigned {
		num = strconv.AppendUint(digits[:0], uint64(v), 10)
	} else {
		num = strconv.AppendInt(digits[:0], v, 10)
	}
	neg := num[0] == '-'
	if neg {
		num = num[1:]
	}
	// A precision is a minimum digit count, and turns zero padding off.
	zero := p.f.zero && !p.f.precOK
	if p.f.precOK {
		if p.f.prec == 0 && v == 0 {
			num = num[:0]
		}
		for len(num) < p.f.prec {
			num = append([]byte{'0'}, num...)
		}
	}
	sign := ""
	switch {
	case neg:
		sign = "-"
	case p.f.plus:
		sign = "+"
	case p.f.space:
		sign = " "
	}
	if zero && p.f.widOK && !p.f.minus {
		for len(num)+len(sign) < p.f.wid {
			num = append([]byte{'0'}, num...)
		}
	}
	if sign != "" {
		num = append([]byte(sign), num...)
	}
	// What padding is left is spaces: the zeros went in after the sign.
	z := p.f.zero
	p.f.zero = false
	pad(p, num)
	p.f.zero = z
	return true
}

func (p *printer) float(v float64, size int, verb rune) bool {
	prec := -1
	switch verb {
	case 'v':
		verb = 'g'
	case 'g':
	case 'e', 'f':
		prec = 6
	default:
		return false
	}
	if p.f.precOK {
		prec = p.f.prec
	}
	// As fmt's fmtFloat: format with a sign slot, then decide on the sign.
	var digits [32]byte
	num := strconv.AppendFloat(append(digits[:0], '+'), v, byte(verb), prec, size)
	if num[1] == '-' || num[1] == '+' {
		num = num[1:]
	}
	if p.f.space && num[0] == '+' && !p.f.plus {
		num[0] = ' '
	}
	if num[1] == 'I' || num[1] == 'N' { // ±Inf and NaN are never zero padded
		if num[1] == 'N' && !p.f.space && !p.f.plus {
			num = num[1:]
		}
		zero := p.f.zero
		p.f.zero = false
		pad(p, num)
		p.f.zero = zero
		return true
	}
	if p.f.plus || num[0] != '+' {
		if p.f.zero && !p.f.minus && p.f.widOK && p.f.wid > len(num) {
			p.buf = append(p.buf, num[0])
			p.padding(p.f.wid-len(num), '0')
			p.buf = append(p.buf, num[1:]...)
			return true
		}
		pad(p, num)
		return true
	}
	pad(p, num[1:])
	return true
}

func (p *printer) str(s string, verb rune) bool {
	switch verb {
	case 'v', 's':
		if p.f.precOK { // the precision is a rune count to keep
			n := 0
			for i := range s {
				if n == p.f.prec {
					s = s[:i]
					break
				}
				n++
			}
		}
		pad(p, s)
	case 'q':
		pad(p, strconv.Quote(s))
	default:
		return false
	}
	return true
}

// pad writes b within the width, left or right aligned; fmt pads strings
// with zeros too when asked to, and so does this.
func pad[T string | []byte](p *printer, b T) {
	n := 0
	if p.f.widOK {
		n = p.f.wid - utf8.RuneCountInString(string(b))
	}
	if n <= 0 {
		p.buf = append(p.buf, b...)
		return
	}
	if p.f.minus {
		p.buf = append(p.buf, b...)
		p.padding(n, ' ')
		return
	}
	c := byte(' ')
	if p.f.zero {
		c = '0'
	}
	p.padding(n, c)
	p.buf = append(p.buf, b...)
}

func (p *printer) padding(n int, c byte) {
	for range n {
		p.buf = append(p.buf, c)
	}
}
