//go:build !race

package chitta

// soakRace shortens TestCompactorSoak's default sessions under the race
// detector, which slows them about tenfold.
const soakRace = false
