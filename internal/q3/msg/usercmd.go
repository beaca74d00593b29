package msg

// UserCmd is one frame of player input (ioq3 usercmd_t).
type UserCmd struct {
	ServerTime  int32
	Angles      [3]int32 // 16-bit angle shorts (ANGLE2SHORT), 0..65535 after a read
	Buttons     int32    // 16 bits on the wire
	Weapon      uint8
	ForwardMove int8 // -127..127; the engine reads -128 as -127
	RightMove   int8
	UpMove      int8
}

// HashKey is ioq3 MSG_HashKey: a hash of at most maxLen characters of s
// ('%' and bytes above 127 count as '.'), used in the usercmd key.
func HashKey(s string, maxLen int) int32 {
	var hash int32
	for i := 0; i < maxLen && i < len(s) && s[i] != 0; i++ {
		c := s[i]
		if c&0x80 != 0 || c == '%' {
			c = '.'
		}
		hash += int32(c) * int32(119+i)
	}
	return hash ^ hash>>10 ^ hash>>20
}

// UsercmdKey is the XOR key of the usercmds in one client message
// (Quake 3 protocol description, Fedoryński: XOR keys; ioq3 CL_WritePacket / SV_UserMove):
// the gamestate's checksum feed, the last server message the client
// received (the message's messageAcknowledge) and the hash of the last
// server command it received (the one numbered reliableAcknowledge).
func UsercmdKey(checksumFeed, messageAck int32, lastServerCommand string) int32 {
	return checksumFeed ^ messageAck ^ HashKey(lastServerCommand, 32)
}

func writeDeltaKey(w *Writer, key int32, old, new int32, bits int) {
	if old == new {
		w.WriteBits(0, 1)
		return
	}
	w.WriteBits(1, 1)
	w.WriteBits(uint32(new^key), bits)
}

func readDeltaKey(r *Reader, key int32, old int32, bits int) int32 {
	if r.ReadBits(1) != 0 {
		return int32(r.ReadBits(bits) ^ uint32(key)&(1<<uint(bits)-1))
	}
	return old
}

// WriteDeltaUsercmdKey writes to as a delta from from (ioq3
// MSG_WriteDeltaUsercmdKey):
//
//	timeIsDelta (1) | delta ? serverTime-from (8) : serverTime (32)
//	changed (1) | [per field: changed (1) | [value ^ (key ^ serverTime) in
//	    angles 16,16,16, forward 8, right 8, up 8, buttons 16, weapon 8]]
func WriteDeltaUsercmdKey(w *Writer, key int32, from, to *UserCmd) {
	if d := to.ServerTime - from.ServerTime; d < 256 { // signed, as in the engine: a step back also takes this branch
		w.WriteBits(1, 1)
		w.WriteBits(uint32(d), 8)
	} else {
		w.WriteBits(0, 1)
		w.WriteBits(uint32(to.ServerTime), 32)
	}
	if from.Angles == to.Angles && from.ForwardMove == to.ForwardMove && from.RightMove == to.RightMove &&
		from.UpMove == to.UpMove && from.Buttons == to.Buttons && from.Weapon == to.Weapon {
		w.WriteBits(0, 1)
		return
	}
	key ^= to.ServerTime
	w.WriteBits(1, 1)
	writeDeltaKey(w, key, from.Angles[0], to.Angles[0], 16)
	writeDeltaKey(w, key, from.Angles[1], to.Angles[1], 16)
	writeDeltaKey(w, key, from.Angles[2], to.Angles[2], 16)
	writeDeltaKey(w, key, int32(from.ForwardMove), int32(to.ForwardMove), 8)
	writeDeltaKey(w, key, int32(from.RightMove), int32(to.RightMove), 8)
	writeDeltaKey(w, key, int32(from.UpMove), int32(to.UpMove), 8)
	writeDeltaKey(w, key, from.Buttons, to.Buttons, 16)
	writeDeltaKey(w, key, int32(from.Weapon), int32(to.Weapon), 8)
}

// ReadDeltaUsercmdKey reads a usercmd delta (ioq3 MSG_ReadDeltaUsercmdKey).
func ReadDeltaUsercmdKey(r *Reader, key int32, from, to *UserCmd) {
	if r.ReadBits(1) != 0 {
		to.ServerTime = from.ServerTime + int32(r.ReadBits(8))
	} else {
		to.ServerTime = int32(r.ReadBits(32))
	}
	if r.ReadBits(1) == 0 {
		st := to.ServerTime
		*to = *from
		to.ServerTime = st
		return
	}
	key ^= to.ServerTime
	to.Angles[0] = readDeltaKey(r, key, from.Angles[0], 16)
	to.Angles[1] = readDeltaKey(r, key, from.Angles[1], 16)
	to.Angles[2] = readDeltaKey(r, key, from.Angles[2], 16)
	to.ForwardMove = move8(readDeltaKey(r, key, int32(from.ForwardMove), 8))
	to.RightMove = move8(readDeltaKey(r, key, int32(from.RightMove), 8))
	to.UpMove = move8(readDeltaKey(r, key, int32(from.UpMove), 8))
	to.Buttons = readDeltaKey(r, key, from.Buttons, 16)
	to.Weapon = uint8(readDeltaKey(r, key, int32(from.Weapon), 8))
}

// move8 is the engine's store into a signed char, with -128 read as -127.
func move8(v int32) int8 {
	m := int8(v)
	if m == -128 {
		m = -127
	}
	return m
}
