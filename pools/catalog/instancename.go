package catalog

import (
	"fmt"
	"strconv"
	"strings"
)

// ParseInstanceName resolves GPU/MODEL/tpN (GPU a specification of
// HardwareNames, MODEL one of ModelNames, N the tensor-parallel degree) to
// an Instance with the default reserve and efficiencies. Without /tpN the
// smallest TP of 1, 2, 4, 8 that validates is taken.
func ParseInstanceName(name string) (Instance, error) {
	parts := strings.Split(strings.ToLower(strings.TrimSpace(name)), "/")
	if len(parts) < 2 || len(parts) > 3 {
		return Instance{}, fmt.Errorf("instance %q: want GPU/MODEL/tpN (e.g. h100/llama-3.1-70b/tp4)", name)
	}
	g, err := LookupHardware(parts[0])
	if err != nil {
		return Instance{}, err
	}
	m, err := LookupModel(parts[1])
	if err != nil {
		return Instance{}, err
	}
	if len(parts) == 3 {
		digits, ok := strings.CutPrefix(parts[2], "tp")
		tp, err := strconv.Atoi(digits)
		if err != nil || !ok || digits == "" || (len(digits) > 1 && digits[0] == '0') || strings.Trim(digits, "0123456789") != "" {
			return Instance{}, fmt.Errorf("instance %q: tensor parallelism %q: want tpN, N in 1..%d", name, parts[2], MaxTP)
		}
		return NewInstance(g, m, tp), nil
	}
	return AutoTP(g, m)
}

// AutoTP returns the instance of g serving m with the smallest TP of 1, 2,
// 4, 8 that validates (default reserve and efficiencies), or the TP 8 error.
func AutoTP(g Hardware, m Model) (Instance, error) { return FitTP(g, m, 0, nil) }

// FitTP returns the validated instance of tp GPUs of g serving m, or with
// tp 0 the smallest TP of 1, 2, 4, 8 that validates (else the TP 8 error).
// adjust, when not nil, changes each candidate's defaults (reserve, util,
// efficiencies) before it is validated.
func FitTP(g Hardware, m Model, tp int, adjust func(*Instance)) (Instance, error) {
	tps := []int{tp}
	if tp == 0 {
		tps = []int{1, 2, 4, 8}
	}
	var err error
	for _, n := range tps {
		in := NewInstance(g, m, n)
		if adjust != nil {
			adjust(&in)
		}
		if err = in.Validate(); err == nil {
			return in, nil
		}
	}
	return Instance{}, err
}
