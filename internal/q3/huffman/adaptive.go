package huffman

// The adaptive coder (Quake 3 protocol description, Fedoryński: "Huffman compression"):
// the FGK-style algorithm from Sayood's book as ioq3 code/qcommon/huffman.c
// implements it. Ranks are implicit in a doubly linked list of nodes ordered
// by weight; each block of equal weight has a shared "head" slot that points
// at the highest-ranked node of the block. Reproducing the engine's exact
// sequence of swaps is what makes the codes, and so the bits, identical, so
// this file follows the engine's update order step by step (indices instead
// of pointers).

const (
	symbolNYT      = 256 // not-yet-transmitted escape (ioq3 NYT = HMAX)
	symbolInternal = 257 // internal node marker (ioq3 INTERNAL_NODE)
	maxNodes       = 768 // ioq3 HMAX*3
	nilIdx         = -1
)

type node struct {
	left, right, parent int32
	next, prev          int32 // rank list: next has higher or equal weight
	head                int32 // slot in tree.slots holding the block head
	weight              int32
	symbol              int32
}

// tree is one adaptive Huffman tree (ioq3 huff_t).
type tree struct {
	nodes    [maxNodes]node
	nused    int32
	slots    [maxNodes]int32 // a node index, or the next free slot when free
	sused    int32
	freelist int32
	root     int32
	lhead    int32 // the NYT node, lowest rank
	loc      [symbolNYT + 1]int32
	stack    [maxNodes]int32 // scratch for increment
}

func (t *tree) init() {
	t.nused = 0
	t.sused = 0
	t.freelist = nilIdx
	for i := range t.loc {
		t.loc[i] = nilIdx
	}
	n := t.alloc()
	t.nodes[n] = node{left: nilIdx, right: nilIdx, parent: nilIdx, next: nilIdx, prev: nilIdx, head: nilIdx, symbol: symbolNYT}
	t.root, t.lhead = n, n
	t.loc[symbolNYT] = n
}

func (t *tree) alloc() int32 {
	n := t.nused
	t.nused++
	return n
}

// getSlot and freeSlot are ioq3 get_ppnode / free_ppnode.
func (t *tree) getSlot() int32 {
	if t.freelist == nilIdx {
		s := t.sused
		t.sused++
		return s
	}
	s := t.freelist
	t.freelist = t.slots[s]
	return s
}

func (t *tree) freeSlot(s int32) {
	t.slots[s] = t.freelist
	t.freelist = s
}

// swap exchanges the positions of two nodes in the tree (ioq3 swap).
func (t *tree) swap(n1, n2 int32) {
	p1 := t.nodes[n1].parent
	p2 := t.nodes[n2].parent
	if p1 != nilIdx {
		if t.nodes[p1].left == n1 {
			t.nodes[p1].left = n2
		} else {
			t.nodes[p1].right = n2
		}
	} else {
		t.root = n2
	}
	if p2 != nilIdx {
		if t.nodes[p2].left == n2 {
			t.nodes[p2].left = n1
		} else {
			t.nodes[p2].right = n1
		}
	} else {
		t.root = n1
	}
	t.nodes[n1].parent = p2
	t.nodes[n2].parent = p1
}

// swapList exchanges two nodes in the rank list (ioq3 swaplist).
func (t *tree) swapList(n1, n2 int32) {
	a, b := &t.nodes[n1], &t.nodes[n2]
	a.next, b.next = b.next, a.next
	a.prev, b.prev = b.prev, a.prev
	if a.next == n1 {
		a.next = n2
	}
	if b.next == n2 {
		b.next = n1
	}
	if a.next != nilIdx {
		t.nodes[a.next].prev = n1
	}
	if b.next != nilIdx {
		t.nodes[b.next].prev = n2
	}
	if a.prev != nilIdx {
		t.nodes[a.prev].next = n1
	}
	if b.prev != nilIdx {
		t.nodes[b.prev].next = n2
	}
}

// increment adds one to a node's weight and restores the sibling property
// (ioq3 increment). It walks to the root iteratively where the engine
// recurses; the per-node post-step is kept in order with a small stack.
func (t *tree) increment(n int32) {
	stack := &t.stack
	depth := 0
	for n != nilIdx {
		nd := &t.nodes[n]
		if nd.next != nilIdx && t.nodes[nd.next].weight == nd.weight {
			l := t.slots[nd.head]
			if l != nd.parent {
				t.swap(l, n)
			}
			t.swapList(l, n)
		}
		if nd.prev != nilIdx && t.nodes[nd.prev].weight == nd.weight {
			t.slots[nd.head] = nd.prev
		} else {
			t.slots[nd.head] = nilIdx
			t.freeSlot(nd.head)
		}
		nd.weight++
		if nd.next != nilIdx && t.nodes[nd.next].weight == nd.weight {
			nd.head = t.nodes[nd.next].head
		} else {
			nd.head = t.getSlot()
			t.slots[nd.head] = n
		}
		if nd.parent == nilIdx {
			break
		}
		stack[depth] = n
		depth++
		n = nd.parent
	}
	// The engine's post-recursion step, innermost call last in, first out.
	for depth > 0 {
		depth--
		c := stack[depth]
		cn := &t.nodes[c]
		if cn.prev == cn.parent {
			t.swapList(c, cn.parent)
			if t.slots[cn.head] == c {
				t.slots[cn.head] = cn.parent
			}
		}
	}
}

// addRef records one more occurrence of ch (ioq3 Huff_addRef).
func (t *tree) addRef(ch byte) {
	if t.loc[ch] != nilIdx {
		t.increment(t.loc[ch])
		return
	}
	// First occurrence: split the NYT node into NYT (left) and an internal
	// node whose right child is the new leaf.
	tn := t.alloc()
	tn2 := t.alloc()
	lh := t.lhead

	t.nodes[tn2] = node{symbol: symbolInternal, weight: 1, next: t.nodes[lh].next, head: nilIdx}
	if nx := t.nodes[lh].next; nx != nilIdx {
		t.nodes[nx].prev = tn2
		if t.nodes[nx].weight == 1 {
			t.nodes[tn2].head = t.nodes[nx].head
		} else {
			t.nodes[tn2].head = t.getSlot()
			t.slots[t.nodes[tn2].head] = tn2
		}
	} else {
		t.nodes[tn2].head = t.getSlot()
		t.slots[t.nodes[tn2].head] = tn2
	}
	t.nodes[lh].next = tn2
	t.nodes[tn2].prev = lh

	t.nodes[tn] = node{symbol: int32(ch), weight: 1, next: t.nodes[lh].next, head: nilIdx, left: nilIdx, right: nilIdx}
	if nx := t.nodes[lh].next; nx != nilIdx {
		t.nodes[nx].prev = tn
		if t.nodes[nx].weight == 1 {
			t.nodes[tn].head = t.nodes[nx].head
		} else {
			// "this should never happen" in the engine; kept for fidelity.
			t.nodes[tn].head = t.getSlot()
			t.slots[t.nodes[tn].head] = tn2
		}
	} else {
		t.nodes[tn].head = t.getSlot()
		t.slots[t.nodes[tn].head] = tn
	}
	t.nodes[lh].next = tn
	t.nodes[tn].prev = lh

	if p := t.nodes[lh].parent; p != nilIdx {
		if t.nodes[p].left == lh {
			t.nodes[p].left = tn2
		} else {
			t.nodes[p].right = tn2
		}
	} else {
		t.root = tn2
	}
	t.nodes[tn2].right = tn
	t.nodes[tn2].left = lh
	t.nodes[tn2].parent = t.nodes[lh].parent
	t.nodes[lh].parent = tn2
	t.nodes[tn].parent = tn2
	t.loc[ch] = tn
	t.increment(t.nodes[tn2].parent)
}

// code returns the prefix code of a leaf: bit i of the result is the i-th
// bit sent (root first), a 1 meaning "right child" (ioq3 send()).
func (t *tree) code(leaf int32) (code uint32, n int) {
	var path [maxNodes]uint8
	for c := leaf; t.nodes[c].parent != nilIdx; c = t.nodes[c].parent {
		p := t.nodes[c].parent
		if t.nodes[p].right == c {
			path[n] = 1
		} else {
			path[n] = 0
		}
		n++
	}
	for i := 0; i < n; i++ {
		code |= uint32(path[n-1-i]) << i
	}
	return code, n
}
