package oob

import (
	"errors"
	"fmt"
	"strings"
)

// Info string limits (ioq3 q_shared.h).
const (
	MaxInfoString   = 1024 // MAX_INFO_STRING: userinfo, serverinfo, infoResponse
	BigInfoString   = 8192 // BIG_INFO_STRING: systeminfo
	MaxInfoKey      = 1024 // MAX_INFO_KEY
	MaxInfoValue    = 1024 // MAX_INFO_VALUE
	maxStringTokens = 1024 // MAX_STRING_TOKENS
	maxStringChars  = 1024 // MAX_STRING_CHARS
)

// ErrInfo is a malformed or oversized info string.
var ErrInfo = errors.New("oob: bad info string")

// KV is one key/value pair of an info string.
type KV struct{ Key, Value string }

// Info is an info string ("\key\value\key\value..."), pairs in order.
type Info []KV

// ParseInfo splits an info string, rejecting one of max bytes or more (the
// engine's Info_ValueForKey limit check), keys or values of MaxInfoKey /
// MaxInfoValue bytes or more, and a key without a value. A leading
// backslash is optional, as in the engine.
func ParseInfo(s string, max int) (Info, error) {
	if len(s) >= max {
		return nil, fmt.Errorf("%w: %d bytes, limit %d", ErrInfo, len(s), max)
	}
	s = strings.TrimPrefix(s, "\\")
	if s == "" {
		return Info{}, nil
	}
	parts := strings.Split(s, "\\")
	if len(parts)%2 != 0 {
		return nil, fmt.Errorf("%w: key %q has no value", ErrInfo, parts[len(parts)-1])
	}
	info := make(Info, 0, len(parts)/2)
	for i := 0; i < len(parts); i += 2 {
		k, v := parts[i], parts[i+1]
		if len(k) >= MaxInfoKey || len(v) >= MaxInfoValue {
			return nil, fmt.Errorf("%w: key or value too long", ErrInfo)
		}
		info = append(info, KV{k, v})
	}
	return info, nil
}

// Get returns the value of key (case-insensitive, as ioq3 Info_ValueForKey)
// and whether it is present.
func (in Info) Get(key string) (string, bool) {
	for _, kv := range in {
		if strings.EqualFold(kv.Key, key) {
			return kv.Value, true
		}
	}
	return "", false
}

// Value returns the value of key or "".
func (in Info) Value(key string) string {
	v, _ := in.Get(key)
	return v
}

// Set replaces or appends key. Keys and values may not hold '\\', ';' or
// '"' (ioq3 Info_SetValueForKey).
func (in *Info) Set(key, value string) error {
	if strings.ContainsAny(key, "\\;\"") || strings.ContainsAny(value, "\\;\"") {
		return fmt.Errorf("%w: can't use keys or values with a \\, ; or \"", ErrInfo)
	}
	for i, kv := range *in {
		if strings.EqualFold(kv.Key, key) {
			(*in)[i].Value = value
			return nil
		}
	}
	*in = append(*in, KV{key, value})
	return nil
}

// String renders "\k\v..." (the engine's form, leading backslash).
func (in Info) String() string {
	var b strings.Builder
	for _, kv := range in {
		b.WriteByte('\\')
		b.WriteString(kv.Key)
		b.WriteByte('\\')
		b.WriteString(kv.Value)
	}
	return b.String()
}

// Map returns the pairs as a map (later duplicates win).
func (in Info) Map() map[string]string {
	m := make(map[string]string, len(in))
	for _, kv := range in {
		m[kv.Key] = kv.Value
	}
	return m
}
