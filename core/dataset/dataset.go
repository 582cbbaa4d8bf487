// Package dataset holds user-level data: n users, each with items in ℝ^d.
// It generates seeded datasets, applies the neighbour operations of user-level
// DP (replace one user, delete users), and reads and writes CSV and JSON with
// validation that names the offending line or field and the fix.
package dataset

import (
	"math"
	"strconv"
	"strings"

	"github.com/uldplab/uldp/core/format"
)

// MaxValues caps n·m·d, the number of coordinates a dataset may hold
// (80 MB of float64): far above any lesson, low enough that a mistyped n
// cannot exhaust a browser tab.
const MaxValues = 10_000_000

// User is one user's items, stored flat: item j is Points[j·d : (j+1)·d].
type User struct {
	ID     string
	Points []float64
}

// Dataset is n users with items in ℝ^Dim.
type Dataset struct {
	Dim   int
	Users []User
}

// N returns the number of users.
func (d *Dataset) N() int { return len(d.Users) }

// Items returns how many items user i holds.
func (d *Dataset) Items(i int) int { return len(d.Users[i].Points) / d.Dim }

// Item returns item j of user i (a view, not a copy).
func (d *Dataset) Item(i, j int) []float64 {
	return d.Users[i].Points[j*d.Dim : (j+1)*d.Dim]
}

// M returns the common number of items per user and true, or 0 and false if
// users hold different numbers of items.
func (d *Dataset) M() (int, bool) {
	if len(d.Users) == 0 {
		return 0, false
	}
	m := d.Items(0)
	for i := range d.Users {
		if d.Items(i) != m {
			return 0, false
		}
	}
	return m, true
}

// UserMean writes user i's item mean into dst (length Dim; allocated if nil).
func (d *Dataset) UserMean(i int, dst []float64) []float64 {
	if dst == nil {
		dst = make([]float64, d.Dim)
	}
	clear(dst)
	m := d.Items(i)
	for j := range m {
		for k, v := range d.Item(i, j) {
			dst[k] += v
		}
	}
	for k := range dst {
		dst[k] /= float64(m)
	}
	return dst
}

// ItemMean returns the mean of every item of every user (the minimiser of
// the mean squared loss), nil when there is none.
func (d *Dataset) ItemMean() []float64 {
	out, _ := d.ItemMeanWith(nil)
	return out
}

// ItemMeanWith is ItemMean calling pause, if not nil, before every block
// of 8,192 users: work done a slice at a time yields there (10⁶ items take
// milliseconds). An error from pause ends it with that error. Items are
// whole Dim-tuples (as Validate requires); a trailing partial one is not
// an item.
func (d *Dataset) ItemMeanWith(pause func() error) ([]float64, error) {
	if d.Dim < 1 {
		return nil, nil
	}
	out := make([]float64, d.Dim)
	items := 0
	for i, u := range d.Users {
		if pause != nil && i&(1<<13-1) == 0 {
			if err := pause(); err != nil {
				return nil, err
			}
		}
		// Coordinate by coordinate, in the items' order: the same sums
		// as one pass over every value.
		for j := 0; j+d.Dim <= len(u.Points); j += d.Dim {
			for k, v := range u.Points[j : j+d.Dim] {
				out[k] += v
			}
		}
		items += len(u.Points) / d.Dim
	}
	if items == 0 {
		return nil, nil
	}
	for k := range out {
		out[k] /= float64(items)
	}
	return out, nil
}

// Means returns every user's item mean.
func (d *Dataset) Means() [][]float64 {
	out := make([][]float64, d.N())
	for i := range out {
		out[i] = d.UserMean(i, nil)
	}
	return out
}

// Clone returns a deep copy. Its items sit in one array (each user's
// slice capped, so an append reallocates rather than overwrites the next
// user's): two allocations instead of one per user, which halves the
// time (10 ms instead of 22 for 10⁵ users of 20 numbers in WebAssembly)
// Values is users 1, 2, … with one item each, in one dimension: the
// lessons' and audits' users with a value each.
func Values(values []float64) *Dataset {
	d := &Dataset{Dim: 1, Users: make([]User, len(values))}
	for i, v := range values {
		d.Users[i] = User{ID: strconv.Itoa(i + 1), Points: []float64{v}}
	}
	return d
}

// and leaves one object for the collector to mark instead of 10⁵.
func (d *Dataset) Clone() *Dataset {
	total := 0
	for _, u := range d.Users {
		total += len(u.Points)
	}
	flat := make([]float64, total)
	c := &Dataset{Dim: d.Dim, Users: make([]User, len(d.Users))}
	for i, u := range d.Users {
		c.Users[i].ID = u.ID
		if n := copy(flat, u.Points); n > 0 {
			c.Users[i].Points, flat = flat[:n:n], flat[n:]
		}
	}
	return c
}

// Validate checks the dataset. Ragged users (different item counts) are an
// error unless allowRagged is set, for the algorithms that accept them.
func (d *Dataset) Validate(allowRagged bool) error {
	if d.Dim < 1 {
		return format.Errorf("dim = %d: items need at least one coordinate", d.Dim)
	}
	if len(d.Users) == 0 {
		return format.Errorf("no users: a dataset needs at least one user with at least one item")
	}
	total := 0
	seen := make(map[string]int, len(d.Users))
	for i, u := range d.Users {
		if u.ID == "" {
			return format.Errorf("user %d has an empty id: give every user a name or number", i+1)
		}
		if strings.TrimSpace(u.ID) != u.ID {
			return format.Errorf("user id %q has leading or trailing spaces: remove them (CSV files trim them)", u.ID)
		}
		if strings.HasPrefix(u.ID, "#") {
			return format.Errorf("user id %q starts with '#', which marks a comment in CSV files: rename the user", u.ID)
		}
		if prev, dup := seen[u.ID]; dup {
			return format.Errorf("user id %q is used by users %d and %d: ids must be unique", u.ID, prev+1, i+1)
		}
		seen[u.ID] = i
		if len(u.Points) == 0 {
			return format.Errorf("user %q has no items: every user needs at least one", u.ID)
		}
		if len(u.Points)%d.Dim != 0 {
			return format.Errorf("user %q has %d coordinates, not a multiple of dim %d: every item needs exactly %d", u.ID, len(u.Points), d.Dim, d.Dim)
		}
		for k, v := range u.Points {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return format.Errorf("user %q item %d x%d = %v: coordinates must be finite numbers", u.ID, k/d.Dim+1, k%d.Dim+1, v)
			}
		}
		total += len(u.Points)
		if total > MaxValues {
			return format.Errorf("dataset too large: more than %d coordinates (n·m·d): use fewer users, items or dimensions", MaxValues)
		}
	}
	if !allowRagged {
		if _, ok := d.M(); !ok {
			return format.Errorf("user %q has %d items but user %q has %d: this algorithm needs every user to hold the same number of items", d.Users[0].ID, d.Items(0), d.Users[d.firstRagged()].ID, d.Items(d.firstRagged()))
		}
	}
	return nil
}

func (d *Dataset) firstRagged() int {
	for i := range d.Users {
		if d.Items(i) != d.Items(0) {
			return i
		}
	}
	return 0
}

// Replace returns a copy with user i replaced by u: the user-level neighbour
// relation of both papers (user i may change all of their items).
func (d *Dataset) Replace(i int, u User) (*Dataset, error) {
	if i < 0 || i >= d.N() {
		return nil, format.Errorf("replace: user index %d out of range [0, %d)", i, d.N())
	}
	if len(u.Points) == 0 || len(u.Points)%d.Dim != 0 {
		return nil, format.Errorf("replace: %d coordinates is not a whole number of %d-dimensional items", len(u.Points), d.Dim)
	}
	c := d.Clone()
	if u.ID == "" {
		u.ID = d.Users[i].ID
	}
	c.Users[i] = User{ID: u.ID, Points: append([]float64(nil), u.Points...)}
	return c, nil
}

// Delete returns a copy without the users at the given indices (x₋S in
// Paper A's notation). Duplicate indices are an error.
func (d *Dataset) Delete(idx ...int) (*Dataset, error) {
	drop := make(map[int]bool, len(idx))
	for _, i := range idx {
		if i < 0 || i >= d.N() {
			return nil, format.Errorf("delete: user index %d out of range [0, %d)", i, d.N())
		}
		if drop[i] {
			return nil, format.Errorf("delete: user index %d given twice", i)
		}
		drop[i] = true
	}
	c := &Dataset{Dim: d.Dim, Users: make([]User, 0, d.N()-len(drop))}
	for i, u := range d.Users {
		if !drop[i] {
			c.Users = append(c.Users, User{ID: u.ID, Points: append([]float64(nil), u.Points...)})
		}
	}
	return c, nil
}

// Index returns the position of the user with the given id, or −1.
func (d *Dataset) Index(id string) int {
	for i, u := range d.Users {
		if u.ID == id {
			return i
		}
	}
	return -1
}

// NumberedIDs returns the ids the generators give n users: "1" … "n", as
// the papers number users. Every id is a piece of one string, so a
// collection marks one object where it would mark n — in a browser tab,
// most of a pause at 10⁵ users.
func NumberedIDs(n int) []string { return AppendNumberedIDs(nil, 0, n) }

// AppendNumberedIDs appends the ids of users from+1 … to, numbered as
// NumberedIDs numbers them and pieces of one string, to ids: work done a
// slice at a time makes them a block of users at a time (10⁵ ids take
// milliseconds).
func AppendNumberedIDs(ids []string, from, to int) []string {
	n := max(0, to-from)
	buf := make([]byte, 0, 7*n)
	ends := make([]int, n)
	for u := range n {
		buf = strconv.AppendInt(buf, int64(from+u+1), 10)
		ends[u] = len(buf)
	}
	all, start := string(buf), 0
	for _, end := range ends {
		ids, start = append(ids, all[start:end]), end
	}
	return ids
}
