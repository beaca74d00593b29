package repocheck

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestExamplesUsePublicPackages: the examples (examples/...) and the code
// of docs/GUIDE.md are what a game developer copies, so they import only
// public packages: a game built on snapwire can import nothing under
// internal/.
func TestExamplesUsePublicPackages(t *testing.T) {
	const module = "github.com/snapwire/snapwire/"
	checked := 0
	err := filepath.WalkDir(filepath.Join(repoRoot, "examples"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") {
			return err
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		checked++
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if strings.HasPrefix(path, module) && strings.Contains(path+"/", "/internal/") {
				t.Errorf("%s imports %s: an example uses only public packages", p, path)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked == 0 {
		t.Fatal("no example files found")
	}
	guide, err := os.ReadFile(filepath.Join(repoRoot, "docs", "GUIDE.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range regexp.MustCompile(`"(github\.com/snapwire/snapwire/[^"]*)"`).FindAllStringSubmatch(string(guide), -1) {
		if strings.Contains(m[1]+"/", "/internal/") {
			t.Errorf("docs/GUIDE.md imports %s: the guide uses only public packages", m[1])
		}
	}
}
