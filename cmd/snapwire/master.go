package main

// "snapwire master": a Quake 3 master server (package internal/q3/master) on UDP;
// "snapwire servers": list a master's servers with their getinfo answers.

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/netip"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/snapwire/snapwire/internal/netaddr"
	"github.com/snapwire/snapwire/internal/q3/master"
	"github.com/snapwire/snapwire/internal/q3/oob"
	"github.com/snapwire/snapwire/internal/session"
)

func init() {
	register(command{
		name:    "master",
		summary: "run a Quake 3 master server: servers heartbeat, browsers list them",
		run:     runMaster,
	})
	register(command{
		name:    "servers",
		summary: "list the servers a Quake 3 master knows, with map, players and ping",
		run:     runServers,
	})
}

func runMaster(args []string, stdout io.Writer) error {
	fs := newFlagSet("master")
	listen := fs.String("listen", "127.0.0.1:27950", "UDP address to listen on (27950: the Quake 3 master port)")
	expire := fs.Duration("expire", 15*time.Minute, "drop a server not refreshed by a verified heartbeat for this long")
	logFormat := fs.String("log-format", "text", "log as text (key=value) or json")
	duration := fs.Duration("duration", 0, "stop after this long (0: until SIGINT/SIGTERM)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *logFormat != "text" && *logFormat != "json" {
		return fmt.Errorf("--log-format %q: want text or json", *logFormat)
	}
	if fs.NArg() > 0 || *expire <= 0 || *duration < 0 {
		return errUsage
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if *duration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, *duration)
		defer cancel()
	}
	return serveMaster(ctx, *listen, *expire, newLogger(*logFormat, stdout))
}

// serveMaster runs a master on listen until ctx ends.
func serveMaster(ctx context.Context, listen string, expire time.Duration, logger *slog.Logger) error {
	la, err := netaddr.Resolve(listen)
	if err != nil {
		return fmt.Errorf("--listen: %w", err)
	}
	conn, err := net.ListenUDP("udp", net.UDPAddrFromAddrPort(la))
	if err != nil {
		return err
	}
	defer conn.Close()
	m := master.New(master.Config{Expire: expire}, func(to netip.AddrPort, p []byte) { conn.WriteToUDPAddrPort(p, to) })
	logger.Info("listening", "addr", conn.LocalAddr().String(), "expire", expire)
	start := time.Now()
	buf := make([]byte, 2048)
	listed := 0
	for ctx.Err() == nil {
		conn.SetReadDeadline(time.Now().Add(500 * time.Millisecond))
		n, from, err := conn.ReadFromUDPAddrPort(buf)
		now := time.Since(start)
		if err == nil {
			m.HandlePacket(now, netip.AddrPortFrom(from.Addr().Unmap(), from.Port()), buf[:n])
		} else if ne, ok := err.(net.Error); !ok || !ne.Timeout() {
			return err
		} else {
			m.Expire(now)
		}
		if l := m.Len(); l != listed { // not Servers: a copy and sort per packet
			logger.Info("servers", "listed", l)
			listed = l
		}
	}
	st := m.Stats()
	logger.Info("stopped", "listed", listed, "heartbeats", st.Heartbeats, "verified", st.Verified,
		"bad_challenges", st.BadChallenges, "queries", st.Queries, "rate_limited", st.RateLimited)
	return nil
}

// splitList splits a comma-separated flag value, dropping empty items.
func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// serverRow is one line of "snapwire servers".
type serverRow struct {
	addr                netip.AddrPort
	host, mapName, game string
	clients, max, proto int
	ping                time.Duration
	answered            bool
}

func runServers(args []string, stdout io.Writer) error {
	fs := newFlagSet("servers")
	masterAddr := fs.String("master", "127.0.0.1:27950", "master server address")
	protocols := fs.String("protocol", fmt.Sprintf("%d,68,71", session.Version), fmt.Sprintf("comma-separated protocols to ask for (%d: snapwire, 68/71: Quake 3 / ioq3)", session.Version))
	timeout := fs.Duration("timeout", 2*time.Second, "how long to wait for the master and for each server")
	if err := fs.Parse(args); err != nil {
		return err
	}
	ap, err := netaddr.Resolve(*masterAddr)
	if err != nil {
		return fmt.Errorf("--master: %w", err)
	}
	network := "udp4"
	if !ap.Addr().Unmap().Is4() {
		network = "udp6"
	}
	conn, err := net.ListenUDP(network, nil)
	if err != nil {
		return err
	}
	defer conn.Close()
	buf := make([]byte, 2048)
	seen := map[netip.AddrPort]bool{}
	var addrs []netip.AddrPort
	// A cookie proves our address, so the master sends the whole list
	// (package master); without one (an older master) we get a part.
	cookie := masterCookie(conn, ap, *timeout)
	for _, p := range splitList(*protocols) {
		if _, err := strconv.Atoi(p); err != nil {
			return fmt.Errorf("--protocol %q: %w", p, err)
		}
		if _, err := conn.WriteToUDPAddrPort([]byte("\xff\xff\xff\xffgetservers "+p+" empty full"+cookie+"\n"), ap); err != nil {
			return err
		}
		// Packets until the one with EOT, bounded by the timeout.
		for deadline := time.Now().Add(*timeout); ; {
			conn.SetReadDeadline(deadline)
			n, from, err := conn.ReadFromUDPAddrPort(buf)
			if err != nil {
				return fmt.Errorf("master %v answered no getservers %s within %v", ap, p, *timeout)
			}
			if netip.AddrPortFrom(from.Addr().Unmap(), from.Port()) != ap {
				continue
			}
			got, last, ok := master.ParseServersResponse(buf[:n])
			if !ok {
				continue
			}
			for _, a := range got {
				if !seen[a] {
					seen[a] = true
					addrs = append(addrs, a)
				}
			}
			if last {
				break
			}
		}
	}
	if len(addrs) == 0 {
		fmt.Fprintf(stdout, "master %v lists no servers\n", ap)
		return nil
	}
	rows := queryServers(conn, addrs, *timeout)
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ADDRESS\tNAME\tMAP\tPLAYERS\tPING\tPROTOCOL\tGAME")
	for _, r := range rows {
		if !r.answered {
			fmt.Fprintf(tw, "%v\t(no answer)\t\t\t\t\t\n", r.addr)
			continue
		}
		fmt.Fprintf(tw, "%v\t%s\t%s\t%d/%d\t%v\t%d\t%s\n", r.addr, r.host, r.mapName, r.clients, r.max, r.ping.Round(10*time.Microsecond), r.proto, r.game)
	}
	return tw.Flush()
}

// queryServers sends getinfo to every address at once and collects the
// answers until all came or the timeout passed.
func queryServers(conn *net.UDPConn, addrs []netip.AddrPort, timeout time.Duration) []serverRow {
	rows := make([]serverRow, len(addrs))
	index := map[netip.AddrPort]int{}
	sentAt := time.Now()
	for i, a := range addrs {
		rows[i].addr = a
		index[a] = i
		conn.WriteToUDPAddrPort([]byte("\xff\xff\xff\xffgetinfo list"), a)
	}
	buf := make([]byte, 2048)
	for left := len(addrs); left > 0; {
		conn.SetReadDeadline(sentAt.Add(timeout))
		n, from, err := conn.ReadFromUDPAddrPort(buf)
		if err != nil {
			break
		}
		i, ok := index[netip.AddrPortFrom(from.Addr().Unmap(), from.Port())]
		if !ok || rows[i].answered {
			continue
		}
		msg, err := oob.ParseServerPacket(buf[:n])
		ir, isInfo := msg.(*oob.InfoResponse)
		if err != nil || !isInfo {
			continue
		}
		info, err := oob.ParseInfo(ir.Info, oob.MaxInfoString)
		if err != nil {
			continue
		}
		num := func(k string) int { v, _ := strconv.Atoi(info.Value(k)); return v }
		rows[i] = serverRow{addr: rows[i].addr, host: info.Value("hostname"), mapName: info.Value("mapname"),
			game: info.Value("gamename"), clients: num("clients"), max: num("sv_maxclients"), proto: num("protocol"),
			ping: time.Since(sentAt), answered: true}
		left--
	}
	slices.SortFunc(rows, func(a, b serverRow) int { return a.addr.Compare(b.addr) })
	return rows
}
