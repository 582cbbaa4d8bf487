package format_test

import (
	"errors"
	"fmt"

	"github.com/uldplab/uldp/core/format"
)

func ExampleSprintf() {
	fmt.Println(format.Sprintf("step %d of %d: score %.4g against v = %.3g", 3, 12, 181.25, 190.0))
	fmt.Println(format.Sprintf("%-6s|%6.2f|%+d", "eps", 0.5, 7))
	// Output:
	// step 3 of 12: score 181.2 against v = 190
	// eps   |  0.50|+7
}

func ExampleErrorf() {
	errNoUsers := errors.New("no users")
	err := format.Errorf("phase %d: %w", 2, errNoUsers)
	fmt.Println(err)
	fmt.Println(errors.Is(err, errNoUsers))
	// Output:
	// phase 2: no users
	// true
}
