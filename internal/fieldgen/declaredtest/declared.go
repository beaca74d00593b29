// Package declaredtest holds declared types that use every tag of the field generator
// (internal/fieldgen), with the code snapgen wrote for them (snap_gen.go): its tests run that
// code on hostile input and count its allocations.
package declaredtest

//go:generate go run github.com/snapwire/snapwire/snapgen

// Bounds of the declarations, used verbatim in the generated code.
const (
	MaxHealth       = 200
	MaxName         = 16
	MaxItems        = 8
	Speed     int16 = 400 // a typed constant: the generated code converts it
)

// Mode is an enum: its range is its constants'.
type Mode uint8

// Modes.
const (
	ModeIdle Mode = iota
	ModeRun
	ModeJump
)

// Everything is an entity with a field of every kind.
//
//snap:entity
type Everything struct {
	Alive  bool
	U8     uint8
	U16    uint16
	U32    uint32
	U64    uint64
	I8     int8
	I16    int16
	I32    int32
	I64    int64
	HP     int32          `snap:"bits=8"`
	Flags  uint16         `snap:"bits=3"`
	Health int16          `snap:"min=-10,max=MaxHealth"`
	Mode   Mode           `snap:"enum"`
	X      float32        // full float32
	XC     float32        `snap:"min=-4096,max=4096"`
	V      float32        `snap:"half"`
	VC     float32        `snap:"half,min=-Speed,max=Speed"`
	Q      float32        `snap:"min=-4096,max=4096,step=0.125"`
	Yaw    float32        `snap:"angle16"`
	Pitch  float32        `snap:"angle8"`
	Name   string         `snap:"max=MaxName"`
	Ammo   [4]uint8       `snap:"bits=6"`
	Count  uint8          `snap:"min=0,max=MaxItems+2"` // may exceed the array: the reader bounds it
	Items  [MaxItems]Item `snap:"len=Count"`
	Pos    Vec
	Cache  int `snap:"-"` // not sent
}

// Item is a nested struct in an array.
type Item struct {
	Kind   Mode  `snap:"enum"`
	Amount int32 `snap:"min=0,max=999"`
}

// Vec is a nested struct of quantised floats.
type Vec struct {
	X, Y float32 `snap:"min=-100,max=100,step=0.5"`
}

// Chat is a game message.
//
//snap:message
type Chat struct {
	Channel uint8  `snap:"bits=2"`
	Text    string `snap:"max=120"`
}
