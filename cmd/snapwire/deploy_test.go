package main

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/snapwire/snapwire/internal/acceptance"
)

// manifestArgs returns the container args of a manifest in deploy/ (the
// "- " lines under "args:"), with $(HOST_IP) set to a sample address.
func manifestArgs(t *testing.T, name string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "deploy", name))
	if err != nil {
		t.Fatal(err)
	}
	var args []string
	in := false
	indent := 0
	for _, line := range strings.Split(string(b), "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case trimmed == "args:":
			in, indent = true, len(line)-len(strings.TrimLeft(line, " "))
		case in && strings.HasPrefix(trimmed, "- ") && len(line)-len(strings.TrimLeft(line, " ")) >= indent:
			args = append(args, strings.ReplaceAll(strings.TrimPrefix(trimmed, "- "), "$(HOST_IP)", "203.0.113.7"))
		case in:
			in = false
		}
	}
	return args
}

// The manifests' and the Dockerfile's serve flags are flags serve takes
// (a typo would crash-loop every pod of a fleet).
func TestDeployArgs(t *testing.T) {
	for _, name := range []string{"gameserver.yaml", "fleet.yaml"} {
		args := manifestArgs(t, name)
		if len(args) < 2 || args[0] != "serve" {
			t.Fatalf("%s: args %q", name, args)
		}
		keyFile := writeKeyFile(t)
		for i, a := range args {
			args[i] = strings.Replace(a, "/keys/key", keyFile, 1)
		}
		o, err := parseServeFlags(args[1:])
		// Dynamic ports: the public address comes from the GameServer.
		if err != nil || !o.agones || o.public != "" || o.metrics == "" {
			t.Errorf("%s: serve %q: %v (%+v)", name, args[1:], err, o)
		}
	}
	b, err := os.ReadFile(filepath.Join("..", "..", "deploy", "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `CMD ["serve", "--listen", "0.0.0.0:7777", "--key-file", "/keys/key", "--agones", "--log-format", "json"]`) {
		t.Error("the Dockerfile's CMD changed: update this test with the new flags")
	}
	if _, err := parseServeFlags([]string{"--listen", "0.0.0.0:7777", "--key-file", writeKeyFile(t), "--agones", "--log-format", "json"}); err != nil {
		t.Errorf("Dockerfile CMD: %v", err)
	}
}

// The Dockerfile builds a static binary (CGO_ENABLED=0) for an empty
// image: that build works and the binary runs.
func TestStaticBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	bin := filepath.Join(t.TempDir(), "snapwire")
	cmd := exec.Command(goBin, "build", "-trimpath", "-ldflags=-s -w", "-o", bin, ".")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("static build: %v\n%s", err, out)
	}
	if out, err := exec.Command(bin, "help").CombinedOutput(); err != nil || !strings.Contains(string(out), "serve") {
		t.Errorf("static binary: %v\n%s", err, out)
	}
}

// docker build of deploy/Dockerfile where a Docker engine runs; this
// machine kind has only the client, so it skips with a message.
func TestDeployDockerBuild(t *testing.T) {
	acceptance.Require(t, "docker")
	docker, err := exec.LookPath("docker")
	if err != nil {
		t.Skip("docker not installed")
	}
	if err := exec.Command(docker, "info").Run(); err != nil {
		t.Skip("no Docker engine running (docker info failed): the image build is not checked here")
	}
	if testing.Short() {
		t.Skip("docker build")
	}
	cmd := exec.Command(docker, "build", "-f", "deploy/Dockerfile", "-t", "snapwire:test", ".")
	cmd.Dir = filepath.Join("..", "..")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("docker build: %v\n%s", err, out)
	}
}

// kubectl apply --dry-run=client of the manifests where kubectl exists.
func TestDeployKubectlDryRun(t *testing.T) {
	acceptance.Require(t, "kubectl")
	kubectl, err := exec.LookPath("kubectl")
	if err != nil {
		t.Skip("kubectl not installed: the manifests are not checked by kubectl here")
	}
	// Without a kubeconfig kubectl asks localhost:8080, where anything may
	// listen: point it at a port nobody serves instead (bound, then
	// closed), so that "no cluster" is what it finds.
	var server []string
	home, _ := os.UserHomeDir()
	if _, err := os.Stat(filepath.Join(home, ".kube", "config")); os.Getenv("KUBECONFIG") == "" && err != nil {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ln.Close()
		server = []string{"--server", "http://" + ln.Addr().String()}
	}
	for _, name := range []string{"gameserver.yaml", "fleet.yaml"} {
		args := append([]string{"apply", "--dry-run=client", "--validate=false", "--request-timeout=5s", "-f", filepath.Join("..", "..", "deploy", name)}, server...)
		out, err := exec.Command(kubectl, args...).CombinedOutput()
		if err != nil && strings.Contains(string(out), "unable to recognize") && strings.Contains(string(out), "connect") {
			// A client dry run still asks the API server which kinds exist.
			t.Skipf("kubectl found no cluster to map the kinds with (%s): the manifests are not checked by kubectl here", strings.TrimSpace(string(out[strings.LastIndex(string(out), "error:"):])))
		}
		if err != nil {
			t.Errorf("kubectl apply --dry-run=client -f %s: %v\n%s", name, err, out)
		}
	}
}
