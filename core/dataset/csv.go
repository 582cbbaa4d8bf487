package dataset

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// ReadCSV reads a dataset with header "user,x1,…,xd" and one row per item.
// A user's rows need not be adjacent; users keep the order of their first
// row. Errors name the line and column and say how to fix them.
func ReadCSV(r io.Reader, allowRagged bool) (*Dataset, error) {
	cr := csv.NewReader(r)
	cr.TrimLeadingSpace = true
	cr.ReuseRecord = true
	cr.Comment = '#'
	header, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("empty file: expected a header line user,x1,…,xd and one row per item")
	}
	if err != nil {
		return nil, csvErr(err)
	}
	dim := len(header) - 1
	if err := checkHeader(header); err != nil {
		return nil, err
	}
	d := &Dataset{Dim: dim}
	index := map[string]int{}
	total := 0
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, csvErr(err)
		}
		line, _ := cr.FieldPos(0)
		id := strings.TrimSpace(rec[0])
		if id == "" {
			return nil, fmt.Errorf("line %d: the user column is empty: every row needs the id of the user who holds the item", line)
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
				return nil, fmt.Errorf("line %d, column x%d: %q is not a number", line, k+1, field)
			}
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("line %d, column x%d: %s is not allowed: coordinates must be finite numbers", line, k+1, field)
			}
			d.Users[i].Points = append(d.Users[i].Points, v)
		}
		total += dim
		if total > MaxValues {
			return nil, fmt.Errorf("line %d: more than %d coordinates (n·m·d): the file is too large for ULDP Lab; use fewer users, items or dimensions", line, MaxValues)
		}
	}
	if len(d.Users) == 0 {
		return nil, fmt.Errorf("no data rows after the header: add one row per item, e.g. 1,0.5,-0.2")
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
	if len(h) < 2 {
		return fmt.Errorf("line 1: header %q has no coordinate columns: expected user,x1[,x2,…]", strings.Join(h, ","))
	}
	for k, f := range h {
		if strings.TrimSpace(f) != want[k] {
			return fmt.Errorf("line 1: header column %d is %q, expected %q (the header must read %s)", k+1, f, want[k], example)
		}
	}
	return nil
}

// csvErr rewords encoding/csv's errors, which already carry line numbers.
func csvErr(err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		if errors.Is(pe.Err, csv.ErrFieldCount) {
			return fmt.Errorf("line %d: wrong number of columns: every row needs the user id and one value per header column", pe.Line)
		}
		return fmt.Errorf("line %d, column %d: %v", pe.Line, pe.Column, pe.Err)
	}
	return fmt.Errorf("reading CSV: %v", err)
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
