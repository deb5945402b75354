module github.com/chitta-go/chitta/bench/peers

go 1.25

require (
	github.com/chitta-go/chitta v0.1.0
	github.com/philippgille/chromem-go v0.7.0
)

require (
	github.com/chewxy/math32 v1.10.1 // indirect
	github.com/coder/hnsw v0.6.2-0.20250730165321-c271e58cdc9a // indirect
	github.com/google/renameio v1.0.1 // indirect
	github.com/viterin/partial v1.1.0 // indirect
	github.com/viterin/vek v0.4.3 // indirect
	golang.org/x/exp v0.0.0-20240506185415-9bf2ced13842 // indirect
	golang.org/x/sys v0.11.0 // indirect
)

replace github.com/chitta-go/chitta => ../..
