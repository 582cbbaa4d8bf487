package figure

import "fmt"

func ExampleSubscript() {
	fmt.Println("θ̂" + Subscript(2) + ", x" + Subscript(10))
	// Output: θ̂₂, x₁₀
}
