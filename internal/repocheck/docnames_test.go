package repocheck

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
)

// module is the import path of the library's module; the tools' module is
// module + "/cmd", in the directory cmd/ of the same tree.
const module = "github.com/snapwire/snapwire"

// repoRoot is the root of the repository (both modules), seen from this
// package's directory, where "go test" runs the test.
const repoRoot = "../.."

// TestDocNames fails on a comment of a Go file (test files included, both
// modules) or on README.md, BENCHMARKS.md or docs/*.md when it names a
// package or file of this repository that does not exist: a stale name left
// by a move (issue 23: examples/arena, proto, q3/msg without internal/) or a
// path outside the repository; and on a package doc comment ("Package foo
// ...") that names another package than its file's package clause. What
// counts as a name, and what is allowed, is docChecker's doc.
func TestDocNames(t *testing.T) {
	c := newDocChecker(t)
	var found int
	for _, f := range c.docFiles(t) {
		if f.docName != "" && f.docName != f.pkgName {
			t.Errorf("%s:%d: the package doc says package %s, the file is package %s", f.name, f.docLine, f.docName, f.pkgName)
			found++
		}
		for _, p := range c.check(f.name, f.text) {
			t.Errorf("%s:%d: %s", f.name, p.line, p.msg)
			found++
		}
	}
	if found > 0 {
		t.Logf("%d stale names; a path is relative to the repository root, its Go module's root (cmd/) or a directory that holds the file", found)
	}
}

// TestDocNamesCatches shows the check on the stale names issue 23 lists,
// each in the file it was found in, and on names that must pass.
func TestDocNamesCatches(t *testing.T) {
	c := newDocChecker(t)
	for _, tc := range []struct {
		file, text string
		stale      bool
	}{
		// Issue 23's stale docs.
		{"server/runner.go", "browsers (internal/webrtc), each peer given a synthetic address", true},
		{"internal/oaclient/oaclient.go", "way /work/shared/q3-captures/make-captures.sh ran it", true},
		{"README.md", "The reference game (`examples/arena`)", true},
		{"README.md", "the match harness internal/demo runs", true},
		{"README.md", "| `proto` | the session messages |", false}, // a word in backquotes is not a path
		{"README.md", "package proto holds the session messages", true},
		{"README.md", "Packages `proto`, `snapshot`", true},
		{"docs/ARCHITECTURE.md", "the files under proto/ hold", true},
		{"cmd/snapwire/master.go", "a Quake 3 master server (package q3/master) on UDP", true},
		{"README.md", "| `q3/...` | the Quake 3 protocol |", true},
		{"docs/PROTOCOL.md", "(q3/query's limiter, a bounded table)", true},
		{"README.md", "| `internal/play`, `internal/play/window` | `snapwire play`", true},
		{"README.md", "`go test ./internal/play` plays 20 s", true},
		{"README.md", "the models harness (internal/models)", true},
		{"README.md", "the bit writer (internal/bitmsg/writer.go)", true},
		{"README.md", "the bit writer (bitmsg/writer.go)", false},
		{"README.md", "see github.com/snapwire/snapwire/proto for the messages", true},
		{"README.md", "see docs/NOPE.md", true},
		{"server/server.go", "(see server/runner.go:35)", false},
		{"server/server.go", "(see server/runnr.go:35)", true},

		// Names that exist or are not ours.
		{"cmd/snapwire/web.go", "The page (internal/web) runs the play client", false},
		{"internal/q3/oob/connect68_test.go", "the connect packet of q3/testdata/session-68.pcap.", false},
		{"README.md", "`go test ./... ./cmd/...` and `go run ./cmd/snapwire demo`", false},
		{"README.md", "package `internal/acceptance`, package server and package net/http", false},
		{"README.md", "github.com/pion/webrtc/v4 and golang.org/x/crypto/chacha20poly1305", false},
		{"README.md", "https://github.com/ioquake/ioq3/blob/main/code/qcommon/msg.c", false},
		{"README.md", "Go's compress/flate/huffman_bit_writer.go and ioq3's code/qcommon/net_chan.c", false},
		{"README.md", "the shared ../shared/DESIGN.md and 10 kbit/s up, client/server", false},
		{"docs/GUIDE.md", "[`examples/guide`](../examples/guide)", false},
	} {
		got := c.check(tc.file, tc.text)
		if stale := len(got) > 0; stale != tc.stale {
			t.Errorf("%s: %q: stale %v, want %v (%v)", tc.file, tc.text, stale, tc.stale, got)
		}
	}
}

// docChecker knows the repository's directories and the packages a doc may
// name. It checks three kinds of mention:
//
//   - an import path of this repository (github.com/snapwire/snapwire/...):
//     its directory must exist;
//   - a path with a slash whose first element is the name of one of the
//     repository's directories, or that ends with "/", ".go" or ".md"
//     (internal/foo, `cmd/snapwire/x.go`, docs/X.md, proto/,
//     server/runner.go:35): it must exist relative to the
//     repository root, to the root of the Go module the file belongs to, or
//     to a directory that holds the file ("q3/testdata" in internal/q3/oob);
//     "./x" is relative to those roots too (a go command's package pattern),
//     "../x" to the file's directory; "/..." or "/…" after a package means
//     its subpackages, a line number after a file (":35") and a Go
//     identifier after a package (".MaxMessage") are left out;
//   - "package foo" (or "Package foo", or with foo in backquotes): foo must
//     be the name or the path (from a root, as above) of one of our
//     packages, or a package of the standard library or of a module we
//     require; a following English word ("package doc comment") is allowed
//     by the list proseAfterPackage.
//
// Not checked: URLs; import paths of other modules; paths of standard
// packages and their files (compress/flate/huffman_bit_writer.go); other
// words whose first element names none of our directories and that end
// neither in "/" nor in ".go" or ".md" (ioq3's code/qcommon/msg.c,
// kbit/s); words whose every element names a directory at the root
// ("client/server" reads as "client or server"); ../shared/ (the project's
// shared docs beside the repository); absolute paths, except those on a
// developer's machine (/work/, /home/, /Users/, /root/), which are not part
// of the repository.
type docChecker struct {
	dirs      map[string]bool // every directory of the repository, slash-separated, relative to the root
	dirNames  map[string]bool // their last elements
	ourNames  map[string]bool // package names (with _test) and import paths of our packages
	otherPkgs map[string]bool // names and import paths of standard and required packages
}

var (
	checkerOnce sync.Once
	checker     *docChecker
	checkerErr  error
)

func newDocChecker(t *testing.T) *docChecker {
	t.Helper()
	checkerOnce.Do(func() { checker, checkerErr = loadDocChecker() })
	if checkerErr != nil {
		t.Fatal(checkerErr)
	}
	return checker
}

// skipDir reports whether a directory is not part of the source tree the
// docs talk about: VCS data, dependencies npm installs, build output.
func skipDir(name string) bool {
	return strings.HasPrefix(name, ".") || name == "node_modules"
}

func loadDocChecker() (*docChecker, error) {
	c := &docChecker{dirs: map[string]bool{"": true}, dirNames: map[string]bool{},
		ourNames: map[string]bool{}, otherPkgs: map[string]bool{}}
	err := filepath.WalkDir(repoRoot, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(repoRoot, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel != "." && skipDir(d.Name()) {
				return filepath.SkipDir
			}
			if rel != "." {
				c.dirs[rel] = true
				c.dirNames[d.Name()] = true
			}
			return nil
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	// Our packages (every build tag's: -tags play, and GOOS=js for the
	// browser's), the packages of other modules they and their tests import
	// (named by the last element of the path, without a major version),
	// and the standard library.
	for _, env := range [][]string{nil, {"GOOS=js", "GOARCH=wasm"}} {
		pkgs, err := goList(env, "-tags", "play", "./...", "./cmd/...", "./play/...")
		if err != nil {
			return nil, err
		}
		for _, p := range pkgs {
			c.ourNames[p.Name] = true
			c.ourNames[p.Name+"_test"] = true
			c.ourNames[strings.TrimPrefix(p.ImportPath, module+"/")] = true
			for _, imp := range slices.Concat(p.Imports, p.TestImports, p.XTestImports) {
				if first, _, _ := strings.Cut(imp, "/"); strings.Contains(first, ".") && !strings.HasPrefix(imp, module+"/") {
					c.otherPkgs[imp] = true
					c.otherPkgs[path.Base(majorVersionRE.ReplaceAllString(imp, ""))] = true
				}
			}
		}
	}
	std, err := goList(nil, "std")
	if err != nil {
		return nil, err
	}
	for _, p := range std {
		c.otherPkgs[p.Name] = true
		c.otherPkgs[p.ImportPath] = true
	}
	return c, nil
}

// listedPackage is what docChecker and TestArchitecture read of "go list
// -json".
type listedPackage struct {
	ImportPath string
	Name       string
	Dir        string
	Imports    []string
	// TestImports and XTestImports are the imports of the package's
	// tests, in the package and in package foo_test.
	TestImports, XTestImports []string
}

// goList runs "go list -json" with args at the repository root, with env
// added to the environment. It names the root's go.work, which joins both
// modules, even when the test runs with GOWORK=off.
func goList(env []string, args ...string) ([]listedPackage, error) {
	work, err := filepath.Abs(filepath.Join(repoRoot, "go.work"))
	if err != nil {
		return nil, err
	}
	cmd := exec.Command("go", append([]string{"list", "-e", "-json=ImportPath,Name,Dir,Imports,TestImports,XTestImports"}, args...)...)
	cmd.Dir = repoRoot
	cmd.Env = append(append(os.Environ(), "GOWORK="+work), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list %s: %v\n%s", strings.Join(args, " "), err, stderr.Bytes())
	}
	var pkgs []listedPackage
	for dec := json.NewDecoder(bytes.NewReader(out)); dec.More(); {
		var p listedPackage
		if err := dec.Decode(&p); err != nil {
			return nil, err
		}
		pkgs = append(pkgs, p)
	}
	return pkgs, nil
}

// docFile is a file's documentation: the comments of a Go file, all of a
// Markdown file. For a Go file with a package doc comment ("Package foo
// ..."), docName is the name that comment gives at docLine, and pkgName
// the name of the package clause.
type docFile struct {
	name, text       string
	docName, pkgName string
	docLine          int
}

// docFiles returns the comments of every Go file of both modules (outside
// testdata and the directories skipDir leaves out) and the Markdown files
// the repository publishes: README.md, BENCHMARKS.md, docs/*.md. A comment
// keeps its line in the file: lines between comments are left empty.
func (c *docChecker) docFiles(t *testing.T) []docFile {
	t.Helper()
	var files []docFile
	for _, name := range []string{"README.md", "BENCHMARKS.md"} {
		b, err := os.ReadFile(filepath.Join(repoRoot, name))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, docFile{name: name, text: string(b)})
	}
	md, _ := filepath.Glob(filepath.Join(repoRoot, "docs", "*.md"))
	for _, p := range md {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, docFile{name: "docs/" + filepath.Base(p), text: string(b)})
	}
	err := filepath.WalkDir(repoRoot, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != repoRoot && (skipDir(d.Name()) || d.Name() == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "repocheck/docnames_test.go") {
			// This file quotes stale names as examples.
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, p, nil, parser.ParseComments)
		if err != nil {
			return err
		}
		var lines []string
		for _, g := range f.Comments {
			for _, cm := range g.List {
				line := fset.Position(cm.Slash).Line
				for len(lines) < line-1 {
					lines = append(lines, "")
				}
				lines = append(lines, strings.Split(cm.Text, "\n")...)
			}
		}
		rel, _ := filepath.Rel(repoRoot, p)
		df := docFile{name: filepath.ToSlash(rel), text: strings.Join(lines, "\n"), pkgName: f.Name.Name}
		if f.Doc != nil {
			if m := packageDocRE.FindStringSubmatch(f.Doc.Text()); m != nil {
				df.docName, df.docLine = m[1], fset.Position(f.Doc.Pos()).Line
			}
		}
		files = append(files, df)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// docProblem is a stale name at a line of a file.
type docProblem struct {
	line int
	msg  string
}

var (
	urlRE = regexp.MustCompile(`[a-zA-Z][a-zA-Z0-9+.-]*://[^\s)\x60>"']*`)
	// pathRE finds the words that may be paths: runs of the characters of
	// file names and slashes, with a slash inside.
	pathRE = regexp.MustCompile(`[\w.…*{}<>%$@~+-]*(?:/[\w.…*{}<>%$@~+-]*)+`)
	// packageRE finds "package foo", "packages foo" and "package `foo`".
	packageRE = regexp.MustCompile("\\b[Pp]ackages? (\x60?)([a-z][a-z0-9_/.]*[a-z0-9_])(\x60?)")
	// packageDocRE is the start of a package doc comment.
	packageDocRE = regexp.MustCompile(`^Package (\w+)`)
	// majorVersionRE is the major version at the end of a module's path.
	majorVersionRE = regexp.MustCompile(`/v\d+$`)
	// lineSuffixRE is a line (and column) number after a file name.
	lineSuffixRE = regexp.MustCompile(`(:\d+)+$`)
)

// proseAfterPackage are the English words that follow "package" in our docs
// without naming one ("a package doc comment", "the package layout").
var proseAfterPackage = map[string]bool{
	"a": true, "an": true, "and": true, "are": true, "as": true, "at": true, "be": true,
	"before": true, "behind": true, "by": true, "can": true, "comes": true, "comment": true,
	"counts": true, "diagram": true, "doc": true, "docs": true, "does": true, "export": true,
	"for": true, "from": true, "has": true, "have": true, "hold": true, "holds": true, "import": true,
	"imports": true, "in": true, "installed": true, "is": true, "it": true, "its": true,
	"layout": true, "level": true, "may": true, "means": true, "must": true, "name": true,
	"names": true, "never": true, "of": true, "on": true, "only": true, "or": true, "path": true,
	"paths": true, "points": true, "prefix": true, "reads": true, "relative": true, "runs": true,
	"should": true, "skip": true, "splits": true, "that": true, "the": true, "their": true,
	"this": true, "to": true, "under": true, "used": true, "version": true, "was": true, "were": true,
	"which": true, "whose": true, "with": true,
}

// check returns the stale names in text, the documentation of the file
// name (slash-separated, relative to the repository root).
func (c *docChecker) check(name, text string) []docProblem {
	var probs []docProblem
	for i, line := range strings.Split(text, "\n") {
		line = urlRE.ReplaceAllString(line, " ")
		for _, m := range pathRE.FindAllStringIndex(line, -1) {
			if msg := c.checkPath(name, line[m[0]:m[1]]); msg != "" {
				probs = append(probs, docProblem{i + 1, msg})
			}
		}
		for _, m := range packageRE.FindAllStringSubmatch(line, -1) {
			if msg := c.checkPackage(name, m[2], m[1] != ""); msg != "" {
				probs = append(probs, docProblem{i + 1, msg})
			}
		}
	}
	return probs
}

// roots returns the directories a path in the file name may be relative
// to: the directories that hold it, innermost first, up to the repository
// root, which, with the tools' module root cmd/, is among them.
func roots(name string) []string {
	var r []string
	for d := path.Dir(name); d != "." && d != "/"; d = path.Dir(d) {
		r = append(r, d)
	}
	return append(r, "")
}

// checkPath checks one word that pathRE found; it returns "" when the word
// is not one of our paths or names something that exists.
func (c *docChecker) checkPath(name, w string) string {
	orig := w
	w = strings.TrimLeft(w, "'\"*")
	w = strings.TrimRight(w, ".,;:!?'\"*")
	w = lineSuffixRE.ReplaceAllString(w, "")
	w = strings.TrimRight(w, ".,;:")
	if ext := path.Ext(w); len(ext) > 1 && 'A' <= ext[1] && ext[1] <= 'Z' {
		w = strings.TrimSuffix(w, ext) // a Go identifier after a package: internal/rtc.MaxMessage
	}
	for _, sub := range []string{"/...", "/…"} {
		w = strings.TrimSuffix(w, sub)
	}
	if w == "" || strings.Trim(w, "./…") == "" {
		return ""
	}
	switch {
	case strings.HasPrefix(w, "/"):
		for _, home := range []string{"/work/", "/home/", "/Users/", "/root/"} {
			if strings.HasPrefix(w, home) {
				return fmt.Sprintf("%s is a path on a developer's machine, outside the repository", orig)
			}
		}
		return ""
	case strings.HasPrefix(w, "./") || strings.HasPrefix(w, "../"):
		if strings.HasPrefix(w, "../shared/") {
			return ""
		}
		p := path.Join(path.Dir(name), w)
		if strings.HasPrefix(w, "./") {
			// "go test ./internal/play" runs at a module's root, not
			// in the directory of the file that quotes it.
			return c.resolve(name, strings.TrimPrefix(w, "./"), orig)
		}
		if p == ".." || strings.HasPrefix(p, "../") {
			return fmt.Sprintf("%s is outside the repository", orig)
		}
		return c.resolve("", p, orig)
	}
	first, _, _ := strings.Cut(w, "/")
	if strings.Contains(first, ".") {
		rest, ok := strings.CutPrefix(w, module)
		if !ok || (rest != "" && rest[0] != '/') {
			return "" // another module's import path, or a file name with a slash after it
		}
		if rest == "" || c.dirs[rest[1:]] {
			return ""
		}
		return fmt.Sprintf("%s: the repository has no directory %s", orig, rest[1:])
	}
	if !c.dirNames[first] {
		if !isLetter(first[0]) {
			return ""
		}
		for p := w; p != "." && p != "/"; p = path.Dir(p) {
			if c.otherPkgs[p] {
				return "" // a standard package or a file in one (compress/flate/huffman_bit_writer.go)
			}
		}
		if !strings.HasSuffix(w, "/") && !strings.HasSuffix(w, ".go") && !strings.HasSuffix(w, ".md") {
			return "" // a word with a slash (kbit/s), or a file of another tree (code/qcommon/msg.c)
		}
	}
	if msg := c.resolve(name, w, orig); msg != "" && !c.alternatives(w) {
		return msg
	}
	return ""
}

// alternatives reports whether every element of w names a directory at the
// root ("client/server"): such a word reads as "client or server".
func (c *docChecker) alternatives(w string) bool {
	elems := strings.Split(w, "/")
	for _, e := range elems {
		if !c.dirs[e] {
			return false
		}
	}
	return len(elems) > 1
}

func isLetter(b byte) bool { return 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' }

// resolve returns "" if p, with any glob or placeholder cut off, is a file
// or directory under one of the roots of the file name.
func (c *docChecker) resolve(name, p, orig string) string {
	p = strings.TrimSuffix(p, "/")
	elems := strings.Split(p, "/")
	for i, e := range elems {
		if strings.ContainsAny(e, "*{}<>%$@~…") {
			elems = elems[:i]
			break
		}
	}
	if len(elems) == 0 {
		return ""
	}
	p = strings.Join(elems, "/")
	for _, r := range roots(name) {
		q := path.Join(r, p)
		if c.dirs[q] {
			return ""
		}
		if _, err := os.Stat(filepath.Join(repoRoot, filepath.FromSlash(q))); err == nil {
			return ""
		}
	}
	return fmt.Sprintf("%s: no such file or directory in the repository", orig)
}

// checkPackage checks the word after "package"; quoted says it was in
// backquotes.
func (c *docChecker) checkPackage(name, w string, quoted bool) string {
	if !quoted && proseAfterPackage[w] {
		return ""
	}
	if c.otherPkgs[w] {
		return ""
	}
	if !strings.Contains(w, "/") {
		if c.ourNames[w] {
			return ""
		}
		return fmt.Sprintf("package %s: neither one of ours nor a standard or required one", w)
	}
	for _, r := range roots(name) {
		if c.ourNames[path.Join(r, w)] {
			return ""
		}
	}
	return fmt.Sprintf("package %s: no package of ours has that path", w)
}
