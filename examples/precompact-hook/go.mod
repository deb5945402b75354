module github.com/chitta-go/chitta/examples/precompact-hook

go 1.25.0

replace (
	github.com/chitta-go/chitta => ../..
	github.com/chitta-go/chitta/pgstore => ../../pgstore
)

require (
	github.com/chitta-go/chitta v0.1.0
	github.com/chitta-go/chitta/pgstore v0.1.0
	github.com/stretchr/testify v1.12.1
)

require (
	github.com/chewxy/math32 v1.10.1 // indirect
	github.com/coder/hnsw v0.6.2-0.20250730165321-c271e58cdc9a // indirect
	github.com/google/renameio v1.0.1 // indirect
	github.com/jackc/pgpassfile v1.0.0 // indirect
	github.com/jackc/pgservicefile v0.0.0-20240606120523-5a60cdf6a761 // indirect
	github.com/jackc/pgx/v5 v5.13.0 // indirect
	github.com/jackc/puddle/v2 v2.2.3 // indirect
	github.com/pgvector/pgvector-go v0.3.0 // indirect
	github.com/viterin/partial v1.1.0 // indirect
	github.com/viterin/vek v0.4.3 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
	golang.org/x/exp v0.0.0-20240506185415-9bf2ced13842 // indirect
	golang.org/x/sync v0.22.0 // indirect
	golang.org/x/sys v0.31.0 // indirect
	golang.org/x/text v0.41.0 // indirect
)
