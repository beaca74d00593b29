package sample

func TestNotCounted() {}
