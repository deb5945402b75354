package brief

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/chitta-go/chitta"
)

// FuzzBuild: whatever the conversation says, Extract returns non-empty
// items of at most MaxItemRunes (+ "…") runes, and the brief stays under
// its caps (in tokens, and in characters with MaxChars) and carries every
// item it lists verbatim.
func FuzzBuild(f *testing.F) {
	f.Add("Never push to main. See ./cmd/x.go and https://e.x/a", "go test ./... && rm -rf /tmp/x", "--- FAIL: TestX (0.1s)\npanic: boom", uint16(150))
	f.Add("`a` `b` 1 ms 2 MB 3% snake_case camelCase pkg.Func", "", "", uint16(100))
	f.Add(strings.Repeat("é/", 500), strings.Repeat("x", 1000), "\xff\xfe error", uint16(2000))
	f.Fuzz(func(t *testing.T, prompt, command, output string, capTokens uint16) {
		turns := transcript(t,
			"user", prompt,
			"assistant", toolUse("t1", "Bash", map[string]any{"command": command}),
			"user", toolResult("t1", output, false),
			"assistant", text(prompt+" "+output),
		)
		tools := ToolNames(turns)
		for i := range turns {
			for _, a := range Extract(&turns[i], tools) {
				if strings.TrimSpace(a.Text) == "" {
					t.Fatalf("empty %s artifact", a.Kind)
				}
				if n := utf8.RuneCountInString(a.Text); n > MaxItemRunes+1 {
					t.Fatalf("%s artifact of %d runes", a.Kind, n)
				}
			}
		}
		scores := make([]chitta.TurnScore, len(turns))
		for i := range scores {
			scores[i] = chitta.TurnScore{Index: i, Score: float64(i % 3), Kept: i%2 == 0}
		}
		cp := 100 + int(capTokens)%4000
		b, err := Build(turns, scores, []string{prompt}, &Options{MaxTokens: cp})
		if err != nil {
			t.Fatal(err)
		}
		if b.Tokens > cp || chitta.EstimateTokens(b.Text) != b.Tokens {
			t.Fatalf("brief of %d tokens (estimate %d) over the cap %d", b.Tokens, chitta.EstimateTokens(b.Text), cp)
		}
		for _, it := range b.Items {
			if !strings.Contains(b.Text, it.Text) {
				t.Fatalf("item %q not in the brief", it.Text)
			}
		}
		capChars := 50 + int(capTokens)%3000
		c, err := Build(turns, scores, []string{prompt}, &Options{MaxTokens: cp, MaxChars: capChars})
		if err != nil {
			t.Fatal(err)
		}
		if n := Chars(c.Text); n > capChars || c.Tokens > cp {
			t.Fatalf("brief of %d characters, %d tokens over the caps %d, %d", n, c.Tokens, capChars, cp)
		}
	})
}
