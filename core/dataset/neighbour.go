package dataset

import (
	"math"
	"strconv"
	"strings"

	"github.com/uldplab/uldp/core/format"
)

// ParseNeighbour applies a neighbour spec to d and returns the neighbour
// and the index of the changed user. The spec is
//
//	replace:ID=ITEM;ITEM;…
//
// where ID is a user id as written in the data and each ITEM is that user's
// new item as Dim comma-separated numbers: "replace:14=0" gives user 14 a
// single item at 0 in 1-D, "replace:u3=0,1;1,0" two items in 2-D.
func ParseNeighbour(d *Dataset, spec string) (*Dataset, int, error) {
	const form = `use "replace:ID=x1,…,xd;x1,…,xd" (the user's new items)`
	op, rest, ok := strings.Cut(spec, ":")
	if !ok || op != "replace" {
		return nil, -1, format.Errorf("neighbour %q: %s", spec, form)
	}
	id, items, ok := strings.Cut(rest, "=")
	if !ok || id == "" || items == "" {
		return nil, -1, format.Errorf("neighbour %q: %s", spec, form)
	}
	i := d.Index(id)
	if i < 0 {
		return nil, -1, format.Errorf("neighbour %q: no user %q in the data (ids are the CSV's user column)", spec, id)
	}
	var pts []float64
	for k, item := range strings.Split(items, ";") {
		xs := strings.Split(item, ",")
		if len(xs) != d.Dim {
			return nil, -1, format.Errorf("neighbour %q: item %d has %d coordinates, the data has d = %d", spec, k+1, len(xs), d.Dim)
		}
		for _, x := range xs {
			v, err := strconv.ParseFloat(strings.TrimSpace(x), 64)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, -1, format.Errorf("neighbour %q: item %d: %q is not a finite number", spec, k+1, x)
			}
			pts = append(pts, v)
		}
	}
	nb, err := d.Replace(i, User{Points: pts})
	return nb, i, err
}
