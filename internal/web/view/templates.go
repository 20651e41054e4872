package view

import (
	"fmt"
	"html/template"

	"github.com/nqueens/configurator/frontend"
)

// funcs are the helpers the templates use.
var funcs = template.FuncMap{
	"heatSteps": func() []int { return []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9} },
}

// ParseTemplates parses the page's templates (frontend/templates), which
// render the view models of this package.
func ParseTemplates() (*template.Template, error) {
	t, err := template.New("").Funcs(funcs).ParseFS(frontend.Files, "templates/*.html")
	if err != nil {
		return nil, fmt.Errorf("templates: %w", err)
	}
	return t, nil
}
