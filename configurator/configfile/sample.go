package configfile

import (
	"encoding/csv"
	"io"
	"strconv"

	"github.com/nqueens/configurator/configurator/feature"
)

// WriteSample writes a sample of configurations of m as CSV, the layout
// FeatureIDE and the sampling tools share: a header row "configuration"
// and the features' names, then a row per configuration, its number (from
// 1) and 1 for each feature it selects, 0 for the others.
func WriteSample(w io.Writer, m *feature.Model, configs [][]bool) error {
	cw := csv.NewWriter(w)
	row := make([]string, len(m.Features)+1)
	row[0] = "configuration"
	for f, ft := range m.Features {
		row[f+1] = ft.Name
	}
	if err := cw.Write(row); err != nil {
		return err
	}
	for i, c := range configs {
		row[0] = strconv.Itoa(i + 1)
		for f, on := range c {
			row[f+1] = "0"
			if on {
				row[f+1] = "1"
			}
		}
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
