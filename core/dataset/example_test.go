package dataset_test

import (
	"fmt"
	"os"

	"github.com/uldplab/uldp/core/dataset"
	"github.com/uldplab/uldp/core/rng"
)

func ExampleGenerate() {
	d, err := dataset.Generate(dataset.Spec{Kind: dataset.Outliers, N: 4, M: 2, D: 1, Outliers: 1, Spread: 0.1}, rng.New(1))
	if err != nil {
		fmt.Println(err)
		return
	}
	for i, mu := range d.Means() {
		fmt.Printf("user %s: mean %+.2f over %d items\n", d.Users[i].ID, mu[0], d.Items(i))
	}
	_ = dataset.WriteCSV(os.Stdout, &dataset.Dataset{Dim: 1, Users: d.Users[:1]})
	// Output:
	// user 1: mean +0.07 over 2 items
	// user 2: mean -0.06 over 2 items
	// user 3: mean +0.02 over 2 items
	// user 4: mean +10.10 over 2 items
	// user,x1
	// 1,0.11329224325893412
	// 1,0.02636402484002516
}
