module github.com/snapwire/snapwire

go 1.25
