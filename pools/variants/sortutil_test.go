package variants

import (
	"cmp"
	"slices"
)

func slicesSortByValue(cs []Candidate) {
	slices.SortStableFunc(cs, func(x, y Candidate) int { return cmp.Compare(x.Value, y.Value) })
}
