package dataset

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/uldplab/uldp/core/format"
)

// Limits bound what a CSV read may take, so any file — /dev/zero, a header
// of millions of columns — costs bounded memory and time. A zero field is
// the default's.
type Limits struct {
	Bytes   int64 // the whole file
	Line    int   // one line, in bytes
	Columns int   // coordinates per item (d)
	Rows    int   // items
}

// DefaultLimits are generous for a classroom: 256 MiB, 1 MiB lines, 10⁴
// coordinates, and as many rows as MaxValues allows coordinates.
var DefaultLimits = Limits{Bytes: 256 << 20, Line: 1 << 20, Columns: 10_000, Rows: MaxValues}

// LimitError is a read stopped by one of the Limits.
type LimitError struct {
	Name  string // "bytes", "line", "columns" or "rows": the Limits field, lower case
	Limit int64
	Line  int // where the read stopped (0 if unknown)
}

func (e *LimitError) Error() string {
	what := map[string]string{"bytes": "the file is longer than %d bytes", "line": "a line is longer than %d bytes",
		"columns": "the header has more than %d coordinate columns", "rows": "there are more than %d rows"}[e.Name]
	msg := format.Sprintf(what, e.Limit)
	if e.Line > 0 {
		msg = format.Sprintf("line %d: %s", e.Line, msg)
	}
	return msg
}

func (l Limits) withDefaults() Limits {
	d := DefaultLimits
	if l.Bytes > 0 {
		d.Bytes = l.Bytes
	}
	if l.Line > 0 {
		d.Line = l.Line
	}
	if l.Columns > 0 {
		d.Columns = l.Columns
	}
	if l.Rows > 0 {
		d.Rows = l.Rows
	}
	return d
}

// Reader bounds r by the limits' bytes and line length: it stops with a
// *LimitError at the first byte past either, so a file of one endless
// line (/dev/zero) is refused after a line's worth, not read whole.
func (l Limits) Reader(r io.Reader) io.Reader { return &guard{r: r, limit: l.withDefaults()} }

// guard passes a reader through until the whole or one line passes its
// limit; it then gives the bytes before that point, and the LimitError
// from then on.
type guard struct {
	r             io.Reader
	limit         Limits
	read, lineLen int64
	lines         int
	err           error
}

func (g *guard) Read(p []byte) (int, error) {
	if g.err != nil {
		return 0, g.err
	}
	n, err := g.r.Read(p)
	over := g.read + int64(n) - g.limit.Bytes
	if over > 0 {
		n -= int(over)
	}
	g.read += int64(n)
	for k := 0; k < n; {
		i := bytes.IndexByte(p[k:n], '\n')
		end := n
		if i >= 0 {
			end = k + i
		}
		if g.lineLen+int64(end-k) > int64(g.limit.Line) {
			n = k + int(int64(g.limit.Line)-g.lineLen)
			g.err = &LimitError{Name: "line", Limit: int64(g.limit.Line), Line: g.lines + 1}
			break
		}
		if i < 0 {
			g.lineLen += int64(n - k)
			break
		}
		g.lines++
		g.lineLen, k = 0, end+1
	}
	if g.err == nil && over > 0 {
		g.err = &LimitError{Name: "bytes", Limit: g.limit.Bytes, Line: g.lines + 1}
	}
	if g.err != nil {
		return n, g.err
	}
	return n, err
}

// ReadCSV reads a dataset within DefaultLimits (see Limits.ReadCSV).
func ReadCSV(r io.Reader, allowRagged bool) (*Dataset, error) {
	return DefaultLimits.ReadCSV(r, allowRagged)
}

// ReadCSV reads a dataset with header "user,x1,…,xd" and one row per item,
// within the limits; a UTF-8 byte-order mark is skipped. A user's rows need
// not be adjacent; users keep the order of their first row. Errors name the
// line and column and say how to fix them.
func (l Limits) ReadCSV(r io.Reader, allowRagged bool) (*Dataset, error) {
	l = l.withDefaults()
	br := bufio.NewReader(l.Reader(r))
	if bom, err := br.Peek(3); err == nil && string(bom) == "\uFEFF" {
		br.Discard(3)
	}
	cr := csv.NewReader(br)
	cr.TrimLeadingSpace = true
	cr.ReuseRecord = true
	cr.Comment = '#'
	header, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return nil, format.Errorf("empty file: expected a header line user,x1,…,xd and one row per item")
	}
	if err != nil {
		return nil, csvErr(err)
	}
	dim := len(header) - 1
	if dim > l.Columns {
		return nil, &LimitError{Name: "columns", Limit: int64(l.Columns), Line: 1}
	}
	if err := checkHeader(header); err != nil {
		return nil, err
	}
	d := &Dataset{Dim: dim}
	index := map[string]int{}
	total, rows := 0, 0
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, csvErr(err)
		}
		line, _ := cr.FieldPos(0)
		if rows++; rows > l.Rows {
			return nil, &LimitError{Name: "rows", Limit: int64(l.Rows), Line: line}
		}
		id := strings.TrimSpace(rec[0])
		if id == "" {
			return nil, format.Errorf("line %d: the user column is empty: every row needs the id of the user who holds the item", line)
		}
		if !utf8.ValidString(id) {
			return nil, format.Errorf("line %d: the user id %s is not UTF-8 text: save the file as UTF-8", line, Excerpt(id))
		}
		// A line break inside a quoted id does not survive CSV: readers
		// drop the carriage return of "\r\n" there, so the id would change
		// on its way through a written file.
		if strings.ContainsAny(id, "\r\n") {
			return nil, format.Errorf("line %d: the user id %s spans lines: put each id on one line", line, Excerpt(id))
		}
		i, ok := index[id]
		if !ok {
			i = len(d.Users)
			index[id] = i
			d.Users = append(d.Users, User{ID: id})
		}
		for k, field := range rec[1:] {
			v, err := strconv.ParseFloat(strings.TrimSpace(field), 64)
			if err != nil {
				return nil, format.Errorf("line %d, column x%d: %s is not a number", line, k+1, Excerpt(field))
			}
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, format.Errorf("line %d, column x%d: %s is not allowed: coordinates must be finite numbers", line, k+1, Excerpt(field))
			}
			d.Users[i].Points = append(d.Users[i].Points, v)
		}
		total += dim
		if total > MaxValues {
			return nil, format.Errorf("line %d: more than %d coordinates (n·m·d): the file is too large for ULDP Lab; use fewer users, items or dimensions", line, MaxValues)
		}
	}
	if len(d.Users) == 0 {
		return nil, format.Errorf("no data rows after the header: add one row per item, e.g. 1,0.5,-0.2")
	}
	if err := d.Validate(allowRagged); err != nil {
		return nil, err
	}
	return d, nil
}

func checkHeader(h []string) error {
	want := make([]string, len(h))
	want[0] = "user"
	for k := 1; k < len(h); k++ {
		want[k] = "x" + strconv.Itoa(k)
	}
	example := strings.Join(want, ",")
	if len(h) > 6 {
		example = format.Sprintf("user,x1,x2,…,x%d", len(h)-1)
	}
	if len(h) < 2 {
		return format.Errorf("line 1: header %s has no coordinate columns: expected user,x1[,x2,…]", Excerpt(strings.Join(h, ",")))
	}
	for k, f := range h {
		if strings.TrimSpace(f) != want[k] {
			return format.Errorf("line 1: header column %d is %s, expected %q (the header must read %s)", k+1, Excerpt(f), want[k], example)
		}
	}
	return nil
}

// Excerpt quotes s for an error message, cut to its first 40 characters
// (and its length) when longer: a 100 MB field is not a 100 MB message.
func Excerpt(s string) string {
	const keep = 40
	if utf8.RuneCountInString(s) <= keep {
		return strconv.Quote(s)
	}
	r := []rune(s[:min(len(s), 4*keep)])
	return strconv.Quote(string(r[:keep])) + format.Sprintf("… (%d bytes)", len(s))
}

// csvErr rewords encoding/csv's errors, which already carry line numbers.
func csvErr(err error) error {
	if le := (*LimitError)(nil); errors.As(err, &le) {
		return le
	}
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		if errors.Is(pe.Err, csv.ErrFieldCount) {
			return format.Errorf("line %d: wrong number of columns: every row needs the user id and one value per header column", pe.Line)
		}
		return format.Errorf("line %d, column %d: %v", pe.Line, pe.Column, pe.Err)
	}
	return format.Errorf("reading CSV: %v", err)
}

// WriteCSV writes the dataset in the format ReadCSV reads, with shortest
// round-trip number formatting (reading it back gives identical floats).
func WriteCSV(w io.Writer, d *Dataset) error {
	cw := csv.NewWriter(w)
	row := make([]string, d.Dim+1)
	row[0] = "user"
	for k := 1; k <= d.Dim; k++ {
		row[k] = "x" + strconv.Itoa(k)
	}
	if err := cw.Write(row); err != nil {
		return err
	}
	for i, u := range d.Users {
		row[0] = u.ID
		for j := range d.Items(i) {
			for k, v := range d.Item(i, j) {
				row[k+1] = strconv.FormatFloat(v, 'g', -1, 64)
			}
			if err := cw.Write(row); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	return cw.Error()
}
