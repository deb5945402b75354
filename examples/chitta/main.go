package main

import (
	_ "github.com/chitta-go/chitta"
	_ "github.com/modelcontextprotocol/go-sdk/mcp"
	_ "github.com/stretchr/testify/require"
)

func main() {}
