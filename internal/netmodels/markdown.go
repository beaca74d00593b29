package netmodels

import (
	_ "embed"
	"strings"
	"text/template"

	"github.com/snapwire/snapwire/internal/report"
)

// markdown.md.tmpl holds the section's prose and tables.
//
//go:embed markdown.md.tmpl
var markdownSource string

var markdownTemplate = template.Must(template.New("netmodels").Funcs(report.Funcs()).Parse(markdownSource))

// Markdown renders r as a section of BENCHMARKS.md: the table of every
// row, one sentence per claim of the paper saying whether the rows bear it
// out (chosen by comparing the figures, Claims), and the §8 ideas' figures
// before and after.
func Markdown(r *Result) string {
	return prose("markdown", r)
}

// prose executes the template name of markdown.md.tmpl with data. The templates are this
// package's own, executed on data of the types they are written for: an error is a bug in
// them, and panics as template.Must does.
func prose(name string, data any) string {
	var b strings.Builder
	if err := markdownTemplate.ExecuteTemplate(&b, name, data); err != nil {
		panic("netmodels: " + err.Error())
	}
	return b.String()
}
