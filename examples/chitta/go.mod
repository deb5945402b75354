module github.com/chitta-go/chitta/examples/chitta

go 1.26

replace github.com/chitta-go/chitta => ../..

require (
	github.com/chitta-go/chitta v0.1.0
	github.com/chitta-go/chitta/pgstore v0.1.0
	github.com/chitta-go/chitta/tiktoken v0.1.0
	github.com/google/jsonschema-go v0.4.3
	github.com/jackc/pgx/v5 v5.13.0
	github.com/modelcontextprotocol/go-sdk v1.8.0
	github.com/stretchr/testify v1.12.1
)

require (
	github.com/chewxy/math32 v1.10.1 // indirect
	github.com/coder/hnsw v0.6.2-0.20250730165321-c271e58cdc9a // indirect
	github.com/dlclark/regexp2/v2 v2.5.1 // indirect
	github.com/google/renameio v1.0.1 // indirect
	github.com/jackc/pgpassfile v1.0.0 // indirect
	github.com/jackc/pgservicefile v0.0.0-20240606120523-5a60cdf6a761 // indirect
	github.com/jackc/puddle/v2 v2.2.3 // indirect
	github.com/pgvector/pgvector-go v0.3.0 // indirect
	github.com/segmentio/asm v1.1.3 // indirect
	github.com/segmentio/encoding v0.5.4 // indirect
	github.com/tiktoken-go/tokenizer v0.10.0 // indirect
	github.com/viterin/partial v1.1.0 // indirect
	github.com/viterin/vek v0.4.3 // indirect
	github.com/yosida95/uritemplate/v3 v3.0.2 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
	golang.org/x/exp v0.0.0-20240506185415-9bf2ced13842 // indirect
	golang.org/x/oauth2 v0.35.0 // indirect
	golang.org/x/sync v0.22.0 // indirect
	golang.org/x/sys v0.41.0 // indirect
	golang.org/x/text v0.41.0 // indirect
	golang.org/x/time v0.15.0 // indirect
)

replace github.com/chitta-go/chitta/pgstore => ../../pgstore

replace github.com/chitta-go/chitta/tiktoken => ../../tiktoken
