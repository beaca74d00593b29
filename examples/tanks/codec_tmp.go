package tanks

// Temporary hand-written codecs until snapgen lands (replaced by tanks_snap.go).

import (
	"github.com/snapwire/snapwire/bitmsg"
	"github.com/snapwire/snapwire/game"
)

func (t *Tank) WriteSnapshot(w *bitmsg.DeltaWriter) {
	w.WriteRangedInt(int32(t.X*16), 0, FieldSize*16)
	w.WriteRangedInt(int32(t.Y*16), 0, FieldSize*16)
	w.WriteUint8(t.Heading)
	w.WriteRangedInt(t.Reload, 0, ReloadFrames)
	w.WriteRangedInt(t.HP, 0, MaxHP)
	w.WriteRangedInt(t.Score, 0, 999)
	w.WriteUint32(uint32(t.Respawn))
	w.WriteBits(uint32(t.Driver), 4)
}
func (t *Tank) ReadSnapshot(r *bitmsg.DeltaReader) {
	t.X = float32(r.ReadRangedInt(0, FieldSize*16)) / 16
	t.Y = float32(r.ReadRangedInt(0, FieldSize*16)) / 16
	t.Heading = r.ReadUint8()
	t.Reload = r.ReadRangedInt(0, ReloadFrames)
	t.HP = r.ReadRangedInt(0, MaxHP)
	t.Score = r.ReadRangedInt(0, 999)
	t.Respawn = game.Frame(r.ReadUint32())
	t.Driver = game.ClientNum(r.ReadBits(4))
}
func (s *Shell) WriteSnapshot(w *bitmsg.DeltaWriter) {
	w.WriteRangedInt(int32(s.X*16), 0, FieldSize*16)
	w.WriteRangedInt(int32(s.Y*16), 0, FieldSize*16)
	w.WriteRangedInt(s.VX, -ShellSpeed, ShellSpeed)
	w.WriteRangedInt(s.VY, -ShellSpeed, ShellSpeed)
	w.WriteUint32(uint32(s.Expire))
	w.WriteBits(uint32(s.FiredBy), 12)
}
func (s *Shell) ReadSnapshot(r *bitmsg.DeltaReader) {
	s.X = float32(r.ReadRangedInt(0, FieldSize*16)) / 16
	s.Y = float32(r.ReadRangedInt(0, FieldSize*16)) / 16
	s.VX = r.ReadRangedInt(-ShellSpeed, ShellSpeed)
	s.VY = r.ReadRangedInt(-ShellSpeed, ShellSpeed)
	s.Expire = game.Frame(r.ReadUint32())
	s.FiredBy = game.EntityNum(r.ReadBits(12))
}
func (c *Crate) WriteSnapshot(w *bitmsg.DeltaWriter) {
	w.WriteRangedInt(c.HP, 0, MaxHP)
	w.WriteUint32(uint32(c.Respawn))
	w.WriteRangedInt(int32(c.X*16), 0, FieldSize*16)
	w.WriteRangedInt(int32(c.Y*16), 0, FieldSize*16)
}
func (c *Crate) ReadSnapshot(r *bitmsg.DeltaReader) {
	c.HP = r.ReadRangedInt(0, MaxHP)
	c.Respawn = game.Frame(r.ReadUint32())
	c.X = float32(r.ReadRangedInt(0, FieldSize*16)) / 16
	c.Y = float32(r.ReadRangedInt(0, FieldSize*16)) / 16
}

func (m *KillFeed) WriteMessage(w *bitmsg.Writer) {
	w.WriteBits(uint32(m.Killer), 4)
	w.WriteBits(uint32(m.Victim), 4)
}
func (m *KillFeed) ReadMessage(r *bitmsg.Reader) {
	m.Killer, m.Victim = game.ClientNum(r.ReadBits(4)), game.ClientNum(r.ReadBits(4))
}

func (m *Chat) WriteMessage(w *bitmsg.Writer) { w.WriteString(m.Text, 60) }
func (m *Chat) ReadMessage(r *bitmsg.Reader)  { m.Text = r.ReadString(60) }
func (m *ChatLine) WriteMessage(w *bitmsg.Writer) {
	w.WriteBits(uint32(m.From), 4)
	w.WriteString(m.Text, 60)
}
func (m *ChatLine) ReadMessage(r *bitmsg.Reader) {
	m.From = game.ClientNum(r.ReadBits(4))
	m.Text = r.ReadString(60)
}
