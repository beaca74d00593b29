package snapshot

// Retract undoes the Build that returned header h, the last one, when its
// snapshot is not to be sent (the server's budget by priority builds again
// with fewer entities when one exceeds the client's byte budget): nothing of
// it stays pending and the next Build uses its sequence number again, as
// after a Build that failed. It reports false, changing nothing, when h is
// not the last Build's or that snapshot was acknowledged.
//
// Retracting instead of building into a writer cut to the budget keeps the
// overflow off the error path, which formats (allocates) its error.
func (e *Encoder) Retract(h Header) bool {
	if h.Seq != e.next-1 {
		return false
	}
	p := e.ring.find(h.Seq)
	if p == nil {
		return false
	}
	p.valid = false
	e.ring.live &^= 1 << (h.Seq % RingSize)
	e.next--
	return true
}
