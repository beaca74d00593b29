package bench

import "testing"

// The scale points: every visible count with one and two workers, the two workers' snapshots
// equal to the serial ones (measureScale fails otherwise), and client counts that follow from
// the measured costs.
func TestScale(t *testing.T) {
	if testing.Short() {
		t.Skip("builds 256 clients' snapshots of the 64p scenario")
	}
	f := getFixture(t, "64p")
	pts, err := measureScale(f.rec, f.base, 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(pts) != 2*len(ScaleVisible) {
		t.Fatalf("%d points", len(pts))
	}
	for i, p := range pts {
		if p.Visible != ScaleVisible[i/2] || p.Workers != 1+i%2 || p.NsPerClientSnapshot <= 0 || p.MaxClients <= 0 {
			t.Errorf("point %d: %+v", i, p)
		}
		if p.Workers == 2 && !p.Identical {
			t.Errorf("point %d: not compared", i)
		}
		want := int((1e9 - FrameRate*f.rec.FrameNS) / (SnapshotRate * (p.NsPerClientSnapshot + f.rec.VisibleNS)))
		if p.MaxClients != want {
			t.Errorf("point %d: %d clients, the costs give %d", i, p.MaxClients, want)
		}
		t.Logf("%d visible, %d workers: %.1f µs per client-snapshot, %d clients", p.Visible, p.Workers, p.NsPerClientSnapshot/1000, p.MaxClients)
	}
}
