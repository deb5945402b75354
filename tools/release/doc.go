// Package release holds the version at which chitta's modules are published
// together, and the tests that check the repository can be published at it.
//
// chitta is one repository of several Go modules: the root module
// (github.com/chitta-go/chitta) and the sub-modules that keep heavy
// dependencies out of it (pgstore, tiktoken, adapt/*), plus the harness and
// benchmark modules, which are installed from a checkout. Every module that
// requires another chitta module requires it at [Version] and replaces it
// with its directory in the repository, so that a checkout builds as one
// tree. A user's build ignores those replace directives and resolves the
// required versions from the module proxy, which is why they must name a
// version that is tagged: RELEASING.md, at the repository's root, gives the
// tags (one per published module, all at [Version], on one commit).
//
// The tests run from a checkout (they read the repository two directories
// up). TestModulesRequireVersion checks every go.mod; TestUserBuild publishes
// the library modules at [Version] to a file module proxy, made from the
// committed tree (git archive of HEAD, as a tag would publish it), and builds
// a program of a user's that imports each of them, without the replace
// directives, as `go get` would.
//
// Package release sits above the library: it uses it as a user does and
// nothing imports it.
package release

// Version is the version at which every chitta module is tagged and at which
// every chitta module requires the others.
const Version = "v0.1.0"

// Published lists the module directories, relative to the repository's root,
// that users get with `go get`: the root module and the library sub-modules.
// The other modules (examples/*, bench/*, tools/*) are installed or run from
// a checkout and are not tagged.
var Published = []string{
	".",
	"adapt/anthropic",
	"adapt/eino",
	"adapt/genai",
	"adapt/langchaingo",
	"adapt/openai",
	"pgstore",
	"tiktoken",
}
