package msg_test

import (
	"fmt"

	"github.com/snapwire/snapwire/internal/q3/msg"
)

// An entity's delta against the state the client already has, as it
// rides in a snapshot (ioq3 MSG_WriteDeltaEntity), and the client's
// reading of it. Only the fields up to the last one changed are listed,
// an unchanged field costs one bit, and an integral coordinate takes 13
// bits instead of 32.
func Example() {
	from := msg.EntityState{Number: 42, ModelIndex: 5}
	from.Pos.Base = [3]float32{100, 200, 24}
	to := from
	to.Pos.Base[0] = 132
	to.Angles[1] = 90

	w := msg.NewWriter(make([]byte, msg.MaxMsgLen), msg.MaxMsgLen)
	msg.WriteDeltaEntity(w, &from, &to, false)
	fmt.Println(msg.EntityChanges(&from, &to), "fields listed,", w.Bits(), "bits", w.Err())

	r := msg.NewReader(w.Bytes())
	var got msg.EntityState
	num := msg.EntityNum(r.ReadBits(msg.GEntityNumBits))
	removed, lc := msg.ReadDeltaEntity(r, &from, &got, num)
	fmt.Printf("entity %d: removed %v, through %s, equal %v, %v\n", num, removed, msg.EntityFieldName(lc-1), got == to, r.Err())
	// Output:
	// 22 fields listed, 72 bits <nil>
	// entity 42: removed false, through angles[1], equal true, <nil>
}
