// Package repocheck holds tests that read the repository itself, not a
// package's behaviour: that no function outside generated code and tests is
// longer than the limit, that comments and docs name only packages and files
// that exist, and that the package diagram of docs/ARCHITECTURE.md matches
// the imports "go list" reports. It has no code of its own.
package repocheck
