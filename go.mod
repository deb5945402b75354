module github.com/chitta-go/chitta

go 1.25

require (
	github.com/stretchr/testify v1.12.1
	github.com/viterin/vek v0.4.3
)

require (
	github.com/chewxy/math32 v1.10.1 // indirect
	github.com/viterin/partial v1.1.0 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
	golang.org/x/exp v0.0.0-20230817173708-d852ddb80c63 // indirect
	golang.org/x/sys v0.11.0 // indirect
)
