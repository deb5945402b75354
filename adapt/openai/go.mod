module github.com/chitta-go/chitta/adapt/openai

go 1.26.0

require (
	github.com/chitta-go/chitta v0.1.0
	github.com/openai/openai-go/v3 v3.102.0
	github.com/stretchr/testify v1.12.1
)

require (
	github.com/chewxy/math32 v1.10.1 // indirect
	github.com/coder/hnsw v0.6.2-0.20250730165321-c271e58cdc9a // indirect
	github.com/coder/websocket v1.8.15 // indirect
	github.com/google/renameio v1.0.1 // indirect
	github.com/tidwall/gjson v1.20.0 // indirect
	github.com/tidwall/match v1.1.1 // indirect
	github.com/tidwall/pretty v1.2.1 // indirect
	github.com/tidwall/sjson v1.2.5 // indirect
	github.com/viterin/partial v1.1.0 // indirect
	github.com/viterin/vek v0.4.3 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
	golang.org/x/exp v0.0.0-20240506185415-9bf2ced13842 // indirect
	golang.org/x/sys v0.48.0 // indirect
)

replace github.com/chitta-go/chitta => ../../
