package main

import (
	"strings"
	"testing"
)

// --max-clients-per-ip: 4 by default, 1..1024, and it reaches the server
// config (TestSecureSquattersLeaveSlots in package server shows what it
// does to a secure server).
func TestServeMaxClientsPerIPFlag(t *testing.T) {
	base := "--listen 127.0.0.1:0 --insecure "
	o, err := parseServeFlags(strings.Fields(base))
	if err != nil || o.maxPerIP != 4 {
		t.Errorf("default: %d, %v", o.maxPerIP, err)
	}
	if o, err := parseServeFlags(strings.Fields(base + "--max-clients-per-ip 16")); err != nil || o.maxPerIP != 16 {
		t.Errorf("16: %d, %v", o.maxPerIP, err)
	}
	for _, v := range []string{"0", "-1", "1025"} {
		if _, err := parseServeFlags(strings.Fields(base + "--max-clients-per-ip " + v)); err == nil {
			t.Errorf("--max-clients-per-ip %s accepted", v)
		}
	}
}
