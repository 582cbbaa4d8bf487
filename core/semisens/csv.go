package semisens

import (
	"encoding/csv"
	"errors"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/uldplab/uldp/core/dataset"
	"github.com/uldplab/uldp/core/format"
)

// MaxCSVBytes bounds a data file.
const MaxCSVBytes = 64 << 20

// WriteCSV writes d with the header a1,…,a_d,label,sensitive: a row per
// example, the sensitive value 1-based. The file holds the sensitive
// values: it is the simulation's ground truth, never a release.
func WriteCSV(w io.Writer, d *Dataset) error {
	cw := csv.NewWriter(w)
	head := make([]string, 0, d.DimPub()+2)
	for j := range d.DimPub() {
		head = append(head, "a"+strconv.Itoa(j+1))
	}
	if err := cw.Write(append(head, "label", "sensitive")); err != nil {
		return err
	}
	row := make([]string, d.DimPub()+2)
	for i, a := range d.Features {
		for j, x := range a {
			row[j] = strconv.FormatFloat(x, 'g', -1, 64)
		}
		row[len(a)] = strconv.FormatFloat(d.Labels[i], 'g', -1, 64)
		row[len(a)+1] = strconv.Itoa(d.sensitive[i] + 1)
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// ReadCSV reads what WriteCSV writes, for a sensitive feature of k values:
// the header a1,…,a_d,label,sensitive, then one row per example. Errors
// name the line and say what to fix.
func ReadCSV(r io.Reader, k int) (*Dataset, error) {
	if k < 2 {
		return nil, format.Errorf("k = %d: the sensitive feature needs at least 2 values", k)
	}
	cr := csv.NewReader(dataset.Limits{Bytes: MaxCSVBytes}.Reader(r))
	cr.Comment = '#'
	head, err := cr.Read()
	if err == io.EOF {
		return nil, format.Errorf("the file is empty: it needs the header a1,…,a_d,label,sensitive and a row per example")
	}
	if err != nil {
		return nil, csvErr(err)
	}
	dp := len(head) - 2
	if dp < 1 {
		return nil, format.Errorf("line 1: the header %s has no public features; it must be a1,…,a_d,label,sensitive with d ≥ 1", dataset.Excerpt(strings.Join(head, ",")))
	}
	for j, h := range head {
		want := "a" + strconv.Itoa(j+1)
		switch j {
		case dp:
			want = "label"
		case dp + 1:
			want = "sensitive"
		}
		if h != want {
			return nil, format.Errorf("line 1: the header is %s; it must be a1,…,a_d,label,sensitive (column %d should be %q)", dataset.Excerpt(strings.Join(head, ",")), j+1, want)
		}
	}
	var feats [][]float64
	var labels []float64
	var ys []int
	for line := 2; ; line++ {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, csvErr(err)
		}
		a := make([]float64, dp)
		for j := range a {
			if a[j], err = strconv.ParseFloat(rec[j], 64); err != nil || math.IsNaN(a[j]) || math.IsInf(a[j], 0) {
				return nil, format.Errorf("line %d, column a%d: %q is not a finite number", line, j+1, rec[j])
			}
		}
		b, err := strconv.ParseFloat(rec[dp], 64)
		if err != nil || (b != 1 && b != -1) {
			return nil, format.Errorf("line %d: label %q; labels are −1 or 1", line, rec[dp])
		}
		y, err := strconv.Atoi(rec[dp+1])
		if err != nil || y < 1 || y > k {
			return nil, format.Errorf("line %d: sensitive value %q; it must be a whole number in 1…%d (k = %d)", line, rec[dp+1], k, k)
		}
		if float64(len(ys)+1)*float64(k) > MaxCells {
			return nil, format.Errorf("line %d: more than %d examples of %d values: at most %d beliefs", line, MaxCells/k, k, MaxCells)
		}
		feats, labels, ys = append(feats, a), append(labels, b), append(ys, y-1)
	}
	return New(k, feats, labels, ys)
}

func csvErr(err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return format.Errorf("line %d: %v", pe.Line, pe.Err)
	}
	return err
}
