package report

import (
	"encoding/xml"
	"strings"
	"testing"
)

func TestPageEscapes(t *testing.T) {
	body := `{{define "body"}}<h1>{{.Title}}</h1><p>{{.Note}} {{pct .Share 1}} {{label .Bytes "B"}}</p>{{svg .Chart}}{{end}}`
	data := struct {
		Title, Note  string
		Share, Bytes float64
		Chart        Chart
	}{hostile, hostile, 0.256, 65700, Chart{Title: hostile, Series: []Series{{Name: "a", X: []float64{1, 2}, Y: []float64{1, 2}}}}}
	var b strings.Builder
	if err := WritePage(&b, body, data); err != nil {
		t.Fatal(err)
	}
	s := b.String()
	if !strings.HasPrefix(s, "<!DOCTYPE html>") || !strings.HasSuffix(s, "</html>\n") {
		t.Errorf("not a whole page:\n%s", s)
	}
	if strings.Contains(s, "<script>") {
		t.Errorf("a hostile string became markup:\n%s", s)
	}
	if !strings.Contains(s, "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt; &amp; &#39;q&#39;") {
		t.Errorf("the title is not escaped as text:\n%s", s)
	}
	if !strings.Contains(s, "25.6% 65.7k B") {
		t.Errorf("functions pct and label:\n%s", s)
	}
	// The chart is inserted as markup, and stays well-formed XML.
	i, j := strings.Index(s, "<svg"), strings.Index(s, "</svg>")
	if i < 0 || j < i {
		t.Fatalf("no svg element:\n%s", s)
	}
	if err := xml.Unmarshal([]byte(s[i:j+len("</svg>")]), new(struct{})); err != nil {
		t.Errorf("the page's svg: %v", err)
	}
}
