package sample

import "io"

const C, c = 1, 2

var V, v int

func F() {}
func f() {}

type T struct {
	Field int
	field int
	io.Reader
}

type t struct{ Field int }

func (T) M() {}
func (T) m() {}
func (t) M() {}

type I interface {
	Do()
	do()
}

type Alias = T
