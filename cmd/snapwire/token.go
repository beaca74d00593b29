package main

// "snapwire token": connect tokens for secure servers (package token).
// "keygen" prints a new private key (the key file that the backend and
// every "snapwire serve --key-file" share); "issue" prints a token for one
// client, the way a game backend would hand one out after its own login.

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"os"
	"strings"
	"time"

	"github.com/snapwire/snapwire/internal/netaddr"
	"github.com/snapwire/snapwire/token"
)

// arenaProtocolID is the protocol id of the arena game that serve and bot
// play: the first 8 bytes of SHA-256("snapwire arena 1"). A game picks its
// own; servers refuse tokens issued for another.
var arenaProtocolID = func() uint64 {
	h := sha256.Sum256([]byte("snapwire arena 1"))
	return binary.LittleEndian.Uint64(h[:8])
}()

// tokenCommands are the subcommands of "snapwire token".
var tokenCommands = map[string]command{
	"keygen": {name: "keygen", summary: "print a new private key (the key file servers and backends share)", run: runTokenKeygen},
	"issue":  {name: "issue", summary: "print a connect token for one client, as a game backend hands one out", run: runTokenIssue},
}

func init() {
	register(command{
		name:    "token",
		summary: "connect tokens: 'token keygen' prints a key file, 'token issue' a token",
		run:     runToken,
		subs:    tokenCommands,
	})
}

func runToken(args []string, stdout io.Writer) error {
	return runGroup("token", tokenCommands, args, stdout)
}

func runTokenKeygen(args []string, stdout io.Writer) error {
	fs := newFlagSet("token keygen")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: snapwire token keygen > KEYFILE")
		fmt.Fprintln(fs.Output(), "\nPrints a new private key: the key file that the backend and every 'snapwire serve --key-file' share.")
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("keygen takes no arguments")
	}
	k, err := token.NewKey()
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(stdout, k.String())
	return err
}

// readKeyFile reads a key file made by "snapwire token keygen".
func readKeyFile(path string) (token.Key, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return token.Key{}, err
	}
	k, err := token.ParseKey(string(b))
	if err != nil {
		return k, fmt.Errorf("%s: %w (make one with 'snapwire token keygen > %s')", path, err, path)
	}
	return k, nil
}

// issueFor issues an arena token for the servers at addrs.
func issueFor(key token.Key, addrs []string, clientID uint64, lifetime, timeout time.Duration, userData string) (*token.Token, error) {
	return issueParams(key, addrs, token.Params{ClientID: clientID, Lifetime: lifetime, Timeout: timeout, UserData: []byte(userData)})
}

// issueParams issues a token of p with the arena's protocol id for the
// servers at addrs.
func issueParams(key token.Key, addrs []string, p token.Params) (*token.Token, error) {
	var servers []netip.AddrPort
	for _, a := range addrs {
		ap, err := netaddr.Resolve(strings.TrimSpace(a))
		if err != nil {
			return nil, fmt.Errorf("server %w", err)
		}
		servers = append(servers, ap)
	}
	p.ProtocolID, p.Servers = arenaProtocolID, servers
	return token.Issue(key, p, time.Now())
}

func runTokenIssue(args []string, stdout io.Writer) error {
	fs := newFlagSet("token issue")
	keyFile := fs.String("key-file", "", "the private key file (snapwire token keygen)")
	servers := fs.String("server", "", "comma-separated HOST:PORT addresses of the servers the token is good for (host names are looked up now)")
	clientID := fs.Uint64("client-id", 0, "the backend's id of the player (given to the server)")
	lifetime := fs.Duration("expire", 30*time.Second, "how long the token can be used to connect")
	timeout := fs.Duration("timeout", 10*time.Second, "session timeout")
	userData := fs.String("user-data", "", "up to 256 bytes passed to the server")
	match := fs.String("match", "", "the match the token admits to on a server that hosts many: 1..32 bytes of printable ASCII without spaces (default: the server's default match)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *keyFile == "" || *servers == "" {
		return errors.New("--key-file and --server are required")
	}
	key, err := readKeyFile(*keyFile)
	if err != nil {
		return err
	}
	tok, err := issueParams(key, strings.Split(*servers, ","), token.Params{
		ClientID: *clientID, Lifetime: *lifetime, Timeout: *timeout, UserData: []byte(*userData), Match: *match,
	})
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(stdout, tok.String())
	return err
}
