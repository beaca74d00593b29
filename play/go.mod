module github.com/snapwire/snapwire/play

go 1.26.0

require (
	github.com/hajimehoshi/ebiten/v2 v2.8.8
	github.com/snapwire/snapwire v0.0.0-00010101000000-000000000000
)

require (
	github.com/ebitengine/gomobile v0.0.0-20240911145611-4856209ac325 // indirect
	github.com/ebitengine/hideconsole v1.0.0 // indirect
	github.com/ebitengine/purego v0.8.0 // indirect
	github.com/jezek/xgb v1.1.1 // indirect
	golang.org/x/crypto v0.58.0 // indirect
	golang.org/x/sync v0.22.0 // indirect
	golang.org/x/sys v0.49.0 // indirect
)

// The window is developed beside the library; go.work at the repository's
// root makes the same choice for commands run from there.
replace github.com/snapwire/snapwire => ../
