package viz

import "testing"

func TestLeast(t *testing.T) {
	for _, tc := range []struct {
		lo, hi, from, want int
		ok                 bool
	}{
		{3, 500, 348, 348, true},
		{3, 500, 3, 3, true},
		{3, 500, 500, 500, true},
		{3, 500, 501, 0, false},
		{10, 5, 0, 0, false},
		{7, 7, 7, 7, true},
	} {
		asked := 0
		got, ok := Least(tc.lo, tc.hi, func(x int) bool {
			if x < tc.lo || x > tc.hi {
				t.Fatalf("Least(%d, %d) asked about %d", tc.lo, tc.hi, x)
			}
			asked++
			return x >= tc.from
		})
		if got != tc.want || ok != tc.ok {
			t.Errorf("Least(%d, %d) with ok from %d = %d, %v; want %d, %v", tc.lo, tc.hi, tc.from, got, ok, tc.want, tc.ok)
		}
		if asked > 11 {
			t.Errorf("Least(%d, %d) asked %d times: not a bisection", tc.lo, tc.hi, asked)
		}
	}
}
