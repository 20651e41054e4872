package feature_test

import (
	"fmt"

	"github.com/nqueens/configurator/configurator/feature"
	"github.com/nqueens/configurator/configurator/feature/uvl"
)

// A model's CNF says for every clause what it stands for, in the model's
// words.
func ExampleModel_CNF() {
	m, err := uvl.Parse([]byte(`features
	Linux
		optional
			MMU
			NOMMU
constraints
	MMU => !NOMMU
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	c := m.CNF()
	for i := range c.Len() {
		fmt.Println(c.Clause(i), m.Describe(c.Origin(i)))
	}
	// Output:
	// [1] "Linux" is the root: it is always selected
	// [-2 1] "MMU" needs its parent "Linux"
	// [-3 1] "NOMMU" needs its parent "Linux"
	// [-2 -3] constraint at 7:2: MMU => !NOMMU
}

// Valid decides a configuration from the tree and the constraints
// themselves.
func ExampleModel_Valid() {
	fs := []feature.Feature{
		{Name: "Car", Parent: -1, Group: -1},
		{Name: "Electric", Parent: 0, Group: 0},
		{Name: "Petrol", Parent: 0, Group: 0},
	}
	gs := []feature.Group{{Kind: feature.GroupAlternative, Parent: 0, Children: []int{1, 2}}}
	m, err := feature.New(feature.Model{Name: "car", Features: fs, Groups: gs, Root: 0})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(m.Valid([]bool{true, true, false}), m.Valid([]bool{true, true, true}))
	// Output: true false
}
