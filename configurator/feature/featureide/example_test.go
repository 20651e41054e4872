package featureide_test

import (
	"fmt"
	"os"

	"github.com/nqueens/configurator/configurator/feature/featureide"
)

func ExampleParse() {
	m, err := featureide.Parse([]byte(`<featureModel>
	<struct>
		<and abstract="true" mandatory="true" name="Car">
			<feature mandatory="true" name="Body"/>
			<alt name="Engine">
				<feature name="Petrol"/>
				<feature name="Electric"/>
			</alt>
		</and>
	</struct>
	<constraints>
		<rule><imp><var>Electric</var><not><var>Body</var></not></imp></rule>
	</constraints>
</featureModel>`))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, f := range m.Features {
		fmt.Println(f.Name, f.Pos)
	}
	fmt.Println(m.Describe(m.CNF().Origin(m.CNF().Len() - 1)))
	_, err = featureide.Parse([]byte("<featureModel>\n  <struct>\n    <feature name=\"A\">\n  </struct>\n</featureModel>"))
	fmt.Println(err)
	// Output:
	// Car 3:3
	// Body 4:4
	// Engine 5:4
	// Petrol 6:5
	// Electric 7:5
	// constraint at 12:3: Electric => !Body
	// 4:12: expected well-formed XML, found an error: element <feature> closed by </struct>
}

func ExampleWrite() {
	m, err := featureide.Parse([]byte(`<feature_model name="Phone">
<feature_tree>
:r Phone(_r)
	:m Screen(_r_1)
		:g [1,1]
			: Basic(_r_1_2)
			: Color(_r_1_3)
	:o GPS(_r_2)
</feature_tree>
<constraints>
C1: ~_r_2 or ~_r_1_2
</constraints>
</feature_model>`))
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := featureide.Write(os.Stdout, m); err != nil {
		fmt.Println(err)
	}
	// Output:
	// <?xml version="1.0" encoding="UTF-8" standalone="no"?>
	// <featureModel>
	// 	<struct>
	// 		<and mandatory="true" name="Phone">
	// 			<alt mandatory="true" name="Screen">
	// 				<feature name="Basic"/>
	// 				<feature name="Color"/>
	// 			</alt>
	// 			<feature name="GPS"/>
	// 		</and>
	// 	</struct>
	// 	<constraints>
	// 		<rule>
	// 			<disj>
	// 				<not>
	// 					<var>GPS</var>
	// 				</not>
	// 				<not>
	// 					<var>Basic</var>
	// 				</not>
	// 			</disj>
	// 		</rule>
	// 	</constraints>
	// </featureModel>
}
