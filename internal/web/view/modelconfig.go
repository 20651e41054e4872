package view

import (
	"net/url"

	"github.com/nqueens/configurator/configurator/configfile"
	"github.com/nqueens/configurator/configurator/feature"
	"github.com/nqueens/configurator/internal/web/modelstate"
)

// formatLabels name the configuration formats for people.
var formatLabels = map[configfile.Format]string{
	configfile.FeatureIDE: "FeatureIDE XML", configfile.Kconfig: "Kconfig", configfile.CSV: "CSV", configfile.JSON: "JSON",
}

// ConfigFiles are the model page's configuration files: the downloads of
// the decisions in each format that fits the model (GET
// /model-configuration), and where a file is read back (POST
// /api/v1/configuration/read), for the page's script.
type ConfigFiles struct {
	Downloads []Link
	Read      string
	// Samples are the downloads of samples for testing, as CSV (GET
	// /model-sample): a pairwise covering one and some drawn uniformly.
	Samples []Link
}

// configFiles are the configuration files of the state's decisions on m.
func configFiles(st modelstate.State, m *feature.Model) *ConfigFiles {
	q := modelstate.State{Model: st.Model, Backend: st.Backend, Select: st.Select, Deselect: st.Deselect}.Query()
	v := &ConfigFiles{}
	for _, f := range configfile.Formats {
		if !f.Fits(m) {
			continue
		}
		v.Downloads = append(v.Downloads, Link{Label: formatLabels[f], Href: "/model-configuration?" + q + "&format=" + string(f),
			Title: "Your decisions and what they force, as a " + formatLabels[f] + " file"})
	}
	v.Samples = []Link{
		{Label: "Pairwise", Href: "/model-sample?" + q + "&t=2", Title: "Configurations that together take every valid pair of values of two features, as CSV"},
		{Label: "10 at random", Href: "/model-sample?" + q + "&uniform=10", Title: "Ten configurations drawn uniformly (a backend that counts them: the BDD), as CSV"},
	}
	read := url.Values{"model": {st.Model}}
	if st.Backend != "" {
		read.Set("backend", st.Backend)
	}
	v.Read = "/api/v1/configuration/read?" + read.Encode()
	return v
}
