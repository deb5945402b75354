//go:build !unix

package main

// rssChildEnv and rssChild stand in for rss_test.go's on systems without
// getrusage: the RSS tests do not exist there.
const rssChildEnv = "CHITTA_TEST_RSS_CHILD"

func rssChild(string) int { return 2 }
