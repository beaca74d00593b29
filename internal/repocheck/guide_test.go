package repocheck

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// guideSources are the files docs/GUIDE.md quotes, each compiled by the
// test suite: the guide's game and its netsim example, the messages that
// grow it, its examples (the real-UDP one included), and the window's
// example in the play module,
// which needs the build tag play (.ci/run vets ./play/... with -tags
// play; the library module's tests cannot link Ebitengine).
var guideSources = []string{
	"examples/guide/guide.go",
	"examples/guide/guide_test.go",
	"examples/guide/messages.go",
	"examples/guide/example_test.go",
	"examples/guide/udp_example_test.go",
	"examples/guide/matches_example_test.go",
	"play/example_guide_test.go",
}

// guideProgram are the files of the guide's netsim program: the game and
// the example that runs it over the link simulator (Example_netsim).
// Neither the generated codecs (snap_gen.go) nor the later steps that
// grow the game (messages.go, the UDP and window examples) are part of
// it: guide.go and guide_test.go use nothing they declare.
var guideProgram = []string{"examples/guide/guide.go", "examples/guide/guide_test.go"}

// TestGuideCodeCompiled: every ```go block of docs/GUIDE.md is a run of
// consecutive lines of one of guideSources, at any indentation, so the
// code a reader copies is code the tests compile. A block found nowhere
// fails with its line number in docs/GUIDE.md.
func TestGuideCodeCompiled(t *testing.T) {
	var sources [][]string
	for _, name := range guideSources {
		b, err := os.ReadFile(filepath.Join(repoRoot, name))
		if err != nil {
			t.Fatal(err)
		}
		sources = append(sources, strings.Split(string(b), "\n"))
	}
	guide, err := os.ReadFile(filepath.Join(repoRoot, "docs", "GUIDE.md"))
	if err != nil {
		t.Fatal(err)
	}
	blocks, err := goBlocks(string(guide))
	if err != nil {
		t.Fatal(err)
	}
	if len(blocks) < 10 {
		t.Fatalf("docs/GUIDE.md has %d Go blocks; the tutorial has more", len(blocks))
	}
	for _, b := range blocks {
		found := false
		for _, src := range sources {
			found = found || quotes(src, b.lines)
		}
		if !found {
			t.Errorf("docs/GUIDE.md:%d: the Go block is not a run of lines of %s", b.line, strings.Join(guideSources, ", "))
		}
	}
}

// codeBlock is a fenced ```go block: its first line's number in the file
// (the fence's) and its lines.
type codeBlock struct {
	line  int
	lines []string
}

// goBlocks returns the ```go blocks of a Markdown text; an unclosed fence
// is an error.
func goBlocks(md string) ([]codeBlock, error) {
	var blocks []codeBlock
	var cur *codeBlock
	for i, l := range strings.Split(md, "\n") {
		switch {
		case cur == nil && strings.TrimSpace(l) == "```go":
			cur = &codeBlock{line: i + 1}
		case cur != nil && strings.TrimSpace(l) == "```":
			blocks = append(blocks, *cur)
			cur = nil
		case cur != nil:
			cur.lines = append(cur.lines, l)
		}
	}
	if cur != nil {
		return nil, fmt.Errorf("line %d: a ```go block without its closing fence", cur.line)
	}
	return blocks, nil
}

// quotes reports whether block is a run of consecutive lines of src, each
// with the same extra indentation (the block is dedented as far as its
// first line). An empty block quotes nothing.
func quotes(src, block []string) bool {
	if len(block) == 0 || strings.TrimSpace(block[0]) == "" {
		return false
	}
	for i := 0; i+len(block) <= len(src); i++ {
		indent, ok := strings.CutSuffix(src[i], block[0])
		if !ok || strings.TrimLeft(indent, "\t ") != "" {
			continue
		}
		match := true
		for k, l := range block[1:] {
			s := src[i+1+k]
			match = match && (s == indent+l || strings.TrimSpace(l) == "" && strings.TrimSpace(s) == "")
		}
		if match {
			return true
		}
	}
	return false
}

func TestQuotes(t *testing.T) {
	src := []string{"func f() {", "\tif x {", "\t\treturn", "\t}", "", "\ty()", "}"}
	for _, c := range []struct {
		block []string
		want  bool
	}{
		{[]string{"func f() {", "\tif x {"}, true},
		{[]string{"if x {", "\treturn", "}", "", "y()"}, true}, // dedented one tab
		{[]string{"if x {", "return"}, false},                  // indentation not kept
		{[]string{"if x {", "\treturn", "\t}"}, false},
		{[]string{"y()", "}"}, false}, // "}" is not indented as "y()" is
		{[]string{"z()"}, false},
		{nil, false},
	} {
		if got := quotes(src, c.block); got != c.want {
			t.Errorf("quotes(%q) = %v, want %v", c.block, got, c.want)
		}
	}
	if _, err := goBlocks("text\n```go\nx\n"); err == nil {
		t.Error("an unclosed block: no error")
	}
}

// TestGuideLines: the size of the guide's netsim program, in lines of
// code (neither blank nor a comment) of guideProgram, is the figure
// docs/GUIDE.md and README.md quote.
func TestGuideLines(t *testing.T) {
	lines := 0
	for _, name := range guideProgram {
		b, err := os.ReadFile(filepath.Join(repoRoot, name))
		if err != nil {
			t.Fatal(err)
		}
		lines += codeLines(string(b))
	}
	for _, q := range []struct{ file, re string }{
		{"docs/GUIDE.md", `the test that runs it over the link simulator, is (\d+) lines of code`},
		{"README.md", `a game of tag over the link simulator in (\d+) lines`},
	} {
		b, err := os.ReadFile(filepath.Join(repoRoot, q.file))
		if err != nil {
			t.Fatal(err)
		}
		m := regexp.MustCompile(q.re).FindStringSubmatch(strings.Join(strings.Fields(string(b)), " "))
		if m == nil {
			t.Errorf("%s: the guide's size (%s) not found", q.file, q.re)
			continue
		}
		if n, _ := strconv.Atoi(m[1]); n != lines {
			t.Errorf("%s says the guide's netsim program is %d lines of code; %s count %d", q.file, n, strings.Join(guideProgram, " and "), lines)
		}
	}
}

// codeLines counts the lines of Go source that are neither blank nor a
// // comment (the guide's files have no /* */ comments).
func codeLines(src string) int {
	n := 0
	for _, l := range strings.Split(src, "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "//") {
			n++
		}
	}
	return n
}
