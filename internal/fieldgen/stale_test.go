package fieldgen

import (
	"bufio"
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// repoRoot is the directory of go.work above the test's.
func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.work")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.work above the test's directory")
		}
		dir = parent
	}
}

// snapgenDirs returns the directories of the repository with a go:generate line running snapgen.
func snapgenDirs(t *testing.T, root string) []string {
	t.Helper()
	var dirs []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); p != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		sc := bufio.NewScanner(bytes.NewReader(src))
		for sc.Scan() {
			if l := sc.Text(); strings.HasPrefix(l, "//go:generate ") && strings.Contains(l, "snapgen") {
				if dir := filepath.Dir(p); len(dirs) == 0 || dirs[len(dirs)-1] != dir {
					dirs = append(dirs, dir)
				}
				break
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return dirs
}

// TestGeneratedUpToDate regenerates, in memory, every package of the repository whose
// generate directive runs snapgen, and fails naming the generated file that differs from its
// declarations (a tag changed without go generate).
func TestGeneratedUpToDate(t *testing.T) {
	root := repoRoot(t)
	dirs := snapgenDirs(t, root)
	for _, want := range []string{"internal/refgame", "examples/guide", "internal/fieldgen/declaredtest"} {
		found := false
		for _, d := range dirs {
			found = found || d == filepath.Join(root, want)
		}
		if !found {
			t.Errorf("%s has no go:generate line running snapgen", want)
		}
	}
	for _, dir := range dirs {
		if err := Check(dir); err != nil {
			t.Error(err)
		}
	}
}

// TestStaleDetected: on a copy of examples/guide whose tag changed without regenerating, the
// check fails and names the generated file; the unchanged copy passes.
func TestStaleDetected(t *testing.T) {
	src := filepath.Join(repoRoot(t), "examples", "guide")
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".go") {
			b, err := os.ReadFile(filepath.Join(src, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(tmp, e.Name()), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := check(tmp, src); err != nil {
		t.Fatalf("the unchanged copy: %v", err)
	}
	name := filepath.Join(tmp, "guide.go")
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	changed := strings.Replace(string(b), "`snap:\"bits=6\"`", "`snap:\"bits=7\"`", 1)
	if changed == string(b) {
		t.Fatal("guide.go has no `snap:\"bits=6\"` tag to change")
	}
	if err := os.WriteFile(name, []byte(changed), 0o644); err != nil {
		t.Fatal(err)
	}
	err = check(tmp, src)
	if err == nil || !strings.Contains(err.Error(), filepath.Join(tmp, OutputName)+" is stale") {
		t.Fatalf("a changed tag: %v, want %s named stale", err, OutputName)
	}
}
