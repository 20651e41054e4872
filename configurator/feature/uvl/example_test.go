package uvl_test

import (
	"errors"
	"fmt"
	"testing/fstest"

	"github.com/nqueens/configurator/configurator/feature"
	"github.com/nqueens/configurator/configurator/feature/uvl"
)

func ExampleParse() {
	m, err := uvl.Parse([]byte(`namespace Bikes
features
	Bike {abstract}
		mandatory
			Frame
		optional
			Gears
				alternative
					Hub
					Derailleur
			Light
constraints
	Hub => Light
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(m.Name, len(m.Features), "features,", len(m.Constraints), "constraint")
	for _, f := range m.Features[1:] {
		fmt.Printf("%s in the %s group of %s\n", f.Name, m.Groups[f.Group].Kind, m.Features[f.Parent].Name)
	}

	_, err = uvl.Parse([]byte("features\n\tShop\n\t\toptional\n\t\t\tInteger price\n"))
	fmt.Println(err, errors.Is(err, feature.ErrUnsupported))
	// Output:
	// Bikes 6 features, 1 constraint
	// Frame in the mandatory group of Bike
	// Gears in the optional group of Bike
	// Hub in the alternative group of Gears
	// Derailleur in the alternative group of Gears
	// Light in the optional group of Bike
	// 4:4: expected a Boolean feature, found a feature of type Integer true
}

func ExampleLoad() {
	files := fstest.MapFS{
		"sandwich.uvl":   {Data: []byte("imports\n\tsub.Sauces as S\nfeatures\n\tSandwich\n\t\toptional\n\t\t\tS.Sauce\n\t\t\tCheese\nconstraints\n\tS.Ketchup => Cheese\n")},
		"sub/Sauces.uvl": {Data: []byte("features\n\tSauce\n\t\talternative\n\t\t\tKetchup\n\t\t\tMustard\n")},
	}
	m, err := uvl.Load(files, "sandwich.uvl")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, f := range m.Features {
		fmt.Println(f.Name, f.Pos)
	}
	// Output:
	// Sandwich 4:2
	// S.Sauce sub/Sauces.uvl:2:2
	// S.Ketchup sub/Sauces.uvl:4:4
	// S.Mustard sub/Sauces.uvl:5:4
	// Cheese 7:4
}
