package snapshot

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/snapwire/snapwire/bitmsg"
	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/usercmd"
)

// TestWriteCmdDeltaMatchesGame: the encoder's command delta writes exactly the bits of
// usercmd.WriteDelta, after every bit offset and after a next code of every length, for
// random commands and bases (equal and unequal fields, -127..127 movements, the -128 range
// error).
func TestWriteCmdDeltaMatchesGame(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	randCmd := func(like *game.UserCmd) game.UserCmd {
		c := game.UserCmd{Buttons: game.Buttons(rng.Uint32()), Forward: int8(rng.IntN(255) - 127),
			Right: int8(rng.IntN(255) - 127), Up: int8(rng.IntN(255) - 127),
			Yaw: uint16(rng.Uint32()), Pitch: uint16(rng.Uint32())}
		if like != nil { // keep some fields equal to the base
			if rng.IntN(2) == 0 {
				c.Buttons = like.Buttons
			}
			if rng.IntN(2) == 0 {
				c.Forward = like.Forward
			}
			if rng.IntN(2) == 0 {
				c.Right = like.Right
			}
			if rng.IntN(2) == 0 {
				c.Up = like.Up
			}
			if rng.IntN(2) == 0 {
				c.Yaw = like.Yaw
			}
			if rng.IntN(2) == 0 {
				c.Pitch = like.Pitch
			}
		}
		return c
	}
	b1, b2 := make([]byte, 64), make([]byte, 64)
	for i := range 20000 {
		base := randCmd(nil)
		cmd := randCmd(&base)
		if i%50 == 0 {
			cmd.Right = -128
		}
		if i%7 == 0 {
			cmd = base
		}
		lead := 1 + rng.IntN(32) // bits written before the command
		w1, w2 := bitmsg.NewWriter(b1), bitmsg.NewWriter(b2)
		clear(b1)
		clear(b2)
		w1.WriteBits(rng.Uint32()>>(32-lead), lead)
		bitops.WriteBitsFrom(w2, w1.Bytes(), w1.Len())
		// Half the commands come after a next code, which writeCmdDelta takes along.
		code, n := uint32(0), 0
		if i%2 == 1 {
			code, n = nextCode(rng.IntN(game.MaxEntities))
			w1.WriteBits(code, n) // writeNext's bits
			lead += n
		}
		err1 := usercmd.WriteDelta(w1, &base, &cmd)
		err2 := writeCmdDelta(w2, &base, &cmd, code, n)
		if (err1 == nil) != (err2 == nil) || (err1 != nil && !errors.Is(err2, game.ErrRange)) {
			t.Fatalf("errors differ: %v / %v", err1, err2)
		}
		if w1.Len() != w2.Len() || !bytes.Equal(w1.Bytes(), w2.Bytes()) {
			t.Fatalf("cmd %+v base %+v: %d bits %x, want %d bits %x", cmd, base, w2.Len(), w2.Bytes(), w1.Len(), w1.Bytes())
		}
		if got, want := w2.Len()-lead, usercmd.DeltaBits(&base, &cmd); err2 == nil && got != want {
			t.Fatalf("%d bits, want %d", got, want)
		}
	}
}

// TestWriteCmdDeltaOverflow: a writer too short for the command ends with ErrOverflow, as
// with usercmd.WriteDelta.
func TestWriteCmdDeltaOverflow(t *testing.T) {
	base := game.UserCmd{}
	cmd := game.UserCmd{Buttons: 3, Forward: 5, Right: -7, Up: 1, Yaw: 100, Pitch: 200}
	for size := range 10 {
		w := bitmsg.NewWriter(make([]byte, size))
		if err := writeCmdDelta(w, &base, &cmd, 0, 0); err != nil {
			t.Fatal(err)
		}
		if want := size*8 < usercmd.DeltaBits(&base, &cmd); (w.Err() != nil) != want {
			t.Fatalf("%d bytes: err %v, want overflow %v", size, w.Err(), want)
		}
	}
}

// FuzzCmdChain: clients given commands that the frame's command chain holds or not (their own
// missing or named by Input.Own, one differing, out of order, out of range, a -128 movement), with PVSs that keep
// or split the chain's stretches, write the same bits (or fail alike) with the cache as without
// it, frame after frame.
func FuzzCmdChain(f *testing.F) {
	f.Add([]byte{3, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 0xFF, 0x0F, 0xF0, 7, 9})
	f.Add(bytes.Repeat([]byte{0x81, 0, 3, 0x42, 0xFE, 1}, 30))
	f.Fuzz(func(t *testing.T, data []byte) { checkCmdChain(t, data) })
}

// TestCmdChainRandom runs FuzzCmdChain's check on random inputs, and fails if the commands it
// copies from the chain are too few for it to test anything.
func TestCmdChainRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	hits, data := 0, make([]byte, 64)
	for range 300 {
		for i := range data {
			data[i] = byte(rng.Uint32())
		}
		hits += checkCmdChain(t, data[:rng.IntN(len(data))])
	}
	if hits < 300 {
		t.Fatalf("%d stretches of commands copied in 300 inputs", hits)
	}
}

// checkCmdChain is FuzzCmdChain's check on one input; it returns the stretches of commands
// copied from the chain.
func checkCmdChain(t *testing.T, data []byte) int {
	{
		// The input's bytes first, then a generator seeded with it: short inputs make whole
		// scenarios too.
		var seed [8]byte
		copy(seed[:], data)
		rng := rand.New(rand.NewPCG(binary.LittleEndian.Uint64(seed[:]), uint64(len(data))))
		next := func() byte {
			if len(data) == 0 {
				return byte(rng.Uint32())
			}
			b := data[0]
			data = data[1:]
			return b
		}
		reg := newRegistry()
		world := game.NewEntityTable(reg)
		// The players: enough for the command chain (chainMinCmds) and up to 40 more, at
		// numbers 4 apart at most, some past the last entity.
		var cmds []game.PlayerCmd
		n := chainMinCmds + int(next()%41)
		num := 0
		for range n {
			num += int(next() % 4)
			if num >= game.MaxEntities+2 {
				break
			}
			if num < game.MaxEntities && next()%8 != 0 {
				if _, err := world.Spawn(game.EntityNum(num), entType); err != nil {
					t.Fatal(err)
				}
			}
			cmds = append(cmds, game.PlayerCmd{Entity: game.EntityNum(num)})
			num++
		}
		const clients = 3
		// self is given the frame's commands with the client's own among them, named by
		// Input.Own, as a server gives every client the same list (issue 25).
		type cl struct{ ref, fast, self *Encoder }
		cls := make([]cl, clients)
		for i := range cls {
			cls[i].ref = NewEncoder(reg)
			cls[i].fast = NewEncoder(reg)
			cls[i].self = NewEncoder(reg)
		}
		var cache FrameCache
		states := newStates()
		bufA, bufB, bufC := make([]byte, 1<<14), make([]byte, 1<<14), make([]byte, 1<<14)
		for frame := game.Frame(1); frame <= 4; frame++ {
			for i := range cmds {
				c := &cmds[i].Cmd
				switch next() % 6 {
				case 0:
					c.Yaw += uint16(next())
				case 1:
					c.Pitch = uint16(next())
				case 2:
					c.Forward = int8(next())
				case 3:
					c.Buttons = game.Buttons(next())
				}
			}
			for ci := range cls {
				var pvs PVS
				for e := range game.MaxEntities {
					if e < num && next()%5 != 0 || e >= num && e%7 == 0 {
						pvs.Add(game.EntityNum(e))
					}
				}
				var own []game.PlayerCmd
				for _, pc := range cmds {
					switch next() % 16 {
					case 0: // missing
						continue
					case 1:
						pc.Cmd.Pitch++
					case 2:
						pc.Cmd.Right = int8(next())
					}
					own = append(own, pc)
				}
				full, self := own, -1
				if len(own) > 0 && next()%2 == 0 {
					self = int(next()) % len(own)
					full = slices.Clone(own)
					own = slices.Delete(own, self, self+1)
				}
				swapped := len(own) > 2 && next()%16 == 0
				if swapped {
					own[0], own[1] = own[1], own[0] // out of order
				}
				in := Input{Frame: frame, PVS: &pvs, World: world, States: states, Cmds: own}
				wa, wb := bitmsg.NewWriter(bufA), bitmsg.NewWriter(bufB)
				ha, erra := cls[ci].ref.Build(wa, &in)
				in.Cache = &cache
				hb, errb := cls[ci].fast.Build(wb, &in)
				if (erra == nil) != (errb == nil) {
					t.Fatalf("frame %d client %d: without the cache %v, with it %v", frame, ci, erra, errb)
				}
				if erra != nil {
					continue
				}
				if ha != hb || wa.Len() != wb.Len() || !bytes.Equal(wa.Bytes(), wb.Bytes()) {
					t.Fatalf("frame %d client %d: %d bits with the cache, %d without", frame, ci, wb.Len(), wa.Len())
				}
				if self >= 0 && !swapped {
					in.Cmds, in.Own, in.HasOwn = full, full[self].Entity, true
				}
				wc := bitmsg.NewWriter(bufC)
				hc, errc := cls[ci].self.Build(wc, &in)
				if errc != nil || hc != ha || !bytes.Equal(wc.Bytes(), wa.Bytes()) {
					t.Fatalf("frame %d client %d: %d bits with its own command named by Own, %d without it (%v)", frame, ci, wc.Len(), wa.Len(), errc)
				}
				if ha.Seq > 1 {
					cls[ci].ref.Ack(ha.Seq - 1)
					cls[ci].fast.Ack(hb.Seq - 1)
					cls[ci].self.Ack(hc.Seq - 1)
				}
			}
		}
		return cache.cmdHits
	}
}
