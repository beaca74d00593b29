package netchan

// XOR obfuscation of the legacy framing (Quake 3 protocol description, Fedoryński: XOR
// keys; ioq3 code/server/sv_net_chan.c SV_Netchan_Encode/Decode and
// code/client/cl_net_chan.c CL_Netchan_Encode/Decode). It works on the
// message without its netchan header, after Huffman coding and before
// fragmentation. The key is a single byte that evolves along the message:
//
//	key = byte(challenge ^ x)
//	for i from start: key ^= c << (i & 1); msg[i] ^= key
//
// where c walks the acknowledged command text cyclically ('%' and bytes
// above 127 count as '.', an empty text contributes 0). XOR is its own
// inverse, so each function both scrambles and unscrambles.

const (
	serverEncodeStart = 4  // SV_ENCODE_START: reliableAcknowledge stays clear
	clientEncodeStart = 12 // CL_ENCODE_START: serverId, messageAck, reliableAck stay clear
	maxCommandChars   = 1024
)

// ServerXOR scrambles a server-to-client message in place: x is the
// netchan sequence the message is sent with, text the last client command
// the server executed (the one numbered by the message's reliableAcknowledge).
func ServerXOR(msg []byte, challenge, sequence int32, lastClientCommand string) {
	scramble(msg, serverEncodeStart, byte(challenge^sequence), lastClientCommand)
}

// ClientXOR scrambles a client-to-server message in place: x is
// serverId ^ messageAcknowledge (the message's first two longs), text the
// server command numbered by its reliableAcknowledge.
func ClientXOR(msg []byte, challenge, serverID, messageAck int32, lastServerCommand string) {
	scramble(msg, clientEncodeStart, byte(challenge^serverID^messageAck), lastServerCommand)
}

func scramble(msg []byte, start int, key byte, text string) {
	if len(text) >= maxCommandChars { // the engine keeps commands in 1024-byte buffers
		text = text[:maxCommandChars-1]
	}
	for k := 0; k < len(text); k++ { // a C string ends at its first NUL
		if text[k] == 0 {
			text = text[:k]
			break
		}
	}
	index := 0
	for i := start; i < len(msg); i++ {
		if index >= len(text) {
			index = 0
		}
		var c byte
		if len(text) > 0 {
			c = text[index]
			if c > 127 || c == '%' {
				c = '.'
			}
		}
		key ^= c << uint(i&1)
		index++
		msg[i] ^= key
	}
}
