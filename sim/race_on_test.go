//go:build race

package sim

// raceEnabled tells tests that count allocated bytes that the race detector
// is on: it allocates shadow state per object, so such counts do not hold.
const raceEnabled = true
