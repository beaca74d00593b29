package main

// "serve --pprof": net/http/pprof's Cmdline echoes os.Args, and a
// server's command line carries its password; ours answers the same
// thing with the values of secret-bearing flags replaced.

import (
	"net/http"
	"os"
	"strings"
)

// secretFlags are the flags whose values /debug/pprof/cmdline hides: the
// server and bot passwords, a bot's connect token, and the key file's
// path (not a secret itself, but it says where the key lies).
var secretFlags = map[string]bool{"password": true, "token": true, "key-file": true}

// redacted is what replaces a secret flag's value.
const redacted = "REDACTED"

// redactArgs returns args with the values of secretFlags replaced, in
// both of Go's flag forms: -name=value (or --name=value) and -name value.
func redactArgs(args []string) []string {
	out := make([]string, len(args))
	copy(out, args)
	for i := 0; i < len(out); i++ {
		a := out[i]
		if len(a) < 2 || a[0] != '-' {
			continue
		}
		name := strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-")
		name, _, hasValue := strings.Cut(name, "=")
		if !secretFlags[name] {
			continue
		}
		if hasValue {
			out[i] = a[:strings.IndexByte(a, '=')+1] + redacted
		} else if i+1 < len(out) {
			i++
			out[i] = redacted
		}
	}
	return out
}

// pprofCmdline is net/http/pprof.Cmdline with redactArgs applied: the
// arguments separated by NUL bytes.
func pprofCmdline(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Write([]byte(strings.Join(redactArgs(os.Args), "\x00")))
}
