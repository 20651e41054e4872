package view

import (
	"fmt"
	"html/template"
	"io"

	"github.com/nqueens/configurator/frontend"
)

// Templates are the page's templates (frontend/templates), which render
// the view models of this package.
type Templates struct{ t *template.Template }

// funcs are the helpers the templates use.
var funcs = template.FuncMap{
	"heatSteps": func() []int { return []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9} },
}

// ParseTemplates parses the embedded templates.
func ParseTemplates() (*Templates, error) {
	t, err := template.New("").Funcs(funcs).ParseFS(frontend.Files, "templates/*.html")
	if err != nil {
		return nil, fmt.Errorf("templates: %w", err)
	}
	return &Templates{t}, nil
}

// Execute renders the template name of data into w.
func (t *Templates) Execute(w io.Writer, name string, data any) error {
	return t.t.ExecuteTemplate(w, name, data)
}
