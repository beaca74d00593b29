// Package snapshot implements the snapshot layer of the DOOM III network
// architecture (DOOM III network architecture, van Waveren 2006, §3.2, §4.2, §8): the PVS bit string, the
// per-client common base, and the snapshot codec that delta-compresses
// entity states against that base.
//
// It sits between the game (package game: entities write their own state
// through bitmsg.DeltaWriter) and the message channel (package netchan,
// which compresses and carries the snapshot and the reliable "apply"
// messages). The server keeps one Encoder per client, the client one
// Decoder.
//
// # Common base (DOOM III §4.2)
//
// Each end holds a CommonBase per client: for every entity number its type
// and state, the non-PVS states, the PVS of the last applied snapshot and
// that snapshot's sequence number. Both ends initialise it from the map's
// entities right after loading (§8, CommonBase.Init), so entities that never
// change are never sent. A snapshot is encoded against the base; an entity
// whose encoding equals its base state is omitted (costs 0 bits), a changed
// one costs a 0 bit per unchanged variable. Because the base survives an
// entity leaving the PVS, an entity that re-enters costs only its changed
// variables (Quake 3 sends it in full).
//
// # Applying snapshots
//
// Build records the full new state of every entity and non-PVS state
// written in snapshot S (not the delta) and S's PVS, as pending under S.
// When the client's acknowledgement of S arrives, Encoder.Ack applies S to
// the server's base if S is newer than the last applied snapshot and still
// pending: each entity written in S takes S's state and type, the other
// entities keep theirs, the PVS becomes S's. Older pending snapshots are
// dropped (they can never be applied: the base has moved past them); newer
// ones stay. Ack returns ApplyMessage{S}, which the server queues as a
// reliable message. Late, duplicate and unknown acks change nothing.
//
// The client keeps the same pending ring (Decode stores what it read) and
// applies S when the reliable "apply S" arrives (Decoder.Apply). Both ends
// therefore apply the same snapshots in the same order with the same
// contents, so their bases stay equal (CommonBase.Hash), even though a
// snapshot built before an apply was encoded against the older base: its
// pending states are full states, independent of that base. The channel
// delivers a reliable message before the unreliable payload of its packet
// and drops unreliable messages that arrive out of order, so the client
// decodes every snapshot with the base the server encoded it against; each
// header carries that base's sequence number, and a mismatch is
// ErrBaseMismatch rather than silent corruption. Both rings hold RingSize
// snapshots: the server applies only a snapshot still in its ring, so it
// built fewer than RingSize snapshots since, and the "apply" precedes all
// of them at the client, which therefore still holds S.
//
// # Snapshot layout (bitmsg, LSB first)
//
//	header
//	  seq            32  snapshot sequence number (first is 1)
//	  base age        6  seq - baseSeq when below 63; 63 = escape, then
//	  base seq       32    (only after the escape) the base's last applied snapshot
//	  frame          32  game frame, 0..2^31-1
//	  time           32  game time in ms
//	  duplicated      8  client commands duplicated since the last snapshot, saturating
//	  lead           16  signed ms the client's commands arrived early, -32767..32767
//	PVS delta (PVS.WriteDelta)
//	  changed         1  0: the PVS equals the base PVS, nothing else follows
//	  mask          128  (only if changed) bit i: chunk i (entities 32i..32i+31)
//	                     differs from the base PVS
//	  chunks      32×k   (only if changed) the new value of each changed chunk, ascending
//	entities, for each entity of the PVS whose encoding differs from the base,
//	ascending:
//	  next         1..26 PVS members passed over since the previous written
//	                     entity, k: "0" for k = 0, else "1" and ExpGolomb(k)
//	                     (header.go, writeNext)
//	  spawn           1  1 if the base has no state for the entity or one of
//	                     another type; the delta is then against an empty state
//	  type      TypeBits  (only if spawn) TypeBits(reg) = BitsFor(MaxTypeID(reg))
//	  delta          ..  the entity's WriteSnapshot through a DeltaWriter:
//	                     per variable 0, or 1 and its encoding
//	  end             2  "11": end of entities
//	non-PVS states, for each StateID in order:
//	  changed         1  then, if 1, the state's delta as for entities
//	other players' latest commands, for each in the PVS, ascending:
//	  next         1..26 PVS members passed over since the previous command's entity
//	  command     6..78  usercmd.WriteDelta against the previous command
//	                     in this list (the first against the zero command)
//	  end             2  "11"
//	unreliable events, at most MaxEvents:
//	  more            1  1
//	  event     64+len   events.Write: entity 12, id 8, frame 32, length 12, payload
//	  more            1  0
//
// An entity in the PVS and not written takes its base state; a written
// entity that the base lacks must carry the spawn flag; entities leave the
// client's view (removed or out of sight) by leaving the PVS. A snapshot in
// which nothing changed costs HeaderBits + PVSBaseBits + 5 + NumStates bits.
// The next and end codes are ours (the paper does not say how a snapshot
// names the entities it writes).
//
// The PVS changed flag is our improvement over the paper: DOOM III §4.2
// always writes the 128-bit chunk mask ("if no entities entered or left the
// PVS this results in just 16 bytes"); the flag makes that common case 1
// bit. A set flag with an all-zero mask is not canonical (ErrCorrupt).
//
// # Sharing a frame's encoding between clients
//
// Every client's snapshot of a frame sees the same entity states. With a
// FrameCache in Input.Cache, each visible entity is written through its
// WriteSnapshot once per frame (its state bits and bitlayout.Layout kept), and
// every client's Build omits an entity whose state bits equal its base's
// after a memory compare and writes a changed one with
// the layout replay of internal/bitlayout: the same bits as the DeltaWriter path.
// Skips count PVS members rather than entity numbers: they are short where
// many entities change and cannot name an entity outside the PVS.
package snapshot
