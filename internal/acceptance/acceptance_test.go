package acceptance

import "testing"

func TestEnabled(t *testing.T) {
	for _, c := range []struct {
		env, name string
		want      bool
	}{
		{"", "soak", false},
		{"all", "soak", true},
		{"1", "soak", true},
		{"flood,soak", "soak", true},
		{"flood, soak", "soak", true},
		{"flood", "soak", false},
		{"soakx", "soak", false},
	} {
		t.Setenv(Env, c.env)
		if got := Enabled(c.name); got != c.want {
			t.Errorf("%s=%q Enabled(%q) = %v, want %v", Env, c.env, c.name, got, c.want)
		}
	}
}
