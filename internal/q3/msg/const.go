package msg

import "fmt"

// Engine limits (ioq3 q_shared.h / qcommon.h).
const (
	GEntityNumBits      = 10                      // GENTITYNUM_BITS
	MaxGEntities        = 1 << GEntityNumBits     // MAX_GENTITIES
	EntityNumNone       = MaxGEntities - 1        // ENTITYNUM_NONE: end of packet entities
	MaxConfigstrings    = 1024                    // MAX_CONFIGSTRINGS
	MaxGamestateChars   = 16000                   // MAX_GAMESTATE_CHARS
	MaxStats            = 16                      // MAX_STATS
	MaxPersistant       = 16                      // MAX_PERSISTANT
	MaxWeapons          = 16                      // MAX_WEAPONS
	MaxPowerups         = 16                      // MAX_POWERUPS
	MaxPSEvents         = 2                       // MAX_PS_EVENTS
	MaxMapAreaBytes     = 32                      // MAX_MAP_AREA_BYTES
	PacketBackup        = 32                      // PACKET_BACKUP: snapshots kept for deltas
	PacketMask          = PacketBackup - 1        // PACKET_MASK
	MaxReliableCommands = 64                      // MAX_RELIABLE_COMMANDS
	MaxPacketUsercmds   = 32                      // MAX_PACKET_USERCMDS
	MaxSnapshotEntities = 256                     // MAX_SNAPSHOT_ENTITIES
	floatIntBits        = 13                      // FLOAT_INT_BITS
	floatIntBias        = 1 << (floatIntBits - 1) // FLOAT_INT_BIAS
)

// Configstring indexes every Quake 3 game shares (ioq3 q_shared.h).
const (
	CSServerInfo = 0 // CS_SERVERINFO
	CSSystemInfo = 1 // CS_SYSTEMINFO
)

// SvcOp is a server-to-client message operation (ioq3 svc_ops_e).
type SvcOp uint8

// Server-to-client operations.
const (
	SvcBad           SvcOp = 0
	SvcNop           SvcOp = 1
	SvcGamestate     SvcOp = 2
	SvcConfigstring  SvcOp = 3 // only inside a gamestate
	SvcBaseline      SvcOp = 4 // only inside a gamestate
	SvcServerCommand SvcOp = 5
	SvcDownload      SvcOp = 6
	SvcSnapshot      SvcOp = 7
	SvcEOF           SvcOp = 8
	SvcVoipSpeex     SvcOp = 9  // ioq3 only
	SvcVoipOpus      SvcOp = 10 // ioq3 only
)

var svcNames = [...]string{"svc_bad", "svc_nop", "svc_gamestate", "svc_configstring", "svc_baseline",
	"svc_serverCommand", "svc_download", "svc_snapshot", "svc_EOF", "svc_voipSpeex", "svc_voipOpus"}

func (o SvcOp) String() string {
	if int(o) < len(svcNames) {
		return svcNames[o]
	}
	return fmt.Sprintf("svc_%d", uint8(o))
}

// ClcOp is a client-to-server message operation (ioq3 clc_ops_e).
type ClcOp uint8

// Client-to-server operations.
const (
	ClcBad           ClcOp = 0
	ClcNop           ClcOp = 1
	ClcMove          ClcOp = 2
	ClcMoveNoDelta   ClcOp = 3
	ClcClientCommand ClcOp = 4
	ClcEOF           ClcOp = 5
	ClcVoipSpeex     ClcOp = 6 // ioq3 only; not decoded here
	ClcVoipOpus      ClcOp = 7 // ioq3 only; not decoded here
)

var clcNames = [...]string{"clc_bad", "clc_nop", "clc_move", "clc_moveNoDelta", "clc_clientCommand",
	"clc_EOF", "clc_voipSpeex", "clc_voipOpus"}

func (o ClcOp) String() string {
	if int(o) < len(clcNames) {
		return clcNames[o]
	}
	return fmt.Sprintf("clc_%d", uint8(o))
}
