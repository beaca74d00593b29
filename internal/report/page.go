package report

import (
	_ "embed"
	"html/template"
	"io"
	"strconv"
)

//go:embed page.html.tmpl
var pageShell string

// Page is an HTML report: the shell every report shares (page.html.tmpl: doctype, title,
// style) around the "body" template that body defines. The data given to Execute must have
// a Title field or method. html/template escapes what the data holds; a Chart is drawn with
// the "svg" function ({{svg .Chart}}), whose output is trusted markup.
//
// Functions: pct (Pct), label (Label), mean, median, mul, sub, div (a * b, a - b, a / b), num (every digit of a float, no
// exponent), svg.
func Page(body string) (*template.Template, error) {
	t, err := template.New("page").Funcs(Funcs()).Parse(pageShell)
	if err != nil {
		return nil, err
	}
	return t.Parse(body)
}

// WritePage executes Page(body) with data into w.
func WritePage(w io.Writer, body string, data any) error {
	t, err := Page(body)
	if err != nil {
		return err
	}
	return t.ExecuteTemplate(w, "page", data)
}

// Funcs returns the template functions of Page, for text/template as much as html/template.
func Funcs() template.FuncMap {
	return template.FuncMap{
		"pct":    Pct,
		"label":  Label,
		"mean":   Mean,
		"median": Median,
		"mul":    func(a, b float64) float64 { return a * b },
		"sub":    func(a, b float64) float64 { return a - b },
		"div":    func(a, b float64) float64 { return a / b },
		"num":    func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) },
		"svg":    func(c Chart) template.HTML { return template.HTML(c.SVG()) }, // SVG escapes every string it draws
	}
}
