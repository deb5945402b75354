package chitta

// SynthTurns exposes synthTurns to the package's external tests.
var SynthTurns = synthTurns
